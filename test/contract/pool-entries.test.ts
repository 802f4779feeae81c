/**
 * GET /pools and GET /pool against the oracle (reading R9 in test/helpers/bruteforce.ts;
 * docs/design.md §3–§4): every field of every pool, every sortBy with and without a token filter,
 * cursor paging without repeats or gaps, windows (an hour, a day, 400 days, whole days, an
 * endTime at an exact game time), 404 and the 400s naming their parameter. Settled games name
 * their pool, pool changes already did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from '../../src/core/index.js';
import type { PoolJson, PoolsSortBy } from '../helpers/bruteforce.js';
import { expectJson } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';

let c: Contract;
beforeAll(async () => {
  c = await setupContract();
});
afterAll(async () => {
  await c?.close();
});

const SORTS: PoolsSortBy[] = ['tvl_usd', 'usd_volume', 'plays', 'pool_fees_usd', 'created_time'];

/** Every page of /pools from the first, following nextCursor; fails on a repeated pool. */
async function walk(query: Record<string, string | number | undefined>): Promise<PoolJson[]> {
  const seen: PoolJson[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await c.get('/pools', { ...query, cursor });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    seen.push(...r.body.results);
    if (r.body.nextCursor === null) break;
    expect(r.body.results.length).toBe(query.limit ?? 20);
    cursor = r.body.nextCursor;
  }
  expect(new Set(seen.map((p) => p.pool)).size, 'no pool twice').toBe(seen.length);
  return seen;
}

describe('GET /pools', () => {
  it('default: every pool by tvl_usd, one page of up to 20', async () => {
    const r = await c.get('/pools');
    expect(r.status).toBe(200);
    const expected = c.oracle.poolsAll({ sortBy: 'tvl_usd' });
    expect(expected.length).toBe(Object.keys(c.fixture.pools).length);
    expectJson(r.body, { results: expected, nextCursor: null }, '/pools');
  });

  it('the fixture exercises every field: exact sums past 2^64, a negative house PnL, an unpriced pool, a created pool', () => {
    const all = c.oracle.poolsAll({ sortBy: 'plays' });
    const bonk = all.find((p) => p.pool === c.fixture.pools.BONK)!;
    expect(BigInt(bonk.volume)).toBeGreaterThan(1n << 64n);
    expect(all.some((p) => BigInt(p.house_pnl) < 0n)).toBe(true);
    expect(all.some((p) => BigInt(p.house_pnl) > 0n)).toBe(true);
    expect(all.find((p) => p.pool === c.fixture.pools.NOPE)!.tvl_usd).toBe(0);
    expect(all.find((p) => p.pool === c.fixture.pools.USDC_NEW)!.created_time).not.toBeNull();
    expect(all.filter((p) => p.created_time === null).length).toBeGreaterThan(0);
    expect(all.every((p) => p.lp_price !== null && p.lp_price > 0)).toBe(true);
  });

  it('every sortBy, walked by cursor two at a time: the whole ordered list, no repeats or gaps', async () => {
    for (const sortBy of SORTS) {
      const seen = await walk({ sortBy, limit: 2 });
      expectJson(seen, c.oracle.poolsAll({ sortBy }), `/pools sortBy=${sortBy}`);
    }
  });

  it('token filter × every sortBy (two USDC pools, one BONK pool, an unknown token)', async () => {
    const unknownToken = c.fixture.creators[0]!;
    for (const token of [c.fixture.tokens.USDC, c.fixture.tokens.BONK, c.fixture.tokens.SOL, unknownToken]) {
      for (const sortBy of SORTS) {
        const seen = await walk({ token, sortBy, limit: 1 });
        expectJson(seen, c.oracle.poolsAll({ sortBy, token }), `/pools token=${token} sortBy=${sortBy}`);
      }
    }
    expect(c.oracle.poolsAll({ sortBy: 'plays', token: c.fixture.tokens.USDC })).toHaveLength(2);
  });

  it('limit: pages of exactly limit, the last one shorter', async () => {
    const all = c.oracle.poolsAll({ sortBy: 'usd_volume' });
    const first = await c.get('/pools', { sortBy: 'usd_volume', limit: 3 });
    expectJson(first.body.results, all.slice(0, 3), 'first page');
    const second = await c.get('/pools', { sortBy: 'usd_volume', limit: 3, cursor: first.body.nextCursor });
    expectJson(second.body.results, all.slice(3, 6), 'second page');
    const third = await c.get('/pools', { sortBy: 'usd_volume', limit: 3, cursor: second.body.nextCursor });
    expectJson(third.body, { results: all.slice(6, 9), nextCursor: null }, 'last page');
    const one = await c.get('/pools', { limit: 100 });
    expect(one.body.results).toHaveLength(all.length);
  });

  it('400s name the parameter', async () => {
    const first = await c.get('/pools', { sortBy: 'plays', limit: 2 });
    const cases: [Record<string, string | number>, string][] = [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ sortBy: 'tvl' }, 'sortBy'],
      [{ token: 'not-an-address' }, 'token'],
      [{ cursor: 'garbage' }, 'cursor'],
      [{ cursor: first.body.nextCursor, sortBy: 'usd_volume' }, 'cursor'],
    ];
    for (const [query, param] of cases) {
      const r = await c.get('/pools', query);
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.code).toBe('INVALID_PARAMETER');
      expect(r.body.error).toContain(`'${param}'`);
    }
  });
});

