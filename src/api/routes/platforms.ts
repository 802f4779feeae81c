import type { FastifyInstance } from 'fastify';
import { address, addressOut, amount, count, enumParam, intParam, ms, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const PLATFORM_SORT = ['usd_volume', 'usd_revenue'] as const;

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

interface PlatformsQs { limit: number; days: number; sortBy: (typeof PLATFORM_SORT)[number] }

/** `/platforms`, `/platforms-by-pool`, `/tokens` (docs/spec.md §4, docs/design.md §4). */
export function registerPlatformRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get<{ Querystring: PlatformsQs }>('/platforms', {
    schema: {
      tags: ['platforms'],
      summary: 'Top platforms (creators) over a rolling window',
      querystring: {
        type: 'object',
        properties: {
          limit: intParam('Number of results', 1, 100, 10),
          days: intParam('Rolling window: games with time ≥ now − days × 24 h', 1, 365, 7),
          sortBy: enumParam('Ordering (descending)', PLATFORM_SORT, 'usd_volume'),
        },
      },
      response: { 200: obj({ results: { type: 'array', items: platformEntry } }), ...protectedErrors },
    },
  }, async (request) => {
    const { limit, days, sortBy } = request.query;
    return { results: await store.queries.platforms({ limit, days, sortBy, now: clock.now() }) };
  });

  scope.get<{ Querystring: { pool: string } }>('/platforms-by-pool', {
    schema: {
      tags: ['platforms'],
      summary: 'Platforms playing against one pool, by volume',
      querystring: { type: 'object', required: ['pool'], properties: { pool: address('Pool') } },
      response: { 200: obj({ results: { type: 'array', items: platformByPoolEntry } }), ...protectedErrors },
    },
  }, async (request) => {
    const rows = await store.queries.platformsByPool(request.query.pool);
    return { results: rows.map((r) => ({ ...r, volume: r.volume.toString() })) };
  });

  scope.get<{ Querystring: { creator?: string } }>('/tokens', {
    schema: {
      tags: ['platforms'],
      summary: 'Top tokens by USD volume',
      querystring: { type: 'object', properties: { creator: address('Only games of this creator') } },
      response: { 200: obj({ results: { type: 'array', items: tokenEntry } }), ...protectedErrors },
    },
  }, async (request) => {
    const rows = await store.queries.tokens({ creator: request.query.creator });
    return { results: rows.map((r) => ({ ...r, volume: r.volume.toString() })) };
  });
}
