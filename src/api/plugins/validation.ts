import type { FastifyInstance } from 'fastify';
import { invalidParameter } from '../errors.js';
import { describeRule, repeatedParameter } from '../params.js';

type Props = Record<string, Record<string, unknown>>;

/**
 * Query checks the JSON schema cannot express, run as preValidation (after auth and rate
 * limit, before schema validation):
 * - a repeated parameter is ambiguous (which one wins?) → 400 (DESIGN §4); unknown parameters
 *   are ignored, repeated or not;
 * - integer parameters must be plain decimal digits of a safe integer: AJV's coercion would
 *   also take `0x10`, ` 10`, `1e3` or `1.0`, and turn `1e20` into a number no store can use.
 */
export function registerQueryGuards(scope: FastifyInstance): void {
  scope.addHook('preValidation', async (request) => {
    const props = (request.routeOptions.schema?.querystring as { properties?: Props } | undefined)?.properties;
    if (!props) return;
    const repeated = repeatedParameter(request.query, props);
    if (repeated !== undefined) throw invalidParameter(repeated, 'must be given at most once');
    const query = request.query as Record<string, unknown>;
    for (const [name, schema] of Object.entries(props)) {
      const raw = query[name];
      if (schema.type !== 'integer' || typeof raw !== 'string') continue;
      if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw invalidParameter(name, describeRule(name, schema));
    }
  });
}
