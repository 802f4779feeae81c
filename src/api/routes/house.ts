import type { FastifyInstance } from 'fastify';
import { houseEdgeKinds, type BiggestWin, type HouseEdgeRow, type LpState } from '../../store/index.js';
import { decodeCursor, nextCursor } from '../cursor.js';
import { EXPORT_PAGE_ROWS, exportFormat, oneShot, sendExport } from '../export.js';
import { apiError, invalidParameter } from '../errors.js';
import { PARAMS, queryOf } from '../params.js';
import { addressOut, amount, count, errorResponse, ms, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

/**
 * LP returns and house edge (docs/design.md §10): GET /house-edge, GET /house-edge/wins,
 * GET /pool/lp-price and GET /pool/returns.
 */

/** Most points one /pool/lp-price answer holds (a bounded read: docs/design.md §7). */
export const MAX_LP_POINTS = 5000;
/** Default span of /pool/lp-price without startTime: 30 days of hours, 365 days of days. */
const DEFAULT_LP_SPAN = { hour: 30, day: 365 } as const;
/** A year for the annualised LP return: 365 days in ms (docs/design.md §10). */
const YEAR_MS = 365 * 86_400_000;

const ratio = (description: string) => ({ type: ['number', 'null'], description: `${description}; null when its denominator is 0` }) as const;

const houseEdgeQuery = queryOf({
  groupBy: PARAMS.houseGroupBy,
  creator: PARAMS.creator,
  pool: PARAMS.pool,
  token: PARAMS.token,
  user: PARAMS.user,
  startTime: PARAMS.windowStart,
  endTime: PARAMS.windowEnd,
  limit: PARAMS.houseLimit,
  cursor: PARAMS.houseCursor,
  format: PARAMS.format,
});
const winsQuery = queryOf({
  sortBy: PARAMS.winsSortBy,
  creator: PARAMS.creator,
  pool: PARAMS.pool,
  token: PARAMS.token,
  user: PARAMS.user,
  startTime: PARAMS.windowStart,
  endTime: PARAMS.windowEnd,
  limit: PARAMS.winsLimit,
  format: PARAMS.format,
});
const lpPriceQuery = queryOf({ pool: PARAMS.poolRequired, interval: PARAMS.lpInterval, startTime: PARAMS.windowStart, endTime: PARAMS.windowEnd, format: PARAMS.format });
const returnsQuery = queryOf({ pool: PARAMS.poolRequired, startTime: PARAMS.returnsStart, endTime: PARAMS.windowEnd });

const houseEdgeRow = obj({
  key: addressOut('The group: creator, pool, token or player address, or the game kind ("unknown" when the metadata names none)'),
  token: addressOut('Token mint the amounts are in (a row never mixes tokens)'),
  plays: count('Games'),
  wins: count('Games with payout > wager (jackpot aside)'),
  win_rate: ratio('wins / plays'),
  wager: amount('Σ wager'),
  payout: amount('Σ payout (jackpots aside)'),
  expected_payout: amount('Σ ⌊wager × mean(bet) / 10000⌋: what the games\' own odds pay on average'),
  rtp: ratio('Realized return to player: Σ payout / Σ wager'),
  expected_rtp: ratio('Expected return to player: Σ expected_payout / Σ wager'),
  edge: ratio('Realized house edge: 1 − rtp'),
  expected_edge: ratio('Expected house edge: 1 − expected_rtp'),
  edge_diff: ratio('Realized minus expected edge: expected_rtp − rtp (positive: the house did better than its odds)'),
  jackpots: count('Games with a jackpot payout'),
  jackpot: amount('Σ jackpot paid to players (from the jackpot fund)'),
  usd_wager: usd('Σ wager × price at each game'),
  usd_profit: usd('Σ players\' profit (payout + jackpot − wager) × price at each game'),
});

const winRow = obj({
  signature: addressOut('Transaction signature of the settle'),
  time: ms('Block time'),
  user: addressOut('Player'),
  creator: addressOut('Platform (creator)'),
  token: addressOut('Token mint'),
  pool: addressOut('Pool'),
  game: { type: 'string', description: 'Game kind from the metadata ("unknown" when it names none)' },
  wager: amount('Wager'),
  payout: amount('Payout'),
  jackpot: amount('Jackpot paid to the player'),
  multiplier: { type: 'number', description: 'bet[resultIndex] / 10000 (GameSettled.multiplierBps / 10000)' },
  usd_wager: usd('wager × price at the game'),
  usd_profit: usd('(payout + jackpot − wager) × price at the game'),
});

const lpState = {
  liquidity: amount('Pool liquidity (the latest GameSettled.poolLiquidity or PoolChange.postLiquidity)'),
  lp_supply: amount('LP token supply (the latest PoolChange.lpSupply)'),
  lp_price: { type: 'number', description: 'liquidity / lp_supply: one LP token\'s value in the underlying (1 when lp_supply is 0)' },
} as const;
const lpPoint = obj({ time: ms('Start of the bucket; the state is the one after every event before the bucket\'s end'), ...lpState });
const nullableState = (description: string) => ({ ...obj(lpState), type: ['object', 'null'], description }) as const;

const returnsSchema = obj({
  pool: addressOut('Pool'),
  token: addressOut('Pool token mint'),
  startTime: ms('Window start (inclusive)'),
  endTime: ms('Window end (exclusive)'),
  start: nullableState('LP state after the pool\'s last event before startTime; null before its first pool change'),
  end: nullableState('LP state after the pool\'s last event before endTime; null before its first pool change'),
  lp_price_growth: ratio('end.lp_price / start.lp_price − 1: the LP\'s realized return over the window (null without both states)'),
  lp_price_growth_annualized: ratio('(1 + lp_price_growth)^(365 days / window) − 1, compounded (null without both states, or when not finite)'),
  plays: count('Games in the window'),
  volume: amount('Σ wager in the window'),
  usd_volume: usd('Σ wager × price at each game'),
  pool_fees: amount('Σ poolFee in the window: the LPs\' fee'),
  pool_fees_usd: usd('Σ poolFee × price at each game'),
  house_pnl: amount('Σ wager − Σ payout in the window (signed; jackpots and fees aside)'),
  house_pnl_usd: usd('Σ (wager − payout) × price at each game'),
});

/** Export columns of /house-edge (docs/design.md §11), in order: the JSON row's fields. */
export const HOUSE_EDGE_COLUMNS = ['key', 'token', 'plays', 'wins', 'win_rate', 'wager', 'payout', 'expected_payout', 'rtp', 'expected_rtp', 'edge', 'expected_edge', 'edge_diff', 'jackpots', 'jackpot', 'usd_wager', 'usd_profit'] as const;
/** Export columns of /house-edge/wins (docs/design.md §11), in order: the JSON row's fields. */
export const WIN_COLUMNS = ['signature', 'time', 'user', 'creator', 'token', 'pool', 'game', 'wager', 'payout', 'jackpot', 'multiplier', 'usd_wager', 'usd_profit'] as const;
/** Export columns of /pool/lp-price (docs/design.md §11), in order: the JSON point's fields. */
export const LP_PRICE_COLUMNS = ['time', 'liquidity', 'lp_supply', 'lp_price'] as const;

const div = (a: bigint | number, b: bigint | number): number | null => (Number(b) === 0 ? null : Number(a) / Number(b));

function edgeJson(r: HouseEdgeRow) {
  const rtp = div(r.payout, r.wager);
  const expectedRtp = div(r.expected_payout, r.wager);
  return {
    key: r.key,
    token: r.token,
    plays: r.plays,
    wins: r.wins,
    win_rate: div(r.wins, r.plays),
    wager: r.wager.toString(),
    payout: r.payout.toString(),
    expected_payout: r.expected_payout.toString(),
    rtp,
    expected_rtp: expectedRtp,
    edge: rtp === null ? null : 1 - rtp,
    expected_edge: expectedRtp === null ? null : 1 - expectedRtp,
    edge_diff: rtp === null || expectedRtp === null ? null : expectedRtp - rtp,
    jackpots: r.jackpots,
    jackpot: r.jackpot.toString(),
    usd_wager: r.usd_wager,
    usd_profit: r.usd_profit,
  };
}

function winJson(w: BiggestWin) {
  return { ...w, wager: w.wager.toString(), payout: w.payout.toString(), jackpot: w.jackpot.toString() };
}

const stateJson = (s: LpState) => ({ liquidity: s.liquidity.toString(), lp_supply: s.lp_supply.toString(), lp_price: s.lp_price });

/** endTime must follow startTime (docs/design.md §4: 400 naming endTime). */
function checkWindow(startTime: number | undefined, endTime: number | undefined): void {
  if (startTime !== undefined && endTime !== undefined && endTime <= startTime) throw invalidParameter('endTime', 'must be later than startTime');
}

/** Registers the LP-return and house-edge operations (docs/design.md §10) on the protected scope. */
export function registerHouseRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get('/house-edge', {
    schema: {
      tags: ['house'],
      summary: 'Realized vs expected return to player and house edge, win rate and jackpots, grouped by creator, pool, token, player or game kind, over any window [startTime, endTime) (paged)',
      querystring: houseEdgeQuery.schema,
      response: {
        200: obj({ groupBy: { type: 'string' }, results: { type: 'array', items: houseEdgeRow }, nextCursor: { type: ['string', 'null'], description: 'Cursor of the next page (pass as `cursor`, same groupBy); null at the end' } }),
        ...protectedErrors,
      },
    },
  }, async (request, reply) => {
    const { cursor, format: _, ...q } = houseEdgeQuery.parse(request.query);
    checkWindow(q.startTime, q.endTime);
    const after = cursor === undefined ? undefined : decodeCursor(cursor, q.groupBy, 'ASC', houseEdgeKinds(q.groupBy));
    const format = exportFormat(request);
    if (format !== undefined) {
      // Every group, through the same keyset as the pages (docs/design.md §11); `limit` does not apply.
      return sendExport(reply, format, HOUSE_EDGE_COLUMNS, async (at) => {
        const page = await store.queries.houseEdge({ ...q, limit: EXPORT_PAGE_ROWS, after: at });
        return { rows: page.results.map(edgeJson), next: page.next };
      }, after);
    }
    const page = await store.queries.houseEdge({ ...q, after });
    return { groupBy: q.groupBy, results: page.results.map(edgeJson), nextCursor: nextCursor(q.groupBy, 'ASC', page.next) };
  });

  scope.get('/house-edge/wins', {
    schema: {
      tags: ['house'],
      summary: 'Biggest wins (payout > wager) by multiplier, USD profit or payout (one token), with their signatures, over any window [startTime, endTime)',
      querystring: winsQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: winRow } }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const { format: _, ...q } = winsQuery.parse(request.query);
    checkWindow(q.startTime, q.endTime);
    // Payouts of different tokens do not compare (docs/design.md §10), as /players token_* sorts.
    if (q.sortBy === 'payout' && q.token === undefined && q.pool === undefined) throw invalidParameter('sortBy', 'payout needs token or pool (amounts of one token)');
    const results = (await store.queries.biggestWins(q)).map(winJson);
    // A ranking, not a paged list: the export holds the same top `limit` rows (docs/design.md §11).
    const format = exportFormat(request);
    return format === undefined ? { results } : sendExport(reply, format, WIN_COLUMNS, oneShot(results));
  });

  scope.get('/pool/lp-price', {
    schema: {
      tags: ['pools'],
      summary: `LP price series of a pool (liquidity / LP supply) per UTC hour or day over [startTime, endTime); at most ${MAX_LP_POINTS} points`,
      querystring: lpPriceQuery.schema,
      response: { 200: obj({ interval: { type: 'string' }, data: { type: 'array', items: lpPoint } }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const { format: _, ...q } = lpPriceQuery.parse(request.query);
    checkWindow(q.startTime, q.endTime);
    const step = q.interval === 'hour' ? 3_600_000 : 86_400_000;
    const endTime = q.endTime ?? clock.now();
    const startTime = q.startTime ?? Math.max(0, endTime - DEFAULT_LP_SPAN[q.interval] * 86_400_000);
    if (Math.ceil(endTime / step) - Math.floor(startTime / step) > MAX_LP_POINTS) throw invalidParameter('startTime', `must leave at most ${MAX_LP_POINTS} ${q.interval}s before endTime`);
    const points = await store.queries.lpPrice({ pool: q.pool, interval: q.interval, startTime, endTime });
    const data = points.map((p) => ({ time: p.time, ...stateJson(p) }));
    const format = exportFormat(request);
    return format === undefined ? { interval: q.interval, data } : sendExport(reply, format, LP_PRICE_COLUMNS, oneShot(data));
  });

  scope.get('/pool/returns', {
    schema: {
      tags: ['pools'],
      summary: 'An LP\'s realized return over [startTime, endTime): LP price growth and its annualised rate, next to the pool fees earned and the house PnL',
      querystring: returnsQuery.schema,
      response: { 200: returnsSchema, 404: errorResponse, ...protectedErrors },
    },
  }, async (request) => {
    const q = returnsQuery.parse(request.query);
    checkWindow(q.startTime, q.endTime);
    const endTime = q.endTime ?? clock.now();
    if (endTime <= q.startTime) throw invalidParameter('startTime', 'must be earlier than endTime (now when endTime is absent)');
    const r = await store.queries.poolReturns({ pool: q.pool, startTime: q.startTime, endTime });
    if (r === undefined) throw apiError('POOL_NOT_FOUND', 'No event of this pool has been indexed');
    const growth = r.start === null || r.end === null ? null : r.end.lp_price / r.start.lp_price - 1;
    const annual = growth === null ? null : Math.pow(1 + growth, YEAR_MS / (endTime - q.startTime)) - 1;
    return {
      pool: r.pool,
      token: r.token,
      startTime: q.startTime,
      endTime,
      start: r.start === null ? null : stateJson(r.start),
      end: r.end === null ? null : stateJson(r.end),
      lp_price_growth: growth !== null && Number.isFinite(growth) ? growth : null,
      lp_price_growth_annualized: annual !== null && Number.isFinite(annual) ? annual : null,
      plays: r.plays,
      volume: r.volume.toString(),
      usd_volume: r.usd_volume,
      pool_fees: r.pool_fees.toString(),
      pool_fees_usd: r.pool_fees_usd,
      house_pnl: r.house_pnl.toString(),
      house_pnl_usd: r.house_pnl_usd,
    };
  });
}
