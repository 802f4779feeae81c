import type { FastifyInstance } from 'fastify';
import type { Scope } from '../store/index.js';

/** The alias prefix of every operation (docs/design.md §4 "Versioning"): `/v1/players` is `/players`. */
export const VERSION_PREFIX = '/v1';

/**
 * The OpenAPI `operationId` of a route, from its method and path (docs/design.md §4 "Versioning"):
 * the method in lower case, then each path segment capitalised, `-` and `_` dropped, a path
 * parameter `:id` as `ById`; the `/v1` prefix is ignored and HEAD is its GET.
 * E.g. GET /events/settledGames → `getEventsSettledGames`, POST /sync → `postSync`,
 * GET /platforms-by-pool → `getPlatformsByPool`.
 */
export function operationIdOf(method: string, url: string): string {
  const path = url === VERSION_PREFIX || url.startsWith(`${VERSION_PREFIX}/`) ? url.slice(VERSION_PREFIX.length) : url;
  const verb = method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase();
  const cap = (s: string) => (s === '' ? '' : s[0]!.toUpperCase() + s.slice(1));
  const parts = path
    .split('/')
    .filter((s) => s !== '')
    .map((seg) => (seg.startsWith(':') ? `By${cap(seg.slice(1))}` : seg.split(/[-_.]/).map(cap).join('')));
  return verb + parts.join('');
}

/**
 * Gives every route of `app` registered after this call its operation id: `config.operation`
 * (what GET /usage counts by) and, unless the route sets one, `schema.operationId` (OpenAPI).
 * Records each operation's scope (`config.scope`, default `read`) in `scopes`, by operation id,
 * for the OpenAPI document's descriptions.
 */
export function registerOperationIds(app: FastifyInstance, scopes: Map<string, Scope>): void {
  app.addHook('onRoute', (route) => {
    const method = Array.isArray(route.method) ? route.method[0]! : route.method;
    const id = operationIdOf(method, route.url);
    route.config = { ...(route.config ?? {}), operation: id };
    scopes.set(id, route.config.scope ?? 'read');
    if (route.schema && !route.schema.hide && route.schema.operationId === undefined) route.schema = { ...route.schema, operationId: id };
  });
}
