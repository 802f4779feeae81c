import type { FastifyInstance } from 'fastify';
import { keysetKinds, type KeysetPosition } from '../../store/index.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { exportFormat, oneShot, sendExport } from '../export.js';
import { PARAMS, queryOf } from '../params.js';
import { addressOut, amount, count, ms, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';
import { checkWindow } from './players.js';

const platformEntry = obj({
  creator: addressOut('Creator (platform) address'),
  usd_volume: usd('Σ usd_wager in the window'),
  usd_revenue: usd('Σ creator fees in the window'),
  plays: count('Games in the window'),
  unique_players: count('Distinct players in the window'),
  last_activity: ms('Last game'),
});

const platformByPoolEntry = obj({
  creator: addressOut('Creator (platform) address'),
  volume: amount('Σ wager in the pool token'),
  usd_volume: usd('Σ usd_wager'),
  plays: count('Games'),
});

const tokenEntry = obj({
  token: addressOut('Token mint'),
  plays: count('Games'),
  volume: amount('Σ wager'),
  usd_volume: usd('Σ usd_wager'),
  decimals: { type: ['integer', 'null'], minimum: 0, maximum: 255, description: "The mint's decimals: volume / 10^decimals is the amount in whole tokens (docs/design.md §4); null while the mint is not known" },
});

const platformsQuery = queryOf({ limit: PARAMS.platformsLimit, days: PARAMS.platformsDays, sortBy: PARAMS.platformsSortBy, startTime: PARAMS.platformsStart, endTime: PARAMS.endTime, cursor: PARAMS.listCursor, format: PARAMS.format });
const byPoolQuery = queryOf({ pool: PARAMS.poolRequired, format: PARAMS.format });
const tokensQuery = queryOf({ creator: PARAMS.creator, limit: PARAMS.tokensLimit, cursor: PARAMS.listCursor, format: PARAMS.format });

/** Export columns (docs/design.md §11), in order. */
const PLATFORM_COLUMNS = ['creator', 'usd_volume', 'usd_revenue', 'plays', 'unique_players', 'last_activity'] as const;
const BY_POOL_COLUMNS = ['creator', 'volume', 'usd_volume', 'plays'] as const;
const TOKEN_COLUMNS = ['token', 'plays', 'volume', 'usd_volume', 'decimals'] as const;

const nextCursor = { type: ['string', 'null'], description: 'Cursor of the next page (pass as `cursor`); null at the end' } as const;

/**
 * One page of a listing the store reads with limit + 1 rows: the first `limit` rows and the
 * `nextCursor` of the last one when more follow (its key from `keyOf`; docs/design.md §4).
 */
function paged<T>(rows: T[], limit: number, o: string, keyOf: (row: T) => [number, string]): { results: T[]; nextCursor: string | null } {
  const results = rows.slice(0, limit);
  const last = results[results.length - 1];
  return { results, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(o, 'DESC', { values: keyOf(last) }) : null };
}

/** `/platforms`, `/platforms-by-pool`, `/tokens` (docs/spec.md §4, docs/design.md §4). */
export function registerPlatformRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get('/platforms', {
    schema: {
      tags: ['platforms'],
      summary: 'Top platforms (creators) over a rolling window (days) or [startTime, endTime)',
      querystring: platformsQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: platformEntry }, nextCursor }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const { cursor, format: _, ...q } = platformsQuery.parse(request.query);
    checkWindow(q);
    const after = cursor === undefined ? undefined : decodeCursor(cursor, q.sortBy, 'DESC', keysetKinds('platforms'));
    const format = exportFormat(request);
    if (format !== undefined) {
      // Every platform of the window (limit does not apply), 100 per store read; one `now` for all pages.
      const now = clock.now();
      return sendExport<KeysetPosition>(reply, format, PLATFORM_COLUMNS, async (at) => {
        const page = paged(await store.queries.platforms({ ...q, limit: 101, after: at, now }), 100, q.sortBy, (r) => [r[q.sortBy], r.creator]);
        const last = page.results[page.results.length - 1];
        return { rows: page.results, next: page.nextCursor === null || !last ? null : { values: [last[q.sortBy], last.creator] } };
      }, after);
    }
    const rows = await store.queries.platforms({ ...q, limit: q.limit + 1, after, now: clock.now() });
    return paged(rows, q.limit, q.sortBy, (r) => [r[q.sortBy], r.creator]);
  });

  scope.get('/platforms-by-pool', {
    schema: {
      tags: ['platforms'],
      summary: 'Platforms playing against one pool, by volume',
      querystring: byPoolQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: platformByPoolEntry } }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const rows = await store.queries.platformsByPool(byPoolQuery.parse(request.query).pool);
    const results = rows.map((r) => ({ ...r, volume: r.volume.toString() }));
    const format = exportFormat(request);
    if (format !== undefined) return sendExport(reply, format, BY_POOL_COLUMNS, oneShot(results));
    return { results };
  });

  scope.get('/tokens', {
    schema: {
      tags: ['platforms'],
      summary: 'Top tokens by USD volume',
      querystring: tokensQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: tokenEntry }, nextCursor }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const { cursor, format: _, ...q } = tokensQuery.parse(request.query);
    const after = cursor === undefined ? undefined : decodeCursor(cursor, 'usd_volume', 'DESC', keysetKinds('tokens'));
    const format = exportFormat(request);
    if (format !== undefined) {
      const rows = await store.queries.tokens({ creator: q.creator, after });
      return sendExport(reply, format, TOKEN_COLUMNS, oneShot(rows.map((r) => ({ ...r, volume: r.volume.toString() }))));
    }
    const rows = await store.queries.tokens({ ...q, limit: q.limit + 1, after });
    const page = paged(rows, q.limit, 'usd_volume', (r) => [r.usd_volume, r.token]);
    return { ...page, results: page.results.map((r) => ({ ...r, volume: r.volume.toString() })) };
  });
}
