import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import { isoMs } from '../../core/index.js';
import type { Freshness } from '../../store/index.js';

/** Header: slot of the newest indexed event the answer is built from (docs/design.md §5 "Freshness headers"). */
export const INDEXED_SLOT_HEADER = 'x-indexed-slot';
/** Header: block time of that event, ISO 8601 UTC with milliseconds (docs/spec.md §2 time format). */
export const INDEXED_TIME_HEADER = 'x-indexed-time';

/** The OpenAPI description of both headers, added to every protected 2xx response. */
export const FRESHNESS_HEADERS = {
  'X-Indexed-Slot': {
    type: 'string',
    pattern: '^\\d+$',
    description: 'Slot of the newest indexed event (game or pool change, chain order) the answer is built from; absent while the store holds no event (docs/design.md §5)',
  },
  'X-Indexed-Time': {
    type: 'string',
    format: 'date-time',
    description: 'Block time of that event, ISO 8601 UTC with milliseconds; absent while the store holds no event',
  },
} as const;

/**
 * `X-Indexed-Slot` / `X-Indexed-Time` on every answer of the scope's routes (docs/design.md §5
 * "Freshness headers"): read before the route's query, so the answer holds every event up to that
 * one (and possibly a few newer ones written meanwhile). A route-level preHandler appended after
 * the response cache's lookup: a cached answer is served with the headers stored with it (the
 * ones read when it was computed, the same write generation as its ETag), never re-read. Also
 * documents both headers on each route's 2xx responses in OpenAPI. Register after the cache and
 * before the routes.
 */
export function registerFreshnessHeaders(scope: FastifyInstance, deps: { freshness: () => Promise<Freshness | null> }): void {
  const set: preHandlerHookHandler = (_request, reply, done) => {
    deps.freshness().then(
      (f) => {
        if (f !== null) reply.header(INDEXED_SLOT_HEADER, String(f.slot)).header(INDEXED_TIME_HEADER, isoMs(f.timeMs));
        done();
      },
      (err: unknown) => done(err as Error),
    );
  };
  scope.addHook('onRoute', (route) => {
    route.preHandler = [...[route.preHandler ?? []].flat(), set];
    const response = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
    if (!response) return;
    for (const code of Object.keys(response)) {
      const r = response[code];
      // A copy: response schemas are shared objects (the same entry schema nests in lists).
      if (/^2\d\d$/.test(code) && r && typeof r === 'object') response[code] = { ...(r as object), headers: FRESHNESS_HEADERS };
    }
  });
}
