import type { FastifyInstance } from 'fastify';
import { keysetKinds, type KeysetPosition, type PoolChangeRecord, type SettledGame } from '../../store/index.js';
import { EXPORT_PAGE_ROWS, exportFormat, sendExport } from '../export.js';
import { decodeCursor, nextCursor as cursorOf } from '../cursor.js';
import { invalidParameter } from '../errors.js';
import { MAX_PAGE_DEPTH, PARAMS, queryOf } from '../params.js';
import { addressOut, amount, count, ms, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const nextCursor = { type: ['string', 'null'], description: 'Cursor of the next page (pass as `cursor`); null at the end' } as const;

const settledGame = obj({
  signature: { type: 'string', description: 'Transaction signature' },
  wager: amount('Wager'),
  payout: amount('Payout'),
  usd_wager: usd('wager × price'),
  usd_profit: usd('profit × price'),
  profit: amount('payout + jackpot − wager'),
  user: addressOut('Player'),
  creator: addressOut('Creator (platform)'),
  token: addressOut('Token mint'),
  pool: addressOut('Pool the game played against (additive field)'),
  jackpot: amount('Jackpot paid to the user; 0 when none'),
  multiplier: { type: 'number', description: 'multiplierBps / 10000' },
  time: ms('Block time'),
  fairness: { type: 'string', enum: ['verified', 'unverifiable', 'violation'], description: 'Fairness verdict (additive field; docs/design.md "Fairness audit")' },
  fairness_rule: { type: ['string', 'null'], description: 'The violated rule (commitment, result_index, multiplier, payout) or the unverifiable reason (first_seen, no_bet, not_audited); null when verified (additive field)' },
});

const poolChange = obj({
  signature: { type: 'string', description: 'Transaction signature' },
  action: { type: 'string', enum: ['deposit', 'withdraw'] },
  user: addressOut('Liquidity provider'),
  pool: addressOut('Pool'),
  token: addressOut('Pool token mint'),
  amount: amount('Amount deposited or withdrawn'),
  post_liquidity: amount('Pool liquidity after the change'),
  lp_supply: amount('LP token supply after the change'),
  usd_amount: usd('amount × price'),
  time: ms('Block time'),
});

const paging = { page: PARAMS.page, itemsPerPage: PARAMS.itemsPerPage, cursor: PARAMS.cursor } as const;
const settledQuery = queryOf({
  ...paging,
  onlyJackpots: PARAMS.onlyJackpots,
  creator: PARAMS.creator,
  pool: PARAMS.pool,
  token: PARAMS.token,
  user: PARAMS.user,
  orderBy: PARAMS.orderBy,
  sorting: PARAMS.sorting,
  format: PARAMS.format,
});
const poolChangesQuery = queryOf({ pool: PARAMS.poolRequired, ...paging, format: PARAMS.format });

/** Export columns of /events/settledGames (docs/design.md §11), in order. */
export const SETTLED_GAME_COLUMNS = ['signature', 'time', 'user', 'creator', 'token', 'pool', 'wager', 'payout', 'jackpot', 'profit', 'multiplier', 'usd_wager', 'usd_profit'] as const;
/** Export columns of /events/poolChanges (docs/design.md §11), in order. */
export const POOL_CHANGE_COLUMNS = ['signature', 'time', 'action', 'user', 'pool', 'token', 'amount', 'post_liquidity', 'lp_supply', 'usd_amount'] as const;

/** A settled game as JSON: token amounts as integer strings (exact). */
export function settledGameJson(g: SettledGame) {
  return { ...g, wager: g.wager.toString(), payout: g.payout.toString(), profit: g.profit.toString(), jackpot: g.jackpot.toString() };
}

/** A pool change as JSON: token amounts as integer strings (exact). */
export function poolChangeJson(c: PoolChangeRecord) {
  return { ...c, amount: c.amount.toString(), post_liquidity: c.post_liquidity.toString(), lp_supply: c.lp_supply.toString() };
}

/** `page × itemsPerPage` beyond the offset limit → 400 pointing to `cursor` (docs/design.md §4). */
function checkDepth(q: { page: number; itemsPerPage: number; cursor?: string }): void {
  if (q.cursor === undefined && q.page * q.itemsPerPage > MAX_PAGE_DEPTH) {
    throw invalidParameter('page', `page × itemsPerPage must be ≤ ${MAX_PAGE_DEPTH}; for deeper pages follow 'cursor' (the nextCursor of the previous page)`);
  }
}

/** `/events/settledGames` and `/events/poolChanges` (docs/spec.md §4, docs/design.md §4; cursor extension). */
export function registerEventRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store } = deps;

  scope.get('/events/settledGames', {
    schema: {
      tags: ['events'],
      summary: 'Settled games, paged',
      querystring: settledQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: settledGame }, total: count('Matching games'), nextCursor }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const { cursor, format: _, ...q } = settledQuery.parse(request.query);
    const after = cursor === undefined ? undefined : decodeCursor(cursor, q.orderBy, q.sorting, keysetKinds('settledGames', q.orderBy));
    const format = exportFormat(request);
    if (format !== undefined) {
      // Every matching game from the cursor (or the start), keyset page by keyset page.
      return sendExport<KeysetPosition>(reply, format, SETTLED_GAME_COLUMNS, async (at) => {
        const page = await store.queries.settledGames({ ...q, page: 0, itemsPerPage: EXPORT_PAGE_ROWS, after: at, withoutTotal: true });
        return { rows: page.results.map(settledGameJson), next: page.next };
      }, after);
    }
    checkDepth({ ...q, cursor });
    const page = await store.queries.settledGames({ ...q, after });
    return { total: page.total, nextCursor: cursorOf(q.orderBy, q.sorting, page.next), results: page.results.map(settledGameJson) };
  });

  scope.get('/events/poolChanges', {
    schema: {
      tags: ['events'],
      summary: 'Deposits and withdrawals of one pool, newest first',
      querystring: poolChangesQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: poolChange }, total: count('Matching pool changes'), nextCursor }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const { cursor, format: _, ...q } = poolChangesQuery.parse(request.query);
    // Newest first only: the cursor carries the fixed ordering time/DESC.
    const after = cursor === undefined ? undefined : decodeCursor(cursor, 'time', 'DESC', keysetKinds('poolChanges'));
    const format = exportFormat(request);
    if (format !== undefined) {
      return sendExport<KeysetPosition>(reply, format, POOL_CHANGE_COLUMNS, async (at) => {
        const page = await store.queries.poolChanges({ ...q, page: 0, itemsPerPage: EXPORT_PAGE_ROWS, after: at });
        return { rows: page.results.map(poolChangeJson), next: page.next };
      }, after);
    }
    checkDepth({ ...q, cursor });
    const page = await store.queries.poolChanges({ ...q, after });
    return { total: page.total, nextCursor: cursorOf('time', 'DESC', page.next), results: page.results.map(poolChangeJson) };
  });
}
