import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock, Metrics } from '../../core/index.js';
import type { BucketLimits, RateLimitDecision, RateLimiter, UsageCounter } from '../../ratelimit/index.js';
import type { ApiKeyRecord } from '../../store/index.js';
import { apiError } from '../errors.js';
import { runStep } from './hook-step.js';

/**
 * The IETF RateLimit-Policy of a key's bucket (draft-ietf-httpapi-ratelimit-headers; docs/errors.md
 * "Rate-limit headers"): quota `q` = the bucket's capacity (burst) over window `w` = the seconds the
 * bucket takes to refill from empty (burst × 60 / rpm, rounded up), so `q / w` is the sustained rate
 * and the remaining count `r` is never above `q`. Named after the tier: `"standard";q=200;w=120`.
 */
export function rateLimitPolicy(tier: string, limits: BucketLimits): string {
  return `"${tier}";q=${limits.burst};w=${Math.ceil((limits.burst * 60) / limits.rpm)}`;
}

// One policy text per key record (records are reused for seconds): no string built per request.
const policies = new WeakMap<ApiKeyRecord, string>();
function policyOf(key: ApiKeyRecord): string {
  let p = policies.get(key);
  if (p === undefined) policies.set(key, (p = rateLimitPolicy(key.tier, key)));
  return p;
}

/**
 * Appends the five rate-limit headers of a decision to a flat [name, value, …] list, in the form
 * both request paths send (this hook and plugins/hit-lane.ts; docs/errors.md "Rate-limit headers"):
 * `X-RateLimit-Limit` (rpm), `X-RateLimit-Remaining` (whole tokens), `X-RateLimit-Reset` (Unix s
 * when full), `RateLimit-Policy` (rateLimitPolicy) and `RateLimit: "<tier>";r=<remaining>;t=<s until full>`.
 * `nowMs`: Unix ms.
 */
export function pushRateLimitHeaders(list: string[], key: ApiKeyRecord, d: RateLimitDecision, nowMs: number): void {
  list.push(
    'x-ratelimit-limit', String(d.limit),
    'x-ratelimit-remaining', String(d.remaining),
    'x-ratelimit-reset', String(d.resetSec),
    'ratelimit-policy', policyOf(key),
    'ratelimit', `"${key.tier}";r=${d.remaining};t=${Math.max(0, d.resetSec - Math.floor(nowMs / 1000))}`,
  );
}

/**
 * Per-key token bucket (docs/design.md §4 "Rate limits"), an onRequest hook after auth and the
 * key-use check, before validation. Sets on every authenticated answer, errors included:
 * `X-RateLimit-Limit` (rpm), `X-RateLimit-Remaining` (whole tokens; up to the burst),
 * `X-RateLimit-Reset` (Unix s when full), and the IETF `RateLimit-Policy` (rateLimitPolicy) and
 * `RateLimit: "<tier>";r=<remaining>;t=<s until full>`. Denies with 429 RATE_LIMITED +
 * `Retry-After` = seconds until one request is allowed. A charged request is counted in `usage`
 * under its operation id (GET /usage); a route with `config.free` (GET /usage itself) only reads
 * the bucket: never charged, never denied, not counted.
 * Callback-style: with the in-process limiter no promise is made per request (docs/benchmarks.md).
 */
export function registerRateLimit(scope: FastifyInstance, deps: { limiter: RateLimiter; metrics: Metrics; clock: Clock; usage: UsageCounter }): void {
  const { limiter, metrics, clock, usage } = deps;
  const apply = (reply: FastifyReply, key: ApiKeyRecord, d: RateLimitDecision, free: boolean): void => {
    const headers: string[] = [];
    pushRateLimitHeaders(headers, key, d, clock.now());
    for (let i = 0; i < headers.length; i += 2) reply.header(headers[i]!, headers[i + 1]!);
    if (free) return;
    if (!d.allowed) {
      metrics.rateLimitDenials.inc({ tier: key.tier });
      throw apiError('RATE_LIMITED', undefined, { retryAfter: d.retryAfterSec });
    }
    const operation = reply.request.routeOptions.config.operation;
    if (operation !== undefined) usage.count(key.id, operation, clock.now());
  };
  const limit = (reply: FastifyReply): void | Promise<void> => {
    const key = reply.request.apiKey;
    if (!key) return; // auth ran first and would have thrown
    const bucketId = `key:${key.id}`;
    const free = reply.request.routeOptions.config.free === true;
    // The key record carries its limits (rpm, burst): no object per request.
    if (limiter.sync) return apply(reply, key, free ? limiter.sync.peek(bucketId, key) : limiter.sync.consume(bucketId, key), free);
    return (free ? limiter.peek(bucketId, key) : limiter.consume(bucketId, key)).then((d) => apply(reply, key, d, free));
  };
  scope.addHook('onRequest', (_request, reply, done) => runStep(done, limit, reply));
}
