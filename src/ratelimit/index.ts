export type { BucketLimits, RateLimitDecision, RateLimiter } from './types.js';
export { type BucketState, UNITS_PER_TOKEN, assertLimits, decide, fullBucket, refill } from './bucket.js';
export { type MemoryRateLimiterDeps, createMemoryRateLimiter } from './memory.js';
export { type RedisErrorPolicy, type RedisRateLimiterDeps, createRedisRateLimiter, limiterRedisOptions } from './redis.js';
export { type UsageCounter, createMemoryUsageCounter, createRedisUsageCounter, utcDay } from './usage.js';
