import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { invalidParameter } from '../errors.js';
import { repeatedParameter, ruleOf } from '../params.js';

type Props = Record<string, Record<string, unknown>>;

const DECIMAL_DIGITS = /^\d{1,16}$/;

/**
 * Query checks the JSON schema cannot express, run as preValidation (after auth and rate
 * limit, before schema validation):
 * - a repeated parameter is ambiguous (which one wins?) → 400 (docs/design.md §4); unknown parameters
 *   are ignored, repeated or not;
 * - integer parameters must be plain decimal digits of a safe integer: AJV's coercion would
 *   also take `0x10`, ` 10`, `1e3` or `1.0`, and turn `1e20` into a number no store can use.
 * Attached per route when the route is added (call before the routes): only routes with query
 * parameters get the hook, each with its integer parameters listed once (docs/benchmarks.md hot path).
 */
export function registerQueryGuards(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    const props = (route.schema?.querystring as { properties?: Props } | undefined)?.properties;
    if (!props) return;
    const integers = Object.entries(props).filter(([, schema]) => schema.type === 'integer');
    const guard: preValidationHookHandler = (request, _reply, done) => {
      const repeated = repeatedParameter(request.query, props);
      if (repeated !== undefined) return done(invalidParameter(repeated, 'must be given at most once'));
      const query = request.query as Record<string, unknown>;
      for (const [name, schema] of integers) {
        const raw = query[name];
        if (typeof raw !== 'string') continue;
        if (!DECIMAL_DIGITS.test(raw) || !Number.isSafeInteger(Number(raw))) return done(invalidParameter(name, ruleOf(schema)));
      }
      done();
    };
    route.preValidation = [guard, ...[route.preValidation ?? []].flat()];
  });
}
