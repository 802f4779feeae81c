/**
 * GET /house-edge, GET /house-edge/wins, GET /pool/lp-price and GET /pool/returns against a
 * brute force over the raw events (test/helpers/house-oracle.ts; docs/design.md §10): every
 * groupBy × filter × window, cursor pages without repeats or gaps, and the 400s naming their
 * parameter. Runs on SQLite and PostgreSQL (one vitest project each).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from '../../src/core/index.js';
import { BLOCK_DAYS } from '../../src/store/rollups/definitions.js';
import { expectJson } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';
import { biggestWins, houseEdgeAll, lpSeries, lpStateBefore, poolReturns, type EdgeFilter, type GroupBy, type HouseWorld } from '../helpers/house-oracle.js';

let c: Contract;
let w: HouseWorld;
beforeAll(async () => {
  c = await setupContract();
  w = { events: c.fixture.events, oracle: c.oracle };
});
afterAll(async () => {
  await c?.close();
});

const GROUPS: GroupBy[] = ['creator', 'pool', 'token', 'player', 'game'];

/** Filters: none, each address filter alone, and two combined (ids of active parties). */
function filters(): [string, EdgeFilter][] {
  const f = c.fixture;
  const g = c.oracle.games;
  const user = g[Math.floor(g.length / 3)]!.user;
  return [
    ['none', {}],
    ['creator', { creator: f.creators[0]! }],
    ['pool', { pool: f.pools.SOL_A! }],
    ['token', { token: f.tokens.USDC! }],
    ['user', { user }],
    ['creator+token', { creator: f.creators[1]!, token: f.tokens.SOL! }],
  ];
}

/** Windows: all time, open-ended, whole and cut days, shorter than a day, endTime alone. */
function windows(): [string, { startTime?: number; endTime?: number }][] {
  const now = c.fixture.nowMs;
  const block = Math.floor(now / MS_PER_DAY / BLOCK_DAYS);
  return [
    ['all time', {}],
    ['last 10 days', { startTime: now - 10 * MS_PER_DAY }],
    ['cut days', { startTime: now - 40 * MS_PER_DAY + 3 * MS_PER_HOUR + 17, endTime: now - 5 * MS_PER_DAY - 7 * MS_PER_HOUR }],
    ['whole days', { startTime: Math.floor(now / MS_PER_DAY - 20) * MS_PER_DAY, endTime: Math.floor(now / MS_PER_DAY - 2) * MS_PER_DAY }],
    ['9 hours', { startTime: now - 30 * MS_PER_HOUR, endTime: now - 21 * MS_PER_HOUR }],
    ['endTime only', { endTime: now - 60 * MS_PER_DAY }],
    // Edges covering most of their 32-day blocks: each read as the whole block minus the block's
    // other days (common.ts dayAndBlockParts, BLOCK_COMPLEMENT_GAIN), 30 and 29 days against 2 and 3.
    ['block complements', { startTime: ((block - 3) * BLOCK_DAYS + 2) * MS_PER_DAY + 5 * MS_PER_HOUR + 11, endTime: ((block - 1) * BLOCK_DAYS + 29) * MS_PER_DAY + 3 * MS_PER_HOUR }],
    ['block complement, open', { startTime: ((block - 5) * BLOCK_DAYS + 1) * MS_PER_DAY + 20 * MS_PER_HOUR }],
  ];
}

async function walk(query: Record<string, string | number | undefined>): Promise<unknown[]> {
  const seen: unknown[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 500; i++) {
    const r = await c.get('/house-edge', { ...query, cursor });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    seen.push(...r.body.results);
    if (r.body.nextCursor === null) return seen;
    cursor = r.body.nextCursor;
  }
  throw new Error('too many pages');
}

