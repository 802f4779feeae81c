import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from '../../core/index.js';
import { apiError } from '../errors.js';

/**
 * What an authenticated key may do here (docs/design.md §4 "Scopes and publishable keys"), an
 * onRequest hook after auth and before the rate limit (a refusal costs no budget):
 * - a publishable key is accepted only with an `Origin` header equal to one of its origins: any
 *   other origin, or none, is 403 ORIGIN_NOT_ALLOWED and the answer carries no
 *   `Access-Control-Allow-Origin`; an allowed origin is echoed (with `Vary: Origin`) instead of `*`;
 * - the route's scope (`config.scope`, default `read`) must be one of the key's scopes, else 403
 *   INSUFFICIENT_SCOPE.
 * Synchronous: no promise per request (docs/benchmarks.md hot path).
 */
export function registerKeyUse(scope: FastifyInstance, deps: { metrics: Metrics }): void {
  const { metrics } = deps;
  const check = (request: FastifyRequest, reply: FastifyReply): void => {
    const key = request.apiKey;
    if (!key) return; // auth ran first and would have thrown
    if (key.publishable) {
      const origin = request.headers.origin;
      if (typeof origin !== 'string' || !key.origins.includes(origin)) {
        reply.removeHeader('access-control-allow-origin');
        metrics.authFailures.inc({ reason: 'origin' });
        throw apiError('ORIGIN_NOT_ALLOWED', origin === undefined
          ? 'Origin not allowed for this publishable key: the request has no Origin header'
          : 'Origin not allowed for this publishable key');
      }
      reply.header('access-control-allow-origin', origin);
      const vary = reply.getHeader('vary');
      reply.header('vary', vary === undefined ? 'Origin' : `${String(vary)}, Origin`);
    }
    const needed = request.routeOptions.config.scope ?? 'read';
    if (!key.scopes.includes(needed)) {
      metrics.authFailures.inc({ reason: 'scope' });
      throw apiError('INSUFFICIENT_SCOPE', `API key lacks the scope '${needed}' this operation needs`);
    }
  };
  scope.addHook('onRequest', (request, reply, done) => {
    try {
      check(request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });
}
