/**
 * Answers do not depend on when prices arrive: games stored un-priced and re-priced later by
 * `putPrices` (docs/design.md §6) give the same USD figures as games priced at write time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectJson, withoutCursor } from '../helpers/compare.js';
import { setupContract, type Contract, type LoadOrder } from '../helpers/contract-world.js';

const worlds: Partial<Record<LoadOrder, Contract>> = {};
beforeAll(async () => {
  worlds['prices-last'] = await setupContract('prices-last');
  worlds.split = await setupContract('split');
});
afterAll(async () => {
  for (const w of Object.values(worlds)) await w?.close();
});

describe.each(['prices-last', 'split'] as const)('prices loaded %s', (order) => {
  it('USD aggregates, listings and series equal the oracle', async () => {
    const c = worlds[order]!;
    const { oracle, fixture } = c;
    expectJson((await c.get('/stats')).body, oracle.stats(), 'stats');
    expectJson((await c.get('/stats', { creator: fixture.creators[3] })).body, oracle.stats({ creator: fixture.creators[3] }), 'stats creator');
    expectJson(withoutCursor((await c.get('/tokens')).body), { results: oracle.tokens() }, 'tokens');
    expectJson(withoutCursor((await c.get('/players', { limit: 1000 })).body), oracle.players({ sortBy: 'usd_profit', limit: 1000, offset: 0 }), 'players');
    expectJson((await c.get('/player', { user: fixture.users[0]! })).body, oracle.player({ user: fixture.users[0]! }), 'player');
    expectJson(withoutCursor((await c.get('/platforms', { days: 365, limit: 100, sortBy: 'usd_revenue' })).body), { results: oracle.platforms({ days: 365, limit: 100, sortBy: 'usd_revenue' }) }, 'platforms');
    expectJson((await c.get('/chart/dao-usd')).body, { data: oracle.chartDaoUsd({ days: 300 }) }, 'dao chart');
    expectJson((await c.get('/daily', { pool: fixture.pools.SOL_A })).body, { data: oracle.daily({ pool: fixture.pools.SOL_A, days: 300 }) }, 'daily');
    expectJson((await c.get('/total', { pool: fixture.pools.SOL_B })).body, oracle.total(fixture.pools.SOL_B), 'total');
    expectJson((await c.get('/platforms-by-pool', { pool: fixture.pools.USDC })).body, { results: oracle.platformsByPool(fixture.pools.USDC) }, 'platforms-by-pool');
    const games = await c.get('/events/settledGames', { orderBy: 'usd_profit', sorting: 'DESC', itemsPerPage: 200, token: fixture.tokens.SOL });
    expect(games.status).toBe(200);
    expectJson(games.body.results, oracle.settledGamesAll({ orderBy: 'usd_profit', sorting: 'DESC', token: fixture.tokens.SOL }).slice(0, 200), 'settled games by usd_profit');
    // Pools: TVL at the latest price (which arrives last), USD fees and PnL re-priced, windows over re-priced days.
    for (const sortBy of ['tvl_usd', 'pool_fees_usd'] as const) {
      expectJson((await c.get('/pools', { sortBy })).body, { results: oracle.poolsAll({ sortBy }), nextCursor: null }, `pools ${sortBy}`);
    }
    const window = { startTime: fixture.nowMs - 100 * 86_400_000 + 4_321, endTime: fixture.nowMs - 86_400_000 };
    expectJson((await c.get('/pool', { pool: fixture.pools.SOL_A, ...window })).body, oracle.pool({ pool: fixture.pools.SOL_A, ...window }), 'pool window');
    const counts = await c.store.queries.counts();
    expect(counts.unpricedGames).toBe(oracle.counts().unpricedGames);
  });
});
