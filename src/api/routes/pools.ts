import type { FastifyInstance } from 'fastify';
import { keysetKinds, type KeysetPosition, type PoolEntry } from '../../store/index.js';
import { exportFormat, oneShot, sendExport } from '../export.js';
import { decodeCursor, nextCursor } from '../cursor.js';
import { apiError, invalidParameter } from '../errors.js';
import { PARAMS, queryOf } from '../params.js';
import { addressOut, amount, count, dateString, errorResponse, ms, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';
import { SERIES_PARAMS, seriesOf } from './charts.js';

const poolOnlyQuery = queryOf({ pool: PARAMS.poolRequired });
const ratioQuery = queryOf({ pool: PARAMS.poolRequired, format: PARAMS.format });

/** Export columns (docs/design.md §11), in order. */
const POOL_COLUMNS = ['pool', 'token', 'authority', 'created_time', 'liquidity', 'lp_supply', 'lp_price', 'tvl_usd', 'plays', 'volume', 'usd_volume', 'pool_fees', 'pool_fees_usd', 'house_pnl', 'house_pnl_usd', 'last_activity'] as const;
const RATIO_COLUMNS = ['time', 'pool_liquidity', 'lp_supply', 'ratio'] as const;
const DAILY_COLUMNS = ['date', 'time', 'volume', 'volume_usd', 'plays'] as const;

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
  time: ms('Start of the bucket (local midnight, local hour or Monday 00:00 in tz)'),
  volume: amount('Σ wager that day'),
  volume_usd: usd('Σ usd_wager that day'),
  plays: count('Games that day'),
});

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

const poolsQuery = queryOf({ token: PARAMS.poolsToken, sortBy: PARAMS.poolsSortBy, limit: PARAMS.poolsLimit, cursor: PARAMS.poolsCursor, format: PARAMS.format });
const poolQuery = queryOf({ pool: PARAMS.poolRequired, startTime: PARAMS.windowStart, endTime: PARAMS.windowEnd });
const dailyQuery = queryOf({ pool: PARAMS.poolRequired, ...SERIES_PARAMS });

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

  scope.get('/pools', {
    schema: {
      tags: ['pools'],
      summary: 'Every pool with its liquidity, LP price, TVL, volume, fees and house PnL (paged)',
      querystring: poolsQuery.schema,
      response: {
        200: obj({ results: { type: 'array', items: poolEntry }, nextCursor: { type: ['string', 'null'], description: 'Cursor of the next page (pass as `cursor`); null at the end' } }),
        ...protectedErrors,
      },
    },
  }, async (request, reply) => {
    const { cursor, format: _, ...q } = poolsQuery.parse(request.query);
    // Always descending: the cursor carries sortBy and DESC.
    const after = cursor === undefined ? undefined : decodeCursor(cursor, q.sortBy, 'DESC', keysetKinds('pools'));
    // plays and created_time are integer columns: a crafted fractional or huge value is refused here, not by the database.
    if (after !== undefined && (q.sortBy === 'plays' || q.sortBy === 'created_time') && !Number.isSafeInteger(after.values[0])) {
      throw invalidParameter('cursor', 'must be a nextCursor value returned by this endpoint');
    }
    const format = exportFormat(request);
    if (format !== undefined) {
      return sendExport<KeysetPosition>(reply, format, POOL_COLUMNS, async (at) => {
        const page = await store.queries.pools({ ...q, limit: 100, after: at });
        return { rows: page.results.map(poolJson), next: page.next };
      }, after);
    }
    const page = await store.queries.pools({ ...q, after });
    return { results: page.results.map(poolJson), nextCursor: nextCursor(q.sortBy, 'DESC', page.next) };
  });

  scope.get('/pool', {
    schema: {
      tags: ['pools'],
      summary: 'One pool; plays, volume, fees and house PnL optionally over a window [startTime, endTime)',
      querystring: poolQuery.schema,
      response: { 200: poolEntry, 404: errorResponse, ...protectedErrors },
    },
  }, async (request) => {
    const q = poolQuery.parse(request.query);
    if (q.startTime !== undefined && q.endTime !== undefined && q.endTime <= q.startTime) throw invalidParameter('endTime', 'must be later than startTime');
    const p = await store.queries.pool(q);
    if (p === undefined) throw apiError('POOL_NOT_FOUND', 'No event of this pool has been indexed');
    return poolJson(p);
  });

  scope.get('/ratio', {
    schema: {
      tags: ['pools'],
      summary: 'Hourly LP ratio of a pool over the last 30 days',
      querystring: ratioQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: ratioPoint } }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const points = await store.queries.ratio({ pool: ratioQuery.parse(request.query).pool, now: clock.now() });
    const data = points.map((p) => ({ ...p, pool_liquidity: p.pool_liquidity.toString(), lp_supply: p.lp_supply.toString() }));
    const format = exportFormat(request);
    return format === undefined ? { data } : sendExport(reply, format, RATIO_COLUMNS, oneShot(data));
  });

  scope.get('/total', {
    schema: {
      tags: ['pools'],
      summary: 'All-time volume of a pool',
      querystring: poolOnlyQuery.schema,
      response: { 200: totalSchema, ...protectedErrors },
    },
  }, async (request) => {
    const t = await store.queries.total(poolOnlyQuery.parse(request.query).pool);
    return { ...t, volume: t.volume.toString() };
  });

  scope.get('/daily', {
    schema: {
      tags: ['pools'],
      summary: 'Volume of a pool per bucket (dense series; days, or a window [startTime, endTime); interval hour|day|week in tz)',
      querystring: dailyQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: dailyPoint } }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const points = await store.queries.daily(seriesOf(dailyQuery.parse(request.query), clock.now()));
    const data = points.map((p) => ({ ...p, volume: p.volume.toString() }));
    const format = exportFormat(request);
    return format === undefined ? { data } : sendExport(reply, format, DAILY_COLUMNS, oneShot(data));
  });
}
