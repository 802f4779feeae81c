import type { FastifyInstance } from 'fastify';
import { invalidParameter } from '../errors.js';
import { repeatedParameter } from '../params.js';

/**
 * Repeated query parameters are ambiguous (which one wins?) → 400 (DESIGN §4). Runs as
 * preValidation, i.e. after auth and rate limit, before schema validation coerces arrays.
 * Unknown parameters are ignored, repeated or not.
 */
export function registerRepeatedParamGuard(scope: FastifyInstance): void {
  scope.addHook('preValidation', async (request) => {
    const qs = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    const name = repeatedParameter(request.query, qs?.properties);
    if (name !== undefined) throw invalidParameter(name, 'must be given at most once');
  });
}
