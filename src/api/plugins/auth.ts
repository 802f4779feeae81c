import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from '../../core/index.js';
import type { KeyService } from '../../keys/index.js';
import type { BucketLimits, RateLimiter } from '../../ratelimit/index.js';
import { apiError } from '../errors.js';

/**
 * Authentication (spec §5, DESIGN §4), as an onRequest hook of the protected scope:
 * - `X-API-Key` wins over `Authorization: Bearer` when both are sent;
 * - no key → 401 MISSING_API_KEY; malformed, unknown, revoked or expired → the same 401
 *   UNAUTHORIZED (no oracle);
 * - failed authentications are limited per client IP: while an IP's failure bucket is empty,
 *   its keyed requests get 429 without the key being checked (a brute-force guard must stop
 *   the guessing, not just change the answer).
 */

export const DEFAULT_AUTH_FAILURE_LIMITS: BucketLimits = { rpm: 30, burst: 30 };

/** The presented credential: none, a key to check, or a credential that cannot be a key. */
export type Presented = { kind: 'missing' } | { kind: 'key'; key: string } | { kind: 'invalid' };

export function presentedKey(request: FastifyRequest): Presented {
  const x = request.headers['x-api-key'];
  // A repeated header arrives joined ("a, b") or as an array: never pick one of them silently.
  if (Array.isArray(x)) return { kind: 'invalid' };
  if (typeof x === 'string' && x.trim() !== '') return { kind: 'key', key: x.trim() };
  const auth = request.headers.authorization;
  if (typeof auth === 'string' && auth.trim() !== '') {
    const m = /^Bearer +(\S+)$/i.exec(auth.trim());
    // Any other Authorization value (Basic, a bare key) is a failed credential, not a missing one.
    return m ? { kind: 'key', key: m[1]! } : { kind: 'invalid' };
  }
  return { kind: 'missing' };
}

export interface AuthDeps {
  keys: KeyService;
  limiter: RateLimiter;
  metrics: Metrics;
  failureLimits: BucketLimits;
}

export function registerAuth(scope: FastifyInstance, deps: AuthDeps): void {
  const { keys, limiter, metrics, failureLimits } = deps;
  scope.addHook('onRequest', async (request) => {
    const presented = presentedKey(request);
    if (presented.kind === 'missing') {
      metrics.authFailures.inc({ reason: 'missing' });
      throw apiError('MISSING_API_KEY');
    }
    const guardId = `authfail:${request.ip}`;
    const guard = await limiter.peek(guardId, failureLimits);
    if (!guard.allowed) {
      metrics.authFailures.inc({ reason: 'ip_blocked' });
      throw apiError('RATE_LIMITED', 'Rate limit exceeded: too many failed authentications from this address', { retryAfter: guard.retryAfterSec });
    }
    const outcome = presented.kind === 'key' ? await keys.verify(presented.key) : ({ ok: false, reason: 'malformed' } as const);
    if (!outcome.ok) {
      metrics.authFailures.inc({ reason: outcome.reason });
      await limiter.consume(guardId, failureLimits);
      request.log.info({ auth_failure: outcome.reason }, 'authentication failed');
      throw apiError('UNAUTHORIZED');
    }
    request.apiKey = outcome.record;
  });
}
