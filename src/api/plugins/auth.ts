import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from '../../core/index.js';
import type { KeyService, VerifyOutcome } from '../../keys/index.js';
import type { BucketLimits, RateLimitDecision, RateLimiter } from '../../ratelimit/index.js';
import { apiError } from '../errors.js';
import { runStep } from './hook-step.js';

/**
 * Authentication (docs/spec.md §5, docs/design.md §4), as an onRequest hook of the protected scope:
 * - `X-API-Key` wins over `Authorization: Bearer` when both are sent;
 * - no key → 401 MISSING_API_KEY; malformed, unknown, revoked or expired → the same 401
 *   UNAUTHORIZED (no oracle);
 * - failed authentications are limited per client IP: while an IP's failure bucket is empty,
 *   its keyed requests get 429 without the key being checked (a brute-force guard must stop
 *   the guessing, not just change the answer).
 */

/** Failed authentications allowed per client IP: 30 per minute, burst 30 (docs/design.md §4). */
export const DEFAULT_AUTH_FAILURE_LIMITS: BucketLimits = { rpm: 30, burst: 30 };

/** The presented credential: none, a key to check, or a credential that cannot be a key. */
export type Presented = { kind: 'missing' } | { kind: 'key'; key: string } | { kind: 'invalid' };

/** The credential of a request (Fastify's or Node's): `X-API-Key`, else `Authorization: Bearer <key>` (docs/design.md §4); a repeated or other header is `invalid`. */
export function presentedKey(request: { headers: IncomingHttpHeaders }): Presented {
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

/** What the auth plugin needs: key verification, the limiter and metrics, and the per-IP failed-authentication bucket. */
export interface AuthDeps {
  keys: KeyService;
  limiter: RateLimiter;
  metrics: Metrics;
  failureLimits: BucketLimits;
}

/**
 * Adds API key authentication to every route of `scope` not marked `config.public`: 401
 * MISSING_API_KEY / UNAUTHORIZED, and 429 RATE_LIMITED for a client IP past `failureLimits` (docs/design.md §4).
 */
export function registerAuth(scope: FastifyInstance, deps: AuthDeps): void {
  const { keys, limiter, metrics, failureLimits } = deps;

  /** Step 3: the verified key is attached, or the failure is counted against the IP and answered 401. */
  const settle = (request: FastifyRequest, guardId: string, outcome: VerifyOutcome): void | Promise<void> => {
    if (outcome.ok) {
      request.apiKey = outcome.record;
      return;
    }
    metrics.authFailures.inc({ reason: outcome.reason });
    const fail = (): never => {
      request.log.info({ auth_failure: outcome.reason }, 'authentication failed');
      throw apiError('UNAUTHORIZED');
    };
    if (limiter.sync) {
      limiter.sync.consume(guardId, failureLimits);
      return fail();
    }
    return limiter.consume(guardId, failureLimits).then(fail);
  };

  /** Step 2: a blocked IP gets 429 before its key is looked at; otherwise the key is verified. */
  const check = (request: FastifyRequest, presented: Exclude<Presented, { kind: 'missing' }>, guardId: string, guard: RateLimitDecision): void | Promise<void> => {
    if (!guard.allowed) {
      metrics.authFailures.inc({ reason: 'ip_blocked' });
      throw apiError('RATE_LIMITED', 'Rate limit exceeded: too many failed authentications from this address', { retryAfter: guard.retryAfterSec });
    }
    if (presented.kind === 'invalid') return settle(request, guardId, MALFORMED);
    // A key whose record this process fetched within recordTtlMs is verified without a store query.
    const known = keys.verifyCached(presented.key);
    if (known !== undefined) return settle(request, guardId, known);
    return keys.verify(presented.key).then((outcome) => settle(request, guardId, outcome));
  };

  // Callback-style (runStep): with the in-process limiter and a known key the whole check is
  // synchronous — no promise per request (docs/benchmarks.md); a store or Redis round trip makes it wait.
  const authenticate = (request: FastifyRequest): void | Promise<void> => {
    const presented = presentedKey(request);
    if (presented.kind === 'missing') {
      metrics.authFailures.inc({ reason: 'missing' });
      throw apiError('MISSING_API_KEY');
    }
    const guardId = `authfail:${request.ip}`;
    // The in-process limiter answers at once (an IP that never failed has no bucket: a Map miss).
    if (limiter.sync) return check(request, presented, guardId, limiter.sync.peek(guardId, failureLimits));
    return limiter.peek(guardId, failureLimits).then((guard) => check(request, presented, guardId, guard));
  };
  scope.addHook('onRequest', (request, _reply, done) => runStep(done, authenticate, request));
}

const MALFORMED: VerifyOutcome = { ok: false, code: 'UNAUTHORIZED', reason: 'malformed' };
