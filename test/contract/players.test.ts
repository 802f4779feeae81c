/**
 * GET /players (the leaderboard) against the oracle: each sortBy × each filter combination,
 * offset paging that neither repeats nor skips, defaults (docs/spec.md §4, §8.3; docs/design.md §4: offset 0,
 * limit 10, token sums only for one token, ties by user), exact token sums beyond 2^63.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlayersFilter, PlayersSortBy } from '../helpers/bruteforce.js';
import { expectJson, withoutCursor } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';

let c: Contract;
beforeAll(async () => {
  c = await setupContract();
});
afterAll(async () => {
  await c?.close();
});

function filters(): { name: string; q: PlayersFilter }[] {
  const { fixture } = c;
  const mid = fixture.nowMs - 90 * 86_400_000;
  return [
    { name: 'none', q: {} },
    { name: 'creator', q: { creator: fixture.creators[0] } },
    { name: 'creator (small)', q: { creator: fixture.creators[6] } },
    { name: 'token BONK', q: { token: fixture.tokens.BONK } },
    { name: 'token SOL', q: { token: fixture.tokens.SOL } },
    { name: 'token NOPE (un-priced)', q: { token: fixture.tokens.NOPE } },
    { name: 'pool SOL_B', q: { pool: fixture.pools.SOL_B } },
    { name: 'pool USDC_NEW', q: { pool: fixture.pools.USDC_NEW } },
    { name: 'startTime', q: { startTime: mid } },
    { name: 'creator+token', q: { creator: fixture.creators[1], token: fixture.tokens.USDC } },
    { name: 'creator+pool+startTime', q: { creator: fixture.creators[0], pool: fixture.pools.BONK, startTime: mid } },
    { name: 'creator+pool', q: { creator: fixture.creators[0], pool: fixture.pools.BONK } },
    { name: 'creator+token+pool', q: { creator: fixture.creators[0], token: fixture.tokens.BONK, pool: fixture.pools.BONK } },
    // Unfiltered windows read 32-day blocks + days + the raw partial day: start inside the
    // newest block, a few blocks back, and before most of the history (odd ms: partial days).
    { name: 'startTime 3 days', q: { startTime: fixture.nowMs - 3 * 86_400_000 - 12_345 } },
    { name: 'startTime 200 days', q: { startTime: fixture.nowMs - 200 * 86_400_000 + 4_567 } },
    { name: 'startTime 390 days', q: { startTime: fixture.nowMs - 390 * 86_400_000 + 1 } },
    { name: 'token+startTime', q: { token: fixture.tokens.SOL, startTime: fixture.nowMs - 45 * 86_400_000 + 999 } },
    // A creator's open window: its blocks and days listed up to the newest stored day.
    { name: 'creator+startTime 3 days', q: { creator: fixture.creators[0], startTime: fixture.nowMs - 3 * 86_400_000 - 12_345 } },
    { name: 'creator+startTime 200 days', q: { creator: fixture.creators[1], startTime: fixture.nowMs - 200 * 86_400_000 + 4_567 } },
    { name: 'token+pool (consistent)', q: { token: fixture.tokens.SOL, pool: fixture.pools.SOL_A } },
    { name: 'token+pool (disjoint)', q: { token: fixture.tokens.USDC, pool: fixture.pools.SOL_A } },
  ];
}

const SORTS: PlayersSortBy[] = ['usd_profit', 'usd_volume', 'token_profit', 'token_volume'];

describe('GET /players', () => {
  it('every sortBy × filter, paged by offset without repeats or gaps', async () => {
    let checked = 0;
    for (const { name, q } of filters()) {
      for (const sortBy of SORTS) {
        const oneToken = q.token !== undefined || q.pool !== undefined;
        if (!oneToken && sortBy.startsWith('token_')) continue; // 400 by docs/design.md §4 (validation suite)
        const expected = c.oracle.leaderboard({ ...q, sortBy });
        const limit = 37;
        const seen: unknown[] = [];
        for (let offset = 0; offset < expected.length || offset === 0; offset += limit) {
          const r = await c.get('/players', { ...q, sortBy, limit, offset });
          expect(r.status, `${name} ${sortBy}`).toBe(200);
          expect(r.body.total, `${name} ${sortBy} total`).toBe(expected.length);
          seen.push(...r.body.results);
        }
        expectJson(seen, expected, `/players ${name} sortBy=${sortBy}`);
        expect(new Set(seen.map((e: any) => e.user)).size).toBe(seen.length);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('one big page equals the paged walk (limit 1000)', async () => {
    const r = await c.get('/players', { sortBy: 'usd_volume', limit: 1000 });
    expectJson(withoutCursor(r.body), { results: c.oracle.leaderboard({ sortBy: 'usd_volume' }), total: c.oracle.leaderboard({ sortBy: 'usd_volume' }).length }, 'limit 1000');
  });

  it('defaults: sortBy usd_profit, limit 10, offset 0', async () => {
    const r = await c.get('/players');
    expect(r.status).toBe(200);
    expectJson(withoutCursor(r.body), c.oracle.players({ sortBy: 'usd_profit', limit: 10, offset: 0 }), '/players defaults');
    expect(r.body.results).toHaveLength(10);
  });

  it('offset past the end of a window: empty results, same total', async () => {
    const startTime = c.fixture.nowMs - 100 * 86_400_000 + 77;
    const all = c.oracle.leaderboard({ sortBy: 'usd_volume', startTime });
    expect(all.length).toBeGreaterThan(10);
    const r = await c.get('/players', { sortBy: 'usd_volume', startTime, offset: all.length + 3 });
    expectJson(withoutCursor(r.body), { results: [], total: all.length }, 'window past the end');
  });

  it('offset past the end: empty results, same total', async () => {
    const all = c.oracle.leaderboard({ sortBy: 'usd_profit' });
    const r = await c.get('/players', { offset: all.length + 5 });
    expectJson(withoutCursor(r.body), { results: [], total: all.length }, 'past the end');
  });

  it('exact BONK sums beyond 2^63 (whale)', async () => {
    const { fixture } = c;
    const r = await c.get('/players', { token: fixture.tokens.BONK, sortBy: 'token_volume', limit: 1 });
    const top = r.body.results[0];
    expect(top.user).toBe(fixture.whale);
    expect(BigInt(top.token_volume)).toBeGreaterThan(1n << 64n);
    expect(BigInt(top.token_profit)).toBeLessThan(-(1n << 63n));
    const exact = c.oracle.games.filter((g) => g.user === fixture.whale && g.token === fixture.tokens.BONK);
    expect(top.token_volume).toBe(exact.reduce((a, g) => a + g.wager, 0n).toString());
    expect(top.token_profit).toBe(exact.reduce((a, g) => a + g.profit, 0n).toString());
    const worst = await c.get('/players', { token: fixture.tokens.BONK, sortBy: 'token_profit', offset: r.body.total - 1 });
    expect(worst.body.results[0].user).toBe(fixture.whale);
  });

  it('token sums are null across tokens, strings for one token', async () => {
    const multi = await c.get('/players', { creator: c.fixture.creators[0] });
    expect(multi.body.results.every((e: any) => e.token_volume === null && e.token_profit === null)).toBe(true);
    const one = await c.get('/players', { pool: c.fixture.pools.SOL_A });
    expect(one.body.results.every((e: any) => typeof e.token_volume === 'string' && typeof e.token_profit === 'string')).toBe(true);
  });
});