describe('GET /pool', () => {
  const pools = (): [string, string][] => Object.entries(c.fixture.pools);

  it('each pool, all time: the same fields as /pools', async () => {
    for (const [name, pool] of pools()) {
      const r = await c.get('/pool', { pool });
      expect(r.status, name).toBe(200);
      expectJson(r.body, c.oracle.pool({ pool }), `/pool ${name}`);
    }
  });

  it('windows: an hour, a day, 400 days, whole UTC days, across a midnight, open on either side, ISO form', async () => {
    const now = c.fixture.nowMs;
    const midnight = Math.floor(now / MS_PER_DAY) * MS_PER_DAY;
    const windows: [string, number | undefined, number | undefined][] = [
      ['last hour', now - MS_PER_HOUR, now + 1],
      ['last day', now - MS_PER_DAY, now],
      ['400 days', now - 400 * MS_PER_DAY, now + 1],
      ['whole days', midnight - 30 * MS_PER_DAY, midnight],
      ['across midnight', midnight - 5 * MS_PER_HOUR, midnight + 7 * MS_PER_HOUR],
      ['a day and a half', midnight - 36 * MS_PER_HOUR, midnight + MS_PER_HOUR / 2],
      ['from 45 days ago', now - 45 * MS_PER_DAY, undefined],
      ['until 200 days ago', undefined, now - 200 * MS_PER_DAY + 12_345],
      ['inside one day', midnight - 20 * MS_PER_DAY + MS_PER_HOUR, midnight - 20 * MS_PER_DAY + 9 * MS_PER_HOUR],
    ];
    let nonEmpty = 0;
    for (const [name, pool] of pools()) {
      for (const [label, startTime, endTime] of windows) {
        const expected = c.oracle.pool({ pool, startTime, endTime })!;
        if (expected.plays > 0) nonEmpty++;
        const r = await c.get('/pool', { pool, startTime, endTime });
        expect(r.status, `${name} ${label}`).toBe(200);
        expectJson(r.body, expected, `/pool ${name} ${label}`);
      }
    }
    expect(nonEmpty).toBeGreaterThan(30);
    // ISO 8601 bounds mean the same instants.
    const pool = c.fixture.pools.SOL_A;
    const iso = await c.get('/pool', { pool, startTime: new Date(midnight - 30 * MS_PER_DAY).toISOString(), endTime: '2026-01-15T00:00:00Z' });
    expectJson(iso.body, c.oracle.pool({ pool, startTime: midnight - 30 * MS_PER_DAY, endTime: Date.UTC(2026, 0, 15) }), 'ISO window');
  });

  it('startTime inclusive, endTime exclusive at an exact game time', async () => {
    const g = c.oracle.games.find((x) => x.pool === c.fixture.pools.USDC && x.time < c.fixture.nowMs - 10 * MS_PER_DAY)!;
    const pool = g.pool;
    const at = g.time;
    const before = await c.get('/pool', { pool, startTime: at - MS_PER_HOUR, endTime: at });
    const through = await c.get('/pool', { pool, startTime: at - MS_PER_HOUR, endTime: at + 1 });
    const from = await c.get('/pool', { pool, startTime: at, endTime: at + MS_PER_HOUR });
    expectJson(before.body, c.oracle.pool({ pool, startTime: at - MS_PER_HOUR, endTime: at }), 'endTime = game time');
    expectJson(through.body, c.oracle.pool({ pool, startTime: at - MS_PER_HOUR, endTime: at + 1 }), 'endTime = game time + 1');
    expectJson(from.body, c.oracle.pool({ pool, startTime: at, endTime: at + MS_PER_HOUR }), 'startTime = game time');
    const atThatTime = c.oracle.games.filter((x) => x.pool === pool && x.time === at).length;
    expect(through.body.plays - before.body.plays).toBe(atThatTime);
    expect(from.body.plays).toBeGreaterThanOrEqual(atThatTime);
    // Liquidity and LP figures are as of now whatever the window.
    for (const k of ['liquidity', 'lp_supply', 'lp_price', 'tvl_usd', 'last_activity', 'created_time'] as const) expect(before.body[k]).toEqual(through.body[k]);
  });

  it('a pool never seen → 404 POOL_NOT_FOUND', async () => {
    const r = await c.get('/pool', { pool: c.fixture.whale });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('POOL_NOT_FOUND');
    expect(c.oracle.pool({ pool: c.fixture.whale })).toBeUndefined();
  });

  it('400s name the parameter', async () => {
    const pool = c.fixture.pools.SOL_A;
    const cases: [Record<string, string | number | undefined>, string][] = [
      [{}, 'pool'],
      [{ pool: 'nope' }, 'pool'],
      [{ pool, startTime: 'yesterday' }, 'startTime'],
      [{ pool, endTime: '2025-02-30T00:00:00Z' }, 'endTime'],
      [{ pool, endTime: -5 }, 'endTime'],
      [{ pool, startTime: 1000, endTime: 1000 }, 'endTime'],
      [{ pool, startTime: 2000, endTime: 1000 }, 'endTime'],
    ];
    for (const [query, param] of cases) {
      const r = await c.get('/pool', query);
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.code).toBe('INVALID_PARAMETER');
      expect(r.body.error).toContain(`'${param}'`);
    }
  });
});

describe('records name their pool', () => {
  it('settled games carry `pool`; pool changes carry it too', async () => {
    const games = await c.get('/events/settledGames', { pool: c.fixture.pools.SOL_B, itemsPerPage: 50 });
    expect(games.body.results.length).toBe(50);
    for (const g of games.body.results) expect(g.pool).toBe(c.fixture.pools.SOL_B);
    const all = await c.get('/events/settledGames', { itemsPerPage: 200 });
    expectJson(all.body.results, c.oracle.settledGamesAll({ orderBy: 'time', sorting: 'DESC' }).slice(0, 200), 'settledGames with pool');
    const changes = await c.get('/events/poolChanges', { pool: c.fixture.pools.BONK });
    expect(changes.body.results.length).toBeGreaterThan(0);
    for (const ch of changes.body.results) expect(ch.pool).toBe(c.fixture.pools.BONK);
  });
});
