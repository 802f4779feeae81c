/**
 * Keyset cursors on every list (docs/design.md §4 cursor extension): walking /players, /platforms
 * and /tokens page by page with `nextCursor` gives exactly the oracle's full list (no repeat, no
 * gap), the last page says null; /tokens takes `limit`; a cursor of another ordering is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlayersFilter, PlayersSortBy } from '../helpers/bruteforce.js';
import { expectJson } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';

let c: Contract;
beforeAll(async () => {
  c = await setupContract();
});
afterAll(async () => {
  await c?.close();
});

/** Every page of `path` from the first, following nextCursor; the concatenated results. */
async function walk(path: string, query: Record<string, string | number | undefined>, what: string): Promise<{ rows: any[]; pages: number }> {
  const rows: any[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const r = await c.get(path, { ...query, cursor });
    expect(r.status, `${what} page ${pages}: ${JSON.stringify(r.body).slice(0, 200)}`).toBe(200);
    rows.push(...r.body.results);
    pages++;
    if (r.body.nextCursor === null) break;
    expect(typeof r.body.nextCursor).toBe('string');
    expect(r.body.results.length, `${what}: a page with a next cursor is full`).toBe(query.limit);
    cursor = r.body.nextCursor;
    expect(pages, `${what}: too many pages`).toBeLessThan(10_000);
  }
  return { rows, pages };
}

describe('GET /players with cursor', () => {
  it('every sortBy × filter: the cursor walk equals the full leaderboard', async () => {
    const { fixture } = c;
    const filters: { name: string; q: PlayersFilter }[] = [
      { name: 'none', q: {} },
      { name: 'creator', q: { creator: fixture.creators[0] } },
      { name: 'token BONK', q: { token: fixture.tokens.BONK } },
      { name: 'pool SOL_B', q: { pool: fixture.pools.SOL_B } },
      { name: 'creator+pool', q: { creator: fixture.creators[0], pool: fixture.pools.BONK } },
      { name: 'startTime', q: { startTime: fixture.nowMs - 90 * 86_400_000 + 123 } },
      { name: 'token+startTime', q: { token: fixture.tokens.SOL, startTime: fixture.nowMs - 45 * 86_400_000 + 999 } },
    ];
    const sorts: PlayersSortBy[] = ['usd_profit', 'usd_volume', 'token_profit', 'token_volume'];
    let walked = 0;
    for (const { name, q } of filters) {
      for (const sortBy of sorts) {
        if (sortBy.startsWith('token_') && q.token === undefined && q.pool === undefined) continue;
        const expected = c.oracle.leaderboard({ ...q, sortBy });
        const limit = 23;
        const { rows, pages } = await walk('/players', { ...q, sortBy, limit }, `/players ${name} ${sortBy}`);
        expectJson(rows, expected, `/players ${name} sortBy=${sortBy} by cursor`);
        expect(pages).toBe(Math.max(1, Math.ceil(expected.length / limit)));
        walked++;
      }
    }
    expect(walked).toBeGreaterThan(15);
  });

  it('the cursor wins over offset; a cursor of another sortBy is a 400 naming cursor', async () => {
    const first = await c.get('/players', { sortBy: 'usd_volume', limit: 5 });
    const second = await c.get('/players', { sortBy: 'usd_volume', limit: 5, offset: 999, cursor: first.body.nextCursor });
    expectJson(second.body.results, c.oracle.leaderboard({ sortBy: 'usd_volume' }).slice(5, 10), 'second page');
    const wrong = await c.get('/players', { sortBy: 'usd_profit', limit: 5, cursor: first.body.nextCursor });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain("'cursor'");
    // Crafted cursors of the right shape but no number as the sort value: 400, never a store error.
    for (const k of [['abc', 'x'], ['1e999', 'x'], ['NaN', 'x'], ['1; drop', 'x']]) {
      const crafted = Buffer.from(JSON.stringify({ o: 'usd_volume', s: 'DESC', k })).toString('base64url');
      for (const q of [{}, { token: c.fixture.tokens.SOL }, { startTime: c.fixture.nowMs - 86_400_000 }]) {
        const r = await c.get('/players', { sortBy: 'usd_volume', ...q, cursor: crafted });
        expect(r.status, JSON.stringify(k)).toBe(400);
        expect(r.body.error).toContain("'cursor'");
      }
    }
    const garbage = await c.get('/players', { cursor: 'bm90IGEgY3Vyc29y' });
    expect(garbage.status).toBe(400);
    expect(garbage.body.error).toContain("'cursor'");
  });
});

describe('GET /platforms with cursor', () => {
  it('each days × sortBy: the cursor walk equals the full list', async () => {
    for (const days of [1, 30, 365]) {
      for (const sortBy of ['usd_volume', 'usd_revenue'] as const) {
        const expected = c.oracle.platforms({ days, sortBy, limit: 100 });
        const { rows } = await walk('/platforms', { days, sortBy, limit: 3 }, `/platforms days=${days} ${sortBy}`);
        expectJson(rows, expected, `/platforms days=${days} sortBy=${sortBy} by cursor`);
      }
    }
  });
});

describe('GET /tokens with limit and cursor', () => {
  it('limit cuts the list; the cursor walk equals the full list, per creator too', async () => {
    const all = c.oracle.tokens();
    expect(all.length).toBeGreaterThan(2);
    const one = await c.get('/tokens', { limit: 1 });
    expectJson(one.body.results, all.slice(0, 1), '/tokens limit=1');
    expect(typeof one.body.nextCursor).toBe('string');
    const full = await c.get('/tokens', { limit: all.length });
    expect(full.body.nextCursor).toBeNull();
    for (const creator of [undefined, c.fixture.creators[0], c.fixture.whale]) {
      for (const limit of [1, 2]) {
        const { rows } = await walk('/tokens', { creator, limit }, `/tokens creator=${creator} limit=${limit}`);
        expectJson(rows, c.oracle.tokens(creator === undefined ? {} : { creator }), `/tokens creator=${creator} by cursor`);
      }
    }
  });

  it('limit out of range is a 400 naming limit', async () => {
    for (const limit of [0, 1001, 'x']) {
      const r = await c.get('/tokens', { limit });
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("'limit'");
    }
  });
});

describe('crafted cursors are a 400, never a store error', () => {
  it('non-integer or huge values for integer keys (/events/settledGames, /pools plays|created_time)', async () => {
    const enc = (o: string, s: string, k: unknown[]) => Buffer.from(JSON.stringify({ o, s, k })).toString('base64url');
    for (const k of [[1e300, 'x', 0], [1.5, 'x', 0], [1, 'x', 0.5], [-1, 'x', 1e20]]) {
      const r = await c.get('/events/settledGames', { cursor: enc('time', 'DESC', k) });
      expect(r.status, JSON.stringify(k)).toBe(400);
      expect(r.body.error).toContain("'cursor'");
    }
    for (const sortBy of ['plays', 'created_time']) {
      for (const k of [[1e300, 'x'], [1.5, 'x']]) {
        const r = await c.get('/pools', { sortBy, cursor: enc(sortBy, 'DESC', k) });
        expect(r.status, `${sortBy} ${JSON.stringify(k)}`).toBe(400);
      }
    }
    for (const k of [[1e300, 'x'], [1.5, 'x']]) {
      expect((await c.get('/platforms', { cursor: enc('usd_volume', 'DESC', k) })).status).toBe(200);
      expect((await c.get('/tokens', { cursor: enc('usd_volume', 'DESC', k) })).status).toBe(200);
    }
  });
});
