import type { Clock } from '../core/index.js';
import { type BucketState, UNITS_PER_TOKEN, assertLimits, decide } from './bucket.js';
import type { BucketLimits, RateLimitDecision, RateLimiter } from './types.js';
import { createMemoryUsageCounter } from './usage.js';

/** What the in-memory limiter needs: the clock (Unix ms) buckets refill against, and a bucket count bound. */
export interface MemoryRateLimiterDeps {
  clock: Clock;
  /**
   * Above this many buckets, full ones are dropped (a full bucket equals a fresh one, so
   * dropping it changes no answer). Bounds memory under many keys / client IPs.
   */
  maxBuckets?: number;
}

/**
 * In-process token buckets (docs/design.md §4: the default; one budget per process). Buckets are
 * per `bucketId`; callers namespace ids (`key:<id>`, `authfail:<ip>`).
 */
export function createMemoryRateLimiter(deps: MemoryRateLimiterDeps): RateLimiter {
  const { clock } = deps;
  const maxBuckets = deps.maxBuckets ?? 100_000;
  const buckets = new Map<string, { state: BucketState; burst: number; rpm: number }>();

  function sweep(now: number): void {
    for (const [id, b] of buckets) {
      const elapsed = Math.max(0, now - b.state.updatedMs);
      if (b.state.level + elapsed * b.rpm >= b.burst * UNITS_PER_TOKEN) buckets.delete(id);
    }
  }

  function run(bucketId: string, limits: BucketLimits, take: boolean): RateLimitDecision {
    assertLimits(limits);
    const now = clock.now();
    const entry = buckets.get(bucketId);
    const { state, decision } = decide(entry?.state, limits, now, take);
    if (take) {
      if (entry) {
        // Update in place: one Map write less per request (the hot path of every keyed request).
        entry.state = state;
        entry.burst = limits.burst;
        entry.rpm = limits.rpm;
      } else {
        buckets.set(bucketId, { state, burst: limits.burst, rpm: limits.rpm });
        if (buckets.size > maxBuckets) sweep(now);
      }
    }
    return decision;
  }

  return {
    // async: a bad limit rejects (like a Redis round trip would) instead of throwing synchronously.
    consume: async (bucketId, limits) => run(bucketId, limits, true),
    peek: async (bucketId, limits) => run(bucketId, limits, false),
    sync: {
      consume: (bucketId, limits) => run(bucketId, limits, true),
      peek: (bucketId, limits) => run(bucketId, limits, false),
    },
    usage: createMemoryUsageCounter(),
    close: async () => {
      buckets.clear();
    },
  };
}