describe('GET /house-edge', () => {
  it('the fixture exercises it: games won and lost, expected payouts from bet tables, jackpots, several game kinds', () => {
    const all = houseEdgeAll(w, 'game', {});
    expect(all.length).toBeGreaterThan(4);
    expect(all.some((r) => (r.jackpots as number) > 0)).toBe(true);
    expect(all.every((r) => BigInt(r.expected_payout as string) > 0n)).toBe(true);
    expect(all.some((r) => (r.edge_diff as number) > 0) && all.some((r) => (r.edge_diff as number) < 0)).toBe(true);
  });

  for (const groupBy of GROUPS) {
    it(`groupBy=${groupBy}: every filter × window equals the brute force`, async () => {
      let nonEmpty = 0;
      for (const [fname, f] of filters()) {
        for (const [wname, win] of windows()) {
          const q = { groupBy, ...f, ...win, limit: 1000 };
          const expected = houseEdgeAll(w, groupBy, { ...f, ...win });
          if (expected.length > 0) nonEmpty++;
          const r = await c.get('/house-edge', q);
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          expectJson(r.body, { groupBy, results: expected, nextCursor: null }, `/house-edge groupBy=${groupBy} ${fname} ${wname}`);
        }
      }
      expect(nonEmpty).toBeGreaterThan(20);
    });
  }

  it('a group whose only games of a cut day lie outside the window is not listed', async () => {
    // A cut day mostly inside the window is read as its day rollup minus the games left out: a
    // pool whose games that day are all before the start must net to nothing, not to a zero row.
    const games = [...c.oracle.games].sort((x, y) => x.time - y.time);
    let found = 0;
    for (const pool of Object.values(c.fixture.pools)) {
      const times = games.filter((g) => g.pool === pool).map((g) => g.time);
      for (let i = 0; i < times.length - 1 && found < 3; i++) {
        const t = times[i]!;
        const day = Math.floor(t / MS_PER_DAY);
        // Early in its day, and the pool's next game after the window's end (a whole day later, 1 h in).
        const end = (day + 2) * MS_PER_DAY + MS_PER_HOUR;
        if (t - day * MS_PER_DAY >= 8 * MS_PER_HOUR || times[i + 1]! < end) continue;
        const win = { startTime: t + 1, endTime: end };
        const expected = houseEdgeAll(w, 'pool', win);
        expect(expected.some((r) => r.key === pool)).toBe(false);
        const r = await c.get('/house-edge', { groupBy: 'pool', limit: 1000, ...win });
        expectJson(r.body, { groupBy: 'pool', results: expected, nextCursor: null }, `/house-edge pool ${pool} ${win.startTime}..${win.endTime}`);
        found++;
      }
    }
    expect(found).toBeGreaterThan(0);
  });

  it('cursor pages: every group once, in order, for each groupBy (with and without a window)', async () => {
    for (const groupBy of GROUPS) {
      for (const win of [{}, { startTime: c.fixture.nowMs - 30 * MS_PER_DAY + 5 * MS_PER_HOUR }]) {
        const expected = houseEdgeAll(w, groupBy, win);
        // By player over a window, also one group a page: each cursor then stops between the tokens of a player (the page's players are read from the cursor's player on).
        const limits = [Math.max(1, Math.floor(expected.length / 4)), ...(groupBy === 'player' && 'startTime' in win ? [1] : [])];
        for (const limit of limits) expectJson(await walk({ groupBy, limit, ...win }), expected, `/house-edge pages groupBy=${groupBy} limit=${limit}`);
      }
    }
  });

  it('defaults: groupBy=creator, 100 groups', async () => {
    const r = await c.get('/house-edge');
    expect(r.status).toBe(200);
    expectJson(r.body.results, houseEdgeAll(w, 'creator', {}).slice(0, 100), 'default');
  });

  it('400s name the parameter', async () => {
    const bad: [Record<string, string | number>, string][] = [
      [{ groupBy: 'month' }, 'groupBy'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 1001 }, 'limit'],
      [{ creator: 'xyz' }, 'creator'],
      [{ user: '0OIl' }, 'user'],
      [{ startTime: 'yesterday' }, 'startTime'],
      [{ startTime: 1000, endTime: 1000 }, 'endTime'],
      [{ endTime: '2025-02-30T00:00:00Z' }, 'endTime'],
      [{ cursor: 'not-a-cursor' }, 'cursor'],
    ];
    for (const [q, name] of bad) {
      const r = await c.get('/house-edge', q);
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body.code).toBe('INVALID_PARAMETER');
      expect(r.body.error, JSON.stringify(q)).toContain(`'${name}'`);
    }
    // A cursor of another groupBy is refused, not misread.
    const first = await c.get('/house-edge', { groupBy: 'player', limit: 1 });
    const other = await c.get('/house-edge', { groupBy: 'token', cursor: first.body.nextCursor });
    expect(other.status).toBe(400);
    expect(other.body.error).toContain("'cursor'");
  });
});

describe('GET /house-edge/wins', () => {
  it('by multiplier and by USD profit, for every filter × window', async () => {
    for (const sortBy of ['multiplier', 'usd_profit'] as const) {
      for (const [fname, f] of filters()) {
        for (const [wname, win] of windows()) {
          const r = await c.get('/house-edge/wins', { sortBy, ...f, ...win, limit: 7 });
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          expectJson(r.body, { results: biggestWins(w, sortBy, { ...f, ...win }, 7) }, `/house-edge/wins ${sortBy} ${fname} ${wname}`);
        }
      }
    }
    expect(biggestWins(w, 'multiplier', {}, 10).length).toBe(10);
  });

  it('by payout within one token (a token or pool filter), exact past 2^64', async () => {
    for (const f of [{ token: c.fixture.tokens.BONK! }, { pool: c.fixture.pools.SOL_A! }, { token: c.fixture.tokens.USDC!, creator: c.fixture.creators[0]! }]) {
      for (const [wname, win] of windows()) {
        const r = await c.get('/house-edge/wins', { sortBy: 'payout', ...f, ...win, limit: 9 });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expectJson(r.body, { results: biggestWins(w, 'payout', { ...f, ...win }, 9) }, `/house-edge/wins payout ${JSON.stringify(f)} ${wname}`);
      }
    }
    const r = await c.get('/house-edge/wins', { sortBy: 'payout', creator: c.fixture.creators[0]! });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain("'sortBy'");
  });

  it('400s name the parameter', async () => {
    for (const [q, name] of [[{ sortBy: 'payout' }, 'sortBy'], [{ limit: 101 }, 'limit'], [{ pool: 'nope' }, 'pool'], [{ startTime: 5, endTime: 4 }, 'endTime']] as const) {
      const r = await c.get('/house-edge/wins', q);
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body.error).toContain(`'${name}'`);
    }
  });
});

