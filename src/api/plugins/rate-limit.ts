import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Metrics } from '../../core/index.js';
import type { RateLimitDecision, RateLimiter } from '../../ratelimit/index.js';
import type { ApiKeyRecord } from '../../store/index.js';
import { apiError } from '../errors.js';
import { runStep } from './hook-step.js';

/**
 * Per-key token bucket (docs/design.md §4 "Rate limits"), an onRequest hook after auth and before
 * validation. Sets `X-RateLimit-Limit` (rpm), `X-RateLimit-Remaining` (whole tokens) and
 * `X-RateLimit-Reset` (Unix s when full) on every authenticated answer, errors included;
 * denies with 429 RATE_LIMITED + `Retry-After` = seconds until one request is allowed.
 * Callback-style: with the in-process limiter no promise is made per request (docs/benchmarks.md).
 */
export function registerRateLimit(scope: FastifyInstance, deps: { limiter: RateLimiter; metrics: Metrics }): void {
  const { limiter, metrics } = deps;
  const apply = (reply: FastifyReply, key: ApiKeyRecord, d: RateLimitDecision): void => {
    reply.header('x-ratelimit-limit', String(d.limit));
    reply.header('x-ratelimit-remaining', String(d.remaining));
    reply.header('x-ratelimit-reset', String(d.resetSec));
    if (!d.allowed) {
      metrics.rateLimitDenials.inc({ tier: key.tier });
      throw apiError('RATE_LIMITED', undefined, { retryAfter: d.retryAfterSec });
    }
  };
  const limit = (reply: FastifyReply): void | Promise<void> => {
    const key = reply.request.apiKey;
    if (!key) return; // auth ran first and would have thrown
    const bucketId = `key:${key.id}`;
    // The key record carries its limits (rpm, burst): no object per request.
    if (limiter.sync) return apply(reply, key, limiter.sync.consume(bucketId, key));
    return limiter.consume(bucketId, key).then((d) => apply(reply, key, d));
  };
  scope.addHook('onRequest', (_request, reply, done) => runStep(done, limit, reply));
}
