import type { FastifyInstance } from 'fastify';
import type { PoolEntry, PoolSortBy } from '../../store/index.js';
import { apiError, invalidParameter } from '../errors.js';
import { parseTime } from '../params.js';
import {
  address, addressOut, amount, chartDaysParam, count, cursorParam, dateString, enumParam, errorResponse, intParam, ms, obj, protectedErrors, START_TIME_PATTERN, usd,
} from '../schemas.js';
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

const POOL_SORT = ['tvl_usd', 'usd_volume', 'plays', 'pool_fees_usd', 'created_time'] as const satisfies readonly PoolSortBy[];

/** A pool's figures (docs/design.md §3 "Pools"): liquidity and LP as of now; game figures all time or in the window. */
const poolEntry = obj({
  pool: addressOut('Pool'),
  token: addressOut('Pool token mint'),
  authority: { type: ['string', 'null'], description: 'Pool authority (the System program for public pools); null when its PoolCreated is not indexed' },
  created_time: { type: ['integer', 'null'], description: 'Block time of its PoolCreated (Unix ms); null when not indexed' },
  liquidity: amount('Latest pool liquidity: the latest GameSettled.poolLiquidity or PoolChange.postLiquidity; 0 before any'),
  lp_supply: { type: ['string', 'null'], pattern: '^\\d+$', description: 'Latest LP token supply (the latest PoolChange.lpSupply; integer string); null before any pool change' },
  lp_price: { type: ['number', 'null'], description: 'liquidity / lp_supply: one LP token\'s value in the underlying (1 when lp_supply is 0); null when lp_supply is' },
  tvl_usd: usd('liquidity × the token\'s latest known USD price; 0 without one'),
  plays: count('Games'),
  volume: amount('Σ wager'),
  usd_volume: usd('Σ wager × price at each game'),
  pool_fees: amount('Σ poolFee (the LPs\' fee)'),
  pool_fees_usd: usd('Σ poolFee × price at each game'),
  house_pnl: amount('Σ wager − Σ payout: the pool\'s realized result from games, signed; jackpots (paid from the jackpot fund) and fees excluded'),
  house_pnl_usd: usd('Σ (wager − payout) × price at each game'),
  last_activity: ms('Time of the pool\'s latest event: game, pool change or creation'),
});

const timeParam = (description: string) => ({ type: 'string', pattern: START_TIME_PATTERN, description: `${description}: Unix time in milliseconds or an ISO 8601 date-time with a zone` }) as const;

interface PoolsQs { token?: string; sortBy: PoolSortBy; limit: number; cursor?: string }
interface PoolQs { pool: string; startTime?: string; endTime?: string }

function poolJson(p: PoolEntry) {
  return {
    ...p,
    liquidity: p.liquidity.toString(),
    lp_supply: p.lp_supply === null ? null : p.lp_supply.toString(),
    volume: p.volume.toString(),
    pool_fees: p.pool_fees.toString(),
    house_pnl: p.house_pnl.toString(),
  };
}

/** `/pools`, `/pool`, and `/ratio`, `/total`, `/daily` of one pool (docs/spec.md §4, docs/design.md §4: `pool` required). */
export function registerPoolRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get<{ Querystring: PoolsQs }>('/pools', {
    schema: {
      tags: ['pools'],
      summary: 'Every pool with its liquidity, LP price, TVL, volume, fees and house PnL (paged)',
      querystring: {
        type: 'object',
        properties: {
          token: address('Only pools of this token mint'),
          sortBy: enumParam('Ordering, descending (ties: pool address ascending); created_time puts pools without a known creation last', POOL_SORT, 'tvl_usd'),
          limit: intParam('Pools per page', 1, 100, 20),
          cursor: { ...cursorParam, description: 'Opaque keyset cursor: the `nextCursor` of the previous page, with the same sortBy' },
        },
      },
      response: {
        200: obj({ results: { type: 'array', items: poolEntry }, nextCursor: { type: ['string', 'null'], description: 'Cursor of the next page (pass as `cursor`); null at the end' } }),
        ...protectedErrors,
      },
    },
  }, async (request) => {
    const q = request.query;
    const page = await store.queries.pools({ token: q.token, sortBy: q.sortBy, limit: q.limit, cursor: q.cursor });
    return { results: page.results.map(poolJson), nextCursor: page.nextCursor };
  });

  scope.get<{ Querystring: PoolQs }>('/pool', {
    schema: {
      tags: ['pools'],
      summary: 'One pool; plays, volume, fees and house PnL optionally over a window [startTime, endTime)',
      querystring: {
        type: 'object',
        required: ['pool'],
        properties: {
          pool: address('Pool'),
          startTime: timeParam('Window start, inclusive (game figures only)'),
          endTime: timeParam('Window end, exclusive (game figures only)'),
        },
      },
      response: { 200: poolEntry, 404: errorResponse, ...protectedErrors },
    },
  }, async (request) => {
    const q = request.query;
    const startTime = parseTime('startTime', q.startTime);
    const endTime = parseTime('endTime', q.endTime);
    if (startTime !== undefined && endTime !== undefined && endTime <= startTime) throw invalidParameter('endTime', 'must be later than startTime');
    const p = await store.queries.pool({ pool: q.pool, startTime, endTime });
    if (p === undefined) throw apiError('POOL_NOT_FOUND', 'No event of this pool has been indexed');
    return poolJson(p);
  });

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