describe('GET /pool/lp-price', () => {
  it('hour and day series of every pool over several windows', async () => {
    const now = c.fixture.nowMs;
    const wins: [number, number][] = [
      [now - 3 * MS_PER_DAY + 1234, now - MS_PER_DAY],
      [now - 200 * MS_PER_DAY, now + MS_PER_HOUR],
      [now - 20 * MS_PER_HOUR, now - 19 * MS_PER_HOUR + 1],
    ];
    let points = 0;
    for (const [name, pool] of Object.entries(c.fixture.pools)) {
      for (const interval of ['hour', 'day'] as const) {
        for (const [startTime, endTime] of wins) {
          if (interval === 'hour' && endTime - startTime > 100 * MS_PER_DAY) continue;
          const r = await c.get('/pool/lp-price', { pool, interval, startTime, endTime });
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          const expected = lpSeries(w, pool, interval, startTime, endTime);
          points += expected.length;
          expectJson(r.body, { interval, data: expected }, `/pool/lp-price ${name} ${interval} ${startTime}..${endTime}`);
        }
      }
    }
    expect(points).toBeGreaterThan(500);
  });

  it('defaults: interval=day over the 365 days up to now', async () => {
    const pool = c.fixture.pools.SOL_A!;
    const r = await c.get('/pool/lp-price', { pool });
    expect(r.status).toBe(200);
    expectJson(r.body, { interval: 'day', data: lpSeries(w, pool, 'day', c.fixture.nowMs - 365 * MS_PER_DAY, c.fixture.nowMs) }, 'default');
  });

  it('400s name the parameter', async () => {
    const pool = c.fixture.pools.SOL_A!;
    for (const [q, name] of [
      [{}, 'pool'],
      [{ pool, interval: 'week' }, 'interval'],
      [{ pool, startTime: 0, endTime: 400 * MS_PER_DAY, interval: 'hour' }, 'startTime'],
      [{ pool, startTime: 10, endTime: 10 }, 'endTime'],
    ] as const) {
      const r = await c.get('/pool/lp-price', q);
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body.error).toContain(`'${name}'`);
    }
  });
});

describe('GET /pool/returns', () => {
  it('every pool over several windows: LP price growth, annualised, fees and house PnL', async () => {
    const now = c.fixture.nowMs;
    const wins: [number, number][] = [
      [now - 30 * MS_PER_DAY, now],
      [now - 90 * MS_PER_DAY + 5 * MS_PER_HOUR, now - 10 * MS_PER_DAY - 3],
      [now - 2 * MS_PER_DAY, now - MS_PER_DAY],
      [0, now - 300 * MS_PER_DAY],
    ];
    let grown = 0;
    for (const [name, pool] of Object.entries(c.fixture.pools)) {
      for (const [startTime, endTime] of wins) {
        const r = await c.get('/pool/returns', { pool, startTime, endTime });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        const expected = poolReturns(w, pool, startTime, endTime)!;
        if (expected.lp_price_growth !== null && expected.lp_price_growth !== 0) grown++;
        expectJson(r.body, expected, `/pool/returns ${name} ${startTime}..${endTime}`);
      }
    }
    expect(grown).toBeGreaterThan(5);
  });

  it('endTime defaults to now; an unknown pool is 404', async () => {
    const pool = c.fixture.pools.BONK!;
    const startTime = c.fixture.nowMs - 7 * MS_PER_DAY;
    const r = await c.get('/pool/returns', { pool, startTime });
    expectJson(r.body, poolReturns(w, pool, startTime, c.fixture.nowMs), 'default endTime');
    expect(lpStateBefore(w, pool, c.fixture.nowMs)).not.toBeNull();
    const none = await c.get('/pool/returns', { pool: c.fixture.whale, startTime });
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('POOL_NOT_FOUND');
  });

  it('400s name the parameter', async () => {
    const pool = c.fixture.pools.SOL_A!;
    for (const [q, name] of [
      [{ pool }, 'startTime'],
      [{ startTime: 0 }, 'pool'],
      [{ pool, startTime: 'soon' }, 'startTime'],
      [{ pool, startTime: 100, endTime: 50 }, 'endTime'],
      [{ pool, startTime: c.fixture.nowMs + MS_PER_DAY }, 'startTime'],
    ] as const) {
      const r = await c.get('/pool/returns', q);
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body.error).toContain(`'${name}'`);
    }
  });
});
