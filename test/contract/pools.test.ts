/**
 * Pool operations against the oracle: /events/poolChanges (paged by page and cursor),
 * /platforms-by-pool, /ratio, /total, /daily (docs/design.md §4 responses; readings R2, R6, R7 in
 * test/helpers/bruteforce.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOf, dayToDate } from '../../src/core/index.js';
import { expectJson } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';

let c: Contract;
beforeAll(async () => {
  c = await setupContract();
});
afterAll(async () => {
  await c?.close();
});

const pools = (): [string, string][] => Object.entries(c.fixture.pools);

describe('GET /events/poolChanges', () => {
  it('each pool, walked by page (newest first)', async () => {
    for (const [name, pool] of pools()) {
      const expected = c.oracle.poolChangesAll(pool);
      expect(expected.length, name).toBeGreaterThan(0);
      const seen: unknown[] = [];
      for (let page = 0; page * 9 < expected.length; page++) {
        const r = await c.get('/events/poolChanges', { pool, page, itemsPerPage: 9 });
        expect(r.status, name).toBe(200);
        expect(r.body.total, name).toBe(expected.length);
        seen.push(...r.body.results);
      }
      expectJson(seen, expected, `/events/poolChanges ${name}`);
    }
  });

  it('each pool, walked by cursor', async () => {
    for (const [name, pool] of pools()) {
      const expected = c.oracle.poolChangesAll(pool);
      const seen: unknown[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 100; i++) {
        const r = await c.get('/events/poolChanges', { pool, itemsPerPage: 8, cursor });
        expect(r.status, name).toBe(200);
        seen.push(...r.body.results);
        if (r.body.nextCursor === null) break;
        cursor = r.body.nextCursor;
      }
      expectJson(seen, expected, `/events/poolChanges cursor ${name}`);
    }
  });

  it('defaults to 10 items; unknown pool is empty', async () => {
    const r = await c.get('/events/poolChanges', { pool: c.fixture.pools.SOL_A });
    expectJson(r.body.results, c.oracle.poolChanges({ pool: c.fixture.pools.SOL_A, page: 0, itemsPerPage: 10 }).results, 'default page');
    const none = await c.get('/events/poolChanges', { pool: c.fixture.whale });
    expect(none.status).toBe(200);
    expectJson({ results: none.body.results, total: none.body.total }, { results: [], total: 0 }, 'unknown pool');
  });
});

describe('GET /platforms-by-pool', () => {
  it('each pool (volume desc, exact BONK volume beyond 2^64)', async () => {
    for (const [name, pool] of pools()) {
      const r = await c.get('/platforms-by-pool', { pool });
      expect(r.status, name).toBe(200);
      expectJson(r.body, { results: c.oracle.platformsByPool(pool) }, `/platforms-by-pool ${name}`);
    }
    const bonk = await c.get('/platforms-by-pool', { pool: c.fixture.pools.BONK });
    expect(BigInt(bonk.body.results[0].volume)).toBeGreaterThan(1n << 64n);
    const none = await c.get('/platforms-by-pool', { pool: c.fixture.whale });
    expectJson(none.body, { results: [] }, 'unknown pool');
  });
});

describe('GET /total', () => {
  it('each pool and an unknown one', async () => {
    for (const [name, pool] of [...pools(), ['unknown', c.fixture.whale] as [string, string]]) {
      const r = await c.get('/total', { pool });
      expect(r.status, name).toBe(200);
      expectJson(r.body, c.oracle.total(pool), `/total ${name}`);
    }
  });
});

describe('GET /daily', () => {
  it('each pool: dense days ending today, default 300', async () => {
    for (const [name, pool] of pools()) {
      for (const days of [1, 7, 45, 300]) {
        const r = await c.get('/daily', { pool, days });
        expect(r.status, name).toBe(200);
        expectJson(r.body, { data: c.oracle.daily({ pool, days }) }, `/daily ${name} days=${days}`);
      }
      const d = await c.get('/daily', { pool });
      expectJson(d.body, { data: c.oracle.daily({ pool, days: 300 }) }, `/daily ${name} default`);
    }
  });

  it('dense: consecutive dates, last one today', async () => {
    const r = await c.get('/daily', { pool: c.fixture.pools.WBTC, days: 60 });
    const dates = r.body.data.map((p: any) => p.date);
    const today = dayOf(c.fixture.nowMs);
    expect(dates).toEqual(Array.from({ length: 60 }, (_, i) => dayToDate(today - 59 + i)));
    expect(r.body.data.some((p: any) => p.plays === 0 && p.volume === '0' && p.volume_usd === 0)).toBe(true);
  });
});

describe('GET /ratio', () => {
  it('pools that existed before the window: hourly points over the last 30 days', async () => {
    for (const [name, pool] of pools()) {
      if (name === 'USDC_NEW') continue;
      const r = await c.get('/ratio', { pool });
      expect(r.status, name).toBe(200);
      expectJson(r.body, { data: c.oracle.ratio(pool) }, `/ratio ${name}`);
    }
  });

  it('a pool created inside the window starts at its first pool change (reading R6)', async () => {
    const pool = c.fixture.pools.USDC_NEW;
    const r = await c.get('/ratio', { pool });
    expect(r.status).toBe(200);
    expectJson(r.body, { data: c.oracle.ratio(pool) }, '/ratio USDC_NEW');
  });

  it('unknown pool: no points', async () => {
    const r = await c.get('/ratio', { pool: c.fixture.whale });
    expect(r.status).toBe(200);
    expectJson(r.body, { data: [] }, '/ratio unknown');
  });
});
