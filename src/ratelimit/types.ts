/**
 * Rate limiting contract (docs/design.md §4 "Rate limits"). Async so a shared implementation (Redis,
 * docs/design.md §1 scale-out) can sit behind the same interface as the in-process one.
 */

import type { UsageCounter } from './usage.js';

/** Limits of one bucket: capacity `burst` tokens, refilled at `rpm` tokens per minute, evenly. */
export interface BucketLimits {
  /** Requests per minute (refill rate). Integer ≥ 1. */
  rpm: number;
  /** Bucket capacity (the most requests allowed at once). Integer ≥ 1. */
  burst: number;
}

/** The outcome of one `consume` or `peek` (a value, not an exception: docs/architecture.md convention 5). */
export interface RateLimitDecision {
  /** true when a token was available (and, for `consume`, taken). */
  allowed: boolean;
  /** The per-minute rate, for `X-RateLimit-Limit` (docs/design.md §4). */
  limit: number;
  /** Whole tokens left after this call, for `X-RateLimit-Remaining`. */
  remaining: number;
  /** Unix **seconds** when the bucket will be full again (ceil), for `X-RateLimit-Reset`. */
  resetSec: number;
  /** Seconds until one request is allowed (ceil); 0 when allowed. For `Retry-After`/`retryAfter`. */
  retryAfterSec: number;
}

/** A token-bucket rate limiter (in memory or in Redis); denials are values, not exceptions (docs/architecture.md convention 5). */
export interface RateLimiter {
  /** Takes one token from bucket `bucketId` if one is available. Buckets are created full. */
  consume(bucketId: string, limits: BucketLimits): Promise<RateLimitDecision>;
  /** Reports the bucket as `consume` would, without taking a token (`allowed` = a token is available). */
  peek(bucketId: string, limits: BucketLimits): Promise<RateLimitDecision>;
  /**
   * The per-key, per-operation, per-UTC-day request counts of `GET /usage`, kept where the
   * buckets are (this process's memory, or the same Redis). Optional for other limiters (the API
   * then counts in memory).
   */
  readonly usage?: UsageCounter;
  /** Releases resources (timers, connections). */
  close(): Promise<void>;
  /**
   * `consume` and `peek` answered synchronously, present only on limiters whose buckets live in
   * this process (the memory limiter): the API's hooks then decide without a promise per request
   * (docs/benchmarks.md hot path). Same decisions as the async methods; a bad limit throws RangeError
   * instead of rejecting. Absent on shared limiters (Redis), whose answer needs a round trip.
   */
  readonly sync?: {
    consume(bucketId: string, limits: BucketLimits): RateLimitDecision;
    peek(bucketId: string, limits: BucketLimits): RateLimitDecision;
  };
}
