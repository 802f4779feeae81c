import type { FastifyInstance } from 'fastify';
import { address, addressOut, amount, chartDaysParam, count, dateString, ms, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const poolQuery = { type: 'object', required: ['pool'], properties: { pool: address('Pool') } } as const;

const ratioPoint = obj({
  time: ms('Start of the hour'),
  pool_liquidity: amount('Pool liquidity'),
  lp_supply: amount('LP token supply'),
  ratio: { type: 'number', description: 'pool_liquidity / lp_supply (LP token value in the underlying)' },
});

const totalSchema = obj({
  pool: addressOut('Pool'),
  token: { type: ['string', 'null'], description: 'Pool token mint; null when the pool was never seen' },
  volume: amount('Σ wager'),
  usd_volume: usd('Σ usd_wager'),
  plays: count('Games'),
});

const dailyPoint = obj({
  date: dateString,
  volume: amount('Σ wager that day'),
  volume_usd: usd('Σ usd_wager that day'),
  plays: count('Games that day'),
});

/** `/ratio`, `/total`, `/daily` of one pool (docs/spec.md §4, docs/design.md §4: `pool` required). */
export function registerPoolRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get<{ Querystring: { pool: string } }>('/ratio', {
    schema: {
      tags: ['pools'],
      summary: 'Hourly LP ratio of a pool over the last 30 days',
      querystring: poolQuery,
      response: { 200: obj({ data: { type: 'array', items: ratioPoint } }), ...protectedErrors },
    },
  }, async (request) => {
    const points = await store.queries.ratio({ pool: request.query.pool, now: clock.now() });
    return { data: points.map((p) => ({ ...p, pool_liquidity: p.pool_liquidity.toString(), lp_supply: p.lp_supply.toString() })) };
  });

  scope.get<{ Querystring: { pool: string } }>('/total', {
    schema: {
      tags: ['pools'],
      summary: 'All-time volume of a pool',
      querystring: poolQuery,
      response: { 200: totalSchema, ...protectedErrors },
    },
  }, async (request) => {
    const t = await store.queries.total(request.query.pool);
    return { ...t, volume: t.volume.toString() };
  });

  scope.get<{ Querystring: { pool: string; days: number } }>('/daily', {
    schema: {
      tags: ['pools'],
      summary: 'Daily volume of a pool (dense UTC series)',
      querystring: { type: 'object', required: ['pool'], properties: { pool: address('Pool'), days: chartDaysParam } },
      response: { 200: obj({ data: { type: 'array', items: dailyPoint } }), ...protectedErrors },
    },
  }, async (request) => {
    const points = await store.queries.daily({ pool: request.query.pool, days: request.query.days, now: clock.now() });
    return { data: points.map((p) => ({ ...p, volume: p.volume.toString() })) };
  });
}
