import type { Config } from '../config/index.js';
import type { Common } from '../core/index.js';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from '../ratelimit/index.js';

/**
 * The API's rate limiter from the configuration: Redis buckets shared by every API process
 * when REDIS_URL is set (docs/deployment.md; RATE_LIMIT_ON_REDIS_ERROR decides what an outage does),
 * otherwise in-process buckets (one budget per process). Registers its close step.
 */
export function createConfiguredLimiter(common: Common, config: Pick<Config, 'redisUrl' | 'rateLimitOnRedisError'>): RateLimiter {
  const limiter = config.redisUrl
    ? createRedisRateLimiter({ url: config.redisUrl, onError: config.rateLimitOnRedisError, logger: common.logger })
    : createMemoryRateLimiter({ clock: common.clock });
  common.shutdown.register('rate-limiter', () => limiter.close());
  return limiter;
}
