import type { BucketLimits, RateLimitDecision } from './types.js';

/**
 * Token-bucket arithmetic, the one place it lives (the memory limiter and a future Redis
 * script must agree with it). Integer arithmetic keeps refills exact: a bucket's `level` is
 * counted in 1/60 000 of a token, so refilling `rpm` tokens per 60 000 ms adds exactly `rpm`
 * units per elapsed millisecond and one request costs `UNITS_PER_TOKEN` units.
 */
export const UNITS_PER_TOKEN = 60_000;

/** Stored state of one bucket. */
export interface BucketState {
  /** Tokens × UNITS_PER_TOKEN, 0..burst × UNITS_PER_TOKEN. */
  level: number;
  /** Unix ms of the last update. */
  updatedMs: number;
}

/** A full bucket (`burst` tokens) as of `nowMs` (Unix ms): how every bucket starts. */
export function fullBucket(limits: BucketLimits, nowMs: number): BucketState {
  return { level: limits.burst * UNITS_PER_TOKEN, updatedMs: nowMs };
}

/** The bucket's state at `nowMs` after refilling since its last update (a clock going backwards refills nothing). */
export function refill(state: BucketState, limits: BucketLimits, nowMs: number): BucketState {
  const capacity = limits.burst * UNITS_PER_TOKEN;
  const elapsed = Math.max(0, nowMs - state.updatedMs);
  const level = Math.min(capacity, Math.min(state.level, capacity) + elapsed * limits.rpm);
  return { level, updatedMs: Math.max(nowMs, state.updatedMs) };
}

/**
 * Takes one token (when `take` and one is available) and describes the result.
 * Returns the new state and the decision for the HTTP headers.
 */
export function decide(
  previous: BucketState | undefined,
  limits: BucketLimits,
  nowMs: number,
  take: boolean,
): { state: BucketState; decision: RateLimitDecision } {
  const state = previous === undefined ? fullBucket(limits, nowMs) : refill(previous, limits, nowMs);
  const allowed = state.level >= UNITS_PER_TOKEN;
  const next = allowed && take ? { level: state.level - UNITS_PER_TOKEN, updatedMs: state.updatedMs } : state;
  const capacity = limits.burst * UNITS_PER_TOKEN;
  // ms until full / until one token, rounded up to whole ms so we never promise early.
  const msToFull = Math.ceil((capacity - next.level) / limits.rpm);
  const msToOne = allowed ? 0 : Math.ceil((UNITS_PER_TOKEN - state.level) / limits.rpm);
  return {
    state: next,
    decision: {
      allowed,
      limit: limits.rpm,
      remaining: Math.floor(next.level / UNITS_PER_TOKEN),
      resetSec: Math.ceil((nowMs + msToFull) / 1000),
      retryAfterSec: Math.ceil(msToOne / 1000),
    },
  };
}

/** Throws RangeError unless rpm and burst are integers ≥ 1 (a zero rate would never refill). */
export function assertLimits(limits: BucketLimits): void {
  // Both fields by name (no Object.entries): this runs on every request.
  if (!Number.isSafeInteger(limits.rpm) || limits.rpm < 1) throw new RangeError(`rate limit rpm must be an integer ≥ 1, got ${limits.rpm}`);
  if (!Number.isSafeInteger(limits.burst) || limits.burst < 1) throw new RangeError(`rate limit burst must be an integer ≥ 1, got ${limits.burst}`);
}
