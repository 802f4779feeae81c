/**
 * GET /events/settledGames against the oracle: each orderBy × sorting × filter, page paging and
 * cursor paging that neither repeat nor skip (docs/spec.md §4, §8.3; docs/design.md §4 ties by time then
 * signature, onlyJackpots flag values, cursor extension).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Direction, GameFilter, GamesOrderBy } from '../helpers/bruteforce.js';
import { expectJson } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';

let c: Contract;
beforeAll(async () => {
  c = await setupContract();
});
afterAll(async () => {
  await c?.close();
});

function filters(): { name: string; q: GameFilter }[] {
  const { fixture } = c;
  const heavyUser = fixture.users[0]!;
  return [
    { name: 'none', q: {} },
    { name: 'onlyJackpots', q: { onlyJackpots: true } },
    { name: 'creator', q: { creator: fixture.creators[2] } },
    { name: 'pool', q: { pool: fixture.pools.SOL_B } },
    { name: 'token', q: { token: fixture.tokens.NOPE } },
    { name: 'user', q: { user: heavyUser } },
    { name: 'whale', q: { user: fixture.whale } },
    { name: 'creator+token+user', q: { creator: fixture.creators[0], token: fixture.tokens.SOL, user: heavyUser } },
    { name: 'pool+onlyJackpots', q: { pool: fixture.pools.BONK, onlyJackpots: true } },
    { name: 'token+pool (disjoint)', q: { token: fixture.tokens.USDC, pool: fixture.pools.BONK } },
    { name: 'token+pool (consistent)', q: { token: fixture.tokens.SOL, pool: fixture.pools.SOL_A } },
    { name: 'creator+token+pool', q: { creator: fixture.creators[0], token: fixture.tokens.SOL, pool: fixture.pools.SOL_B } },
  ];
}
const ORDERS: GamesOrderBy[] = ['time', 'multiplier', 'usd_profit'];
const DIRS: Direction[] = ['DESC', 'ASC'];
const toQuery = (q: GameFilter): Record<string, string | undefined> => ({
  creator: q.creator, pool: q.pool, token: q.token, user: q.user, onlyJackpots: q.onlyJackpots ? 'true' : undefined,
});

describe('GET /events/settledGames', () => {
  it('every orderBy × sorting × filter, walked by page', async () => {
    let nonEmpty = 0;
    for (const { name, q } of filters()) {
      for (const orderBy of ORDERS) {
        for (const sorting of DIRS) {
          const expected = c.oracle.settledGamesAll({ ...q, orderBy, sorting });
          // Big listings: check the first and last pages and a middle one; small ones: all pages.
          const itemsPerPage = expected.length > 600 ? 200 : 23;
          const pages = Math.max(1, Math.ceil(expected.length / itemsPerPage));
          const toCheck = pages <= 30 ? [...Array(pages).keys()] : [0, 1, Math.floor(pages / 2), pages - 1, pages];
          for (const page of toCheck) {
            const r = await c.get('/events/settledGames', { ...toQuery(q), orderBy, sorting, page, itemsPerPage });
            const label = `${name} ${orderBy} ${sorting} page ${page}`;
            expect(r.status, label).toBe(200);
            expect(r.body.total, label).toBe(expected.length);
            expectJson(r.body.results, expected.slice(page * itemsPerPage, (page + 1) * itemsPerPage), label);
          }
          if (expected.length) nonEmpty++;
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(40);
  });

  it('the full listing by page equals the oracle (no repeat, no skip), each ordering', async () => {
    for (const orderBy of ORDERS) {
      for (const sorting of DIRS) {
        const expected = c.oracle.settledGamesAll({ orderBy, sorting });
        const seen: any[] = [];
        for (let page = 0; page * 200 < expected.length; page++) {
          const r = await c.get('/events/settledGames', { orderBy, sorting, page, itemsPerPage: 200 });
          seen.push(...r.body.results);
        }
        expectJson(seen, expected, `all by page ${orderBy} ${sorting}`);
      }
    }
  });

  it('cursor paging walks the same listing (no repeat, no skip), each ordering and some filters', async () => {
    const cases = [...ORDERS.flatMap((orderBy) => DIRS.map((sorting) => ({ name: 'none', q: {} as GameFilter, orderBy, sorting }))),
      ...filters().slice(1).map(({ name, q }) => ({ name, q, orderBy: 'usd_profit' as GamesOrderBy, sorting: 'ASC' as Direction }))];
    for (const { name, q, orderBy, sorting } of cases) {
      const expected = c.oracle.settledGamesAll({ ...q, orderBy, sorting });
      const seen: any[] = [];
      let cursor: string | undefined;
      const itemsPerPage = expected.length > 600 ? 200 : 17;
      for (let i = 0; i < 1000; i++) {
        const r = await c.get('/events/settledGames', { ...toQuery(q), orderBy, sorting, itemsPerPage, cursor });
        expect(r.status, `${name} ${orderBy} ${sorting}`).toBe(200);
        expect(r.body.total).toBe(expected.length);
        seen.push(...r.body.results);
        if (r.body.nextCursor === null) break;
        expect(typeof r.body.nextCursor).toBe('string');
        cursor = r.body.nextCursor;
      }
      expectJson(seen, expected, `cursor walk ${name} ${orderBy} ${sorting}`);
    }
  });

  it('defaults: page 0, 10 items, time DESC', async () => {
    const r = await c.get('/events/settledGames');
    expect(r.status).toBe(200);
    expectJson(r.body.results, c.oracle.settledGames({ orderBy: 'time', sorting: 'DESC', page: 0, itemsPerPage: 10 }).results, 'defaults');
    expect(r.body.total).toBe(c.oracle.games.length);
    // The game at exactly now is the newest.
    expect(r.body.results[0].time).toBe(c.fixture.nowMs);
  });

  it('onlyJackpots flag values (docs/design.md §4)', async () => {
    const jackpots = c.oracle.settledGamesAll({ onlyJackpots: true, orderBy: 'time', sorting: 'DESC' });
    const all = c.oracle.games.length;
    expect(jackpots.length).toBeGreaterThanOrEqual(5);
    for (const v of ['', 'true', '1', 'yes']) {
      const r = await c.get('/events/settledGames', { onlyJackpots: v, itemsPerPage: 200 });
      expect(r.body.total, `onlyJackpots=${v}`).toBe(jackpots.length);
      expectJson(r.body.results, jackpots, `onlyJackpots=${v}`);
    }
    for (const v of ['false', '0', 'no']) {
      const r = await c.get('/events/settledGames', { onlyJackpots: v });
      expect(r.body.total, `onlyJackpots=${v}`).toBe(all);
    }
  });

  it('page past the end: empty, same total', async () => {
    const r = await c.get('/events/settledGames', { user: c.fixture.whale, page: 3 });
    expectJson(r.body.results, [], 'past the end');
    expect(r.body.total).toBe(c.oracle.settledGamesAll({ user: c.fixture.whale, orderBy: 'time', sorting: 'DESC' }).length);
  });

  it('whale games carry exact u64 amounts', async () => {
    const r = await c.get('/events/settledGames', { user: c.fixture.whale, token: c.fixture.tokens.BONK, orderBy: 'multiplier', sorting: 'ASC' });
    expect(r.body.results).toHaveLength(5);
    for (const g of r.body.results) expect(BigInt(g.wager)).toBeGreaterThan(3n * 10n ** 18n);
    expectJson(r.body.results, c.oracle.settledGamesAll({ user: c.fixture.whale, token: c.fixture.tokens.BONK, orderBy: 'multiplier', sorting: 'ASC' }), 'whale');
  });
});
