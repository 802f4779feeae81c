import type { FastifyInstance } from 'fastify';
import type { SettledGamesOrderBy, SortDirection } from '../../store/index.js';
import { invalidParameter } from '../errors.js';
import { FLAG_VALUES, parseFlag } from '../params.js';
import { MAX_PAGE_DEPTH, address, addressOut, amount, count, enumParam, ms, obj, pagingParams, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const ORDER_BY = ['time', 'multiplier', 'usd_profit'] as const satisfies readonly SettledGamesOrderBy[];
const SORTING = ['ASC', 'DESC'] as const satisfies readonly SortDirection[];

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

interface PagingQs { page: number; itemsPerPage: number; cursor?: string }
interface SettledQs extends PagingQs {
  onlyJackpots?: string;
  creator?: string;
  pool?: string;
  token?: string;
  user?: string;
  orderBy: SettledGamesOrderBy;
  sorting: SortDirection;
}
interface PoolChangesQs extends PagingQs { pool: string }

/** `page × itemsPerPage` beyond the offset limit → 400 pointing to `cursor` (docs/design.md §4). */
function checkDepth(q: PagingQs): void {
  if (q.cursor === undefined && q.page * q.itemsPerPage > MAX_PAGE_DEPTH) {
    throw invalidParameter('page', `page × itemsPerPage must be ≤ ${MAX_PAGE_DEPTH}; for deeper pages follow 'cursor' (the nextCursor of the previous page)`);
  }
}

/** `/events/settledGames` and `/events/poolChanges` (docs/spec.md §4, docs/design.md §4; cursor extension). */
export function registerEventRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store } = deps;

  scope.get<{ Querystring: SettledQs }>('/events/settledGames', {
    schema: {
      tags: ['events'],
      summary: 'Settled games, paged',
      querystring: {
        type: 'object',
        properties: {
          ...pagingParams,
          onlyJackpots: enumParam('Only jackpot wins (jackpot > 0). Present with no value, true, 1, yes → on; false, 0, no → off', FLAG_VALUES),
          creator: address('Only games of this creator'),
          pool: address('Only games of this pool'),
          token: address('Only games in this token mint'),
          user: address('Only games of this player'),
          orderBy: enumParam('Ordering key (ties: time, then signature)', ORDER_BY, 'time'),
          sorting: enumParam('Direction', SORTING, 'DESC'),
        },
      },
      response: { 200: obj({ results: { type: 'array', items: settledGame }, total: count('Matching games'), nextCursor }), ...protectedErrors },
    },
  }, async (request) => {
    const q = request.query;
    checkDepth(q);
    const page = await store.queries.settledGames({
      page: q.page,
      itemsPerPage: q.itemsPerPage,
      cursor: q.cursor,
      onlyJackpots: parseFlag(q.onlyJackpots),
      creator: q.creator,
      pool: q.pool,
      token: q.token,
      user: q.user,
      orderBy: q.orderBy,
      sorting: q.sorting,
    });
    return {
      total: page.total,
      nextCursor: page.nextCursor,
      results: page.results.map((g) => ({
        ...g,
        wager: g.wager.toString(),
        payout: g.payout.toString(),
        profit: g.profit.toString(),
        jackpot: g.jackpot.toString(),
      })),
    };
  });

  scope.get<{ Querystring: PoolChangesQs }>('/events/poolChanges', {
    schema: {
      tags: ['events'],
      summary: 'Deposits and withdrawals of one pool, newest first',
      querystring: { type: 'object', required: ['pool'], properties: { pool: address('Pool'), ...pagingParams } },
      response: { 200: obj({ results: { type: 'array', items: poolChange }, total: count('Matching pool changes'), nextCursor }), ...protectedErrors },
    },
  }, async (request) => {
    const q = request.query;
    checkDepth(q);
    const page = await store.queries.poolChanges({ pool: q.pool, page: q.page, itemsPerPage: q.itemsPerPage, cursor: q.cursor });
    return {
      total: page.total,
      nextCursor: page.nextCursor,
      results: page.results.map((c) => ({
        ...c,
        amount: c.amount.toString(),
        post_liquidity: c.post_liquidity.toString(),
        lp_supply: c.lp_supply.toString(),
      })),
    };
  });
}
