import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../core/index.js';
import type { RateLimiter, UsageCounter } from '../../ratelimit/index.js';
import { utcDay } from '../../ratelimit/index.js';
import { rateLimitPolicy } from '../plugins/rate-limit.js';
import { count, obj, protectedErrors } from '../schemas.js';

const usageSchema = obj(
  {
    key: obj({
      id: { type: 'string', description: 'Key id (as `keys list` shows it; never the key itself)' },
      name: { type: 'string', description: 'Who or what the key is for' },
      tier: { type: 'string', enum: ['standard', 'premium', 'enterprise', 'publishable'], description: 'Rate-limit tier' },
      scopes: { type: 'array', items: { type: 'string', enum: ['read', 'sync', 'stream', 'export'] }, description: 'What the key may call' },
      publishable: { type: 'boolean', description: 'A browser key: read-only, accepted only from its origins' },
      origins: { type: 'array', items: { type: 'string' }, description: 'Allowed origins of a publishable key (empty for secret keys)' },
    }),
    bucket: obj({
      rpm: count('Refill rate, requests per minute (`X-RateLimit-Limit`)'),
      burst: count('Capacity: the most requests allowed at once'),
      remaining: count('Whole requests left now (`X-RateLimit-Remaining`)'),
      resetAt: { type: 'integer', description: 'When the bucket is full again (Unix s, `X-RateLimit-Reset`)' },
      policy: { type: 'string', description: 'The IETF `RateLimit-Policy` of the bucket, e.g. `"standard";q=200;w=120`' },
    }, 'The key\'s token bucket now; this call takes no token'),
    today: obj({
      date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'The UTC day counted (counts restart at 00:00 UTC)' },
      total: count('Requests charged to the key today'),
      operations: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 }, description: 'Requests today by operationId (e.g. `getPlayers`); operations not called are absent' },
    }, 'Requests charged to the key today by operation (docs/design.md §4 "Usage": in Redis with REDIS_URL, else per process)'),
  },
  'The calling key\'s tier, bucket and usage today',
);

/**
 * `GET /usage` (docs/design.md §4 "Usage"): the calling key's tier, scopes, bucket state and
 * requests per operation today (UTC). Free: it is not charged to the bucket nor counted
 * (`config.free`, plugins/rate-limit.ts), so polling it never spends the budget it reports.
 * Never cached (`config.uncached`): the answer is the calling key's own.
 */
export function registerUsageRoutes(scope: FastifyInstance, deps: { limiter: RateLimiter; usage: UsageCounter; clock: Clock }): void {
  const { limiter, usage, clock } = deps;
  scope.get('/usage', {
    config: { free: true, uncached: true },
    schema: { tags: ['usage'], summary: 'The calling key\'s tier, bucket and requests today', response: { 200: usageSchema, ...protectedErrors } },
  }, async (request) => {
    const key = request.apiKey!;
    const now = clock.now();
    const [d, operations] = await Promise.all([limiter.peek(`key:${key.id}`, key), usage.read(key.id, now)]);
    const sorted = Object.fromEntries(Object.entries(operations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return {
      key: { id: key.id, name: key.name, tier: key.tier, scopes: [...key.scopes], publishable: key.publishable, origins: [...key.origins] },
      bucket: { rpm: key.rpm, burst: key.burst, remaining: d.remaining, resetAt: d.resetSec, policy: rateLimitPolicy(key.tier, key) },
      today: { date: utcDay(now), total: Object.values(operations).reduce((a, b) => a + b, 0), operations: sorted },
    };
  });
}
