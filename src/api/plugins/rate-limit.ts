import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../core/index.js';
import type { RateLimiter } from '../../ratelimit/index.js';
import { apiError } from '../errors.js';

/**
 * Per-key token bucket (DESIGN §4 "Rate limits"), an onRequest hook after auth and before
 * validation. Sets `X-RateLimit-Limit` (rpm), `X-RateLimit-Remaining` (whole tokens) and
 * `X-RateLimit-Reset` (Unix s when full) on every authenticated answer, errors included;
 * denies with 429 RATE_LIMITED + `Retry-After` = seconds until one request is allowed.
 */
export function registerRateLimit(scope: FastifyInstance, deps: { limiter: RateLimiter; metrics: Metrics }): void {
  const { limiter, metrics } = deps;
  scope.addHook('onRequest', async (request, reply) => {
    const key = request.apiKey;
    if (!key) return; // auth ran first and would have thrown
    const d = await limiter.consume(`key:${key.id}`, { rpm: key.rpm, burst: key.burst });
    reply.header('x-ratelimit-limit', String(d.limit));
    reply.header('x-ratelimit-remaining', String(d.remaining));
    reply.header('x-ratelimit-reset', String(d.resetSec));
    if (!d.allowed) {
      metrics.rateLimitDenials.inc({ tier: key.tier });
      throw apiError('RATE_LIMITED', undefined, { retryAfter: d.retryAfterSec });
    }
  });
}
