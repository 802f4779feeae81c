import type { FastifyInstance } from 'fastify';
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
});

const platformsQuery = queryOf({ limit: PARAMS.platformsLimit, days: PARAMS.platformsDays, sortBy: PARAMS.platformsSortBy, startTime: PARAMS.platformsStart, endTime: PARAMS.endTime });
const byPoolQuery = queryOf({ pool: PARAMS.poolRequired });
const tokensQuery = queryOf({ creator: PARAMS.creator });

/** `/platforms`, `/platforms-by-pool`, `/tokens` (docs/spec.md §4, docs/design.md §4). */
export function registerPlatformRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get('/platforms', {
    schema: {
      tags: ['platforms'],
      summary: 'Top platforms (creators) over a rolling window (days) or [startTime, endTime)',
      querystring: platformsQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: platformEntry } }), ...protectedErrors },
    },
  }, async (request) => {
    const q = platformsQuery.parse(request.query);
    checkWindow(q);
    return { results: await store.queries.platforms({ ...q, now: clock.now() }) };
  });

  scope.get('/platforms-by-pool', {
    schema: {
      tags: ['platforms'],
      summary: 'Platforms playing against one pool, by volume',
      querystring: byPoolQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: platformByPoolEntry } }), ...protectedErrors },
    },
  }, async (request) => {
    const rows = await store.queries.platformsByPool(byPoolQuery.parse(request.query).pool);
    return { results: rows.map((r) => ({ ...r, volume: r.volume.toString() })) };
  });

  scope.get('/tokens', {
    schema: {
      tags: ['platforms'],
      summary: 'Top tokens by USD volume',
      querystring: tokensQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: tokenEntry } }), ...protectedErrors },
    },
  }, async (request) => {
    const rows = await store.queries.tokens(tokensQuery.parse(request.query));
    return { results: rows.map((r) => ({ ...r, volume: r.volume.toString() })) };
  });
}
