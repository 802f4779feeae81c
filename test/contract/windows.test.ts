/**
 * Windows everywhere (docs/design.md §4 "Windows"), against the brute-force oracle: `endTime`
 * (exclusive) with `startTime` (inclusive) on /stats, /players and /platforms for every filter;
 * the series (/chart/*, /daily) over `days` or [startTime, endTime), `interval=hour|day|week`, in
 * `tz`, including the days of daylight-saving changes in America/New_York and Europe/Berlin with
 * games placed right before, at and after the local midnights; the cap on points; the 400s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from '../../src/core/index.js';
import type { PlayersSortBy, SeriesQ } from '../helpers/bruteforce.js';
import { expectJson, withoutCursor } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';

/**
 * Local midnights around the 2025 daylight-saving changes, as the zones' rules define them (tz
 * database): New York switches at 02:00 local on 2025-03-09 (EST → EDT) and 2025-11-02 (EDT → EST);
 * Berlin at 01:00 UTC on 2025-03-30 (CET → CEST) and 2025-10-26 (CEST → CET).
 */
const MIDNIGHTS = {
  'America/New_York': {
    '2025-03-09': Date.UTC(2025, 2, 9, 5), // 00:00 EST
    '2025-03-10': Date.UTC(2025, 2, 10, 4), // 00:00 EDT: 2025-03-09 has 23 hours
    '2025-11-02': Date.UTC(2025, 10, 2, 4), // 00:00 EDT
    '2025-11-03': Date.UTC(2025, 10, 3, 5), // 00:00 EST: 2025-11-02 has 25 hours
  },
  'Europe/Berlin': {
    '2025-03-30': Date.UTC(2025, 2, 29, 23), // 00:00 CET
    '2025-03-31': Date.UTC(2025, 2, 30, 22), // 00:00 CEST: 2025-03-30 has 23 hours
    '2025-10-26': Date.UTC(2025, 9, 25, 22), // 00:00 CEST
    '2025-10-27': Date.UTC(2025, 9, 26, 23), // 00:00 CET: 2025-10-26 has 25 hours
  },
} as const;
const EDGE_TIMES_MS = Object.values(MIDNIGHTS).flatMap((m) => Object.values(m)).flatMap((t) => [t - 1000, t, t + 1000]);
/** Inside New York's repeated hour (01:00–02:00 twice on 2025-11-02) and right after Berlin's skipped one (02:00 → 03:00 on 2025-03-30). */
const DST_HOUR_TIMES_MS = [Date.UTC(2025, 10, 2, 5, 30), Date.UTC(2025, 10, 2, 6, 30), Date.UTC(2025, 2, 30, 1, 0), Date.UTC(2025, 2, 30, 0, 59, 59)];

let c: Contract;
beforeAll(async () => {
  c = await setupContract('prices-first', { extraGameTimesSec: [...EDGE_TIMES_MS, ...DST_HOUR_TIMES_MS].map((t) => t / 1000) });
});
afterAll(async () => {
  await c?.close();
});

/** Windows [startTime, endTime) used everywhere: an hour, a day, 400 days, across midnight, open on one side. */
function windows(): [string, number | undefined, number | undefined][] {
  const now = c.fixture.nowMs;
  const midnight = Math.floor(now / MS_PER_DAY) * MS_PER_DAY;
  return [
    ['last hour', now - MS_PER_HOUR, now + 1],
    ['one day', midnight - 3 * MS_PER_DAY, midnight - 2 * MS_PER_DAY],
    ['400 days', now - 400 * MS_PER_DAY, now + 1],
    ['across midnight, cut hours', midnight - 5 * MS_PER_HOUR - 123_000, midnight + 7 * MS_PER_HOUR + 456_000],
    ['40 days, cut both ends', now - 40 * MS_PER_DAY - 777_000, now - 3 * MS_PER_DAY + 999_000],
    ['a closed window in the past', now - 200 * MS_PER_DAY, now - 100 * MS_PER_DAY],
    ['until 200 days ago', undefined, now - 200 * MS_PER_DAY + 12_345],
    ['inside one hour', midnight - 20 * MS_PER_DAY + MS_PER_HOUR + 60_000, midnight - 20 * MS_PER_DAY + MS_PER_HOUR + 1_800_000],
  ];
}

describe('endTime on /stats, /players, /platforms', () => {
  it('/stats: every window × creator filter', async () => {
    for (const creator of [undefined, c.fixture.creators[0], c.fixture.creators[2], c.fixture.creators[7]]) {
      for (const [label, startTime, endTime] of windows()) {
        const r = await c.get('/stats', { creator, startTime, endTime });
        expect(r.status, `${label} ${JSON.stringify(r.body)}`).toBe(200);
        expectJson(r.body, c.oracle.stats({ creator, startTime, endTime }), `/stats ${label} creator=${creator}`);
      }
    }
  });

  it('/players: every window × filter × sortBy', async () => {
    const f = c.fixture;
    const filters: { creator?: string; token?: string; pool?: string }[] = [
      {}, { creator: f.creators[0] }, { token: f.tokens.USDC }, { pool: f.pools.SOL_B }, { creator: f.creators[1], token: f.tokens.SOL }, { creator: f.creators[0], pool: f.pools.SOL_A },
      { token: f.tokens.SOL, pool: f.pools.SOL_A }, { creator: f.creators[2], token: f.tokens.USDC, pool: f.pools.USDC }, { token: f.tokens.USDC, pool: f.pools.SOL_A },
    ];
    for (const fl of filters) {
      const sorts: PlayersSortBy[] = fl.token !== undefined || fl.pool !== undefined ? ['usd_profit', 'usd_volume', 'token_volume', 'token_profit'] : ['usd_profit', 'usd_volume'];
      for (const sortBy of sorts) {
        for (const [label, startTime, endTime] of windows()) {
          const r = await c.get('/players', { ...fl, sortBy, limit: 1000, startTime, endTime });
          expect(r.status, label).toBe(200);
          expectJson(withoutCursor(r.body), c.oracle.players({ ...fl, sortBy, limit: 1000, offset: 0, startTime, endTime }), `/players ${label} ${JSON.stringify(fl)} ${sortBy}`);
        }
      }
    }
  });

  it('/platforms: startTime/endTime replace days, every window × sortBy', async () => {
    for (const sortBy of ['usd_volume', 'usd_revenue'] as const) {
      for (const [label, startTime, endTime] of windows()) {
        const r = await c.get('/platforms', { sortBy, limit: 100, startTime, endTime });
        expect(r.status, label).toBe(200);
        expectJson(withoutCursor(r.body), { results: c.oracle.platforms({ sortBy, limit: 100, days: 7, startTime, endTime }) }, `/platforms ${label} ${sortBy}`);
      }
      // endTime alone: the `days` ending there.
      const endTime = c.fixture.nowMs - 100 * MS_PER_DAY + 4321;
      for (const days of [1, 30, 365]) {
        const r = await c.get('/platforms', { sortBy, limit: 100, days, endTime });
        expectJson(withoutCursor(r.body), { results: c.oracle.platforms({ sortBy, limit: 100, days, endTime }) }, `/platforms days=${days} endTime ${sortBy}`);
        expect(r.body.results.length).toBeGreaterThan(0);
      }
    }
  });

  it('endTime at an exact game time excludes that game; startTime at it includes it', async () => {
    const g = c.oracle.games.find((x) => x.time < c.fixture.nowMs - 50 * MS_PER_DAY && x.time % MS_PER_HOUR !== 0)!;
    const at = g.time;
    const sameTime = c.oracle.games.filter((x) => x.time === at).length;
    const before = await c.get('/stats', { startTime: at - MS_PER_DAY, endTime: at });
    const through = await c.get('/stats', { startTime: at - MS_PER_DAY, endTime: at + 1 });
    expectJson(before.body, c.oracle.stats({ startTime: at - MS_PER_DAY, endTime: at }), 'endTime = game time');
    expectJson(through.body, c.oracle.stats({ startTime: at - MS_PER_DAY, endTime: at + 1 }), 'endTime = game time + 1');
    expect(through.body.plays - before.body.plays).toBe(sameTime);
    const only = await c.get('/players', { startTime: at, endTime: at + 1, limit: 1000 });
    expect(only.body.total).toBe(new Set(c.oracle.games.filter((x) => x.time === at).map((x) => x.user)).size);
    const series = await c.get('/chart/plays', { startTime: at, endTime: at + 1 });
    expect(series.body.data.reduce((a: number, p: any) => a + p.plays, 0)).toBe(sameTime);
    const none = await c.get('/chart/plays', { startTime: at - MS_PER_HOUR, endTime: at });
    expectJson(none.body, { data: c.oracle.chartPlays({ startTime: at - MS_PER_HOUR, endTime: at }) }, 'series ending at the game');
  });

  it('400s: endTime ≤ startTime, a malformed endTime', async () => {
    for (const path of ['/stats', '/players', '/platforms', '/chart/plays', '/daily']) {
      const pool = path === '/daily' ? c.fixture.pools.USDC : undefined;
      const r = await c.get(path, { pool, startTime: 1_700_000_000_000, endTime: 1_700_000_000_000 });
      expect(r.status, path).toBe(400);
      expect(r.body.error).toContain("'endTime'");
      const bad = await c.get(path, { pool, endTime: 'yesterday' });
      expect(bad.status, path).toBe(400);
      expect(bad.body.error).toContain("'endTime'");
    }
  });
});

/** Every series route with its filter variants. */
function seriesRoutes(): { path: string; query: Record<string, string>; expected: (q: SeriesQ) => unknown[] }[] {
  const f = c.fixture;
  return [
    { path: '/chart/plays', query: {}, expected: (q) => c.oracle.chartPlays(q) },
    { path: '/chart/daily-usd', query: { creator: f.creators[2]! }, expected: (q) => c.oracle.chartDailyUsd({ ...q, creator: f.creators[2] }) },
    { path: '/chart/dao-usd', query: {}, expected: (q) => c.oracle.chartDaoUsd(q) },
    { path: '/chart/dao-usd', query: { creator: f.creators[0]! }, expected: (q) => c.oracle.chartDaoUsd({ ...q, creator: f.creators[0] }) },
    { path: '/daily', query: { pool: f.pools.USDC }, expected: (q) => c.oracle.daily({ ...q, pool: f.pools.USDC }) },
    { path: '/daily', query: { pool: f.pools.BONK }, expected: (q) => c.oracle.daily({ ...q, pool: f.pools.BONK }) },
  ];
}

async function checkSeries(q: SeriesQ, label: string): Promise<number> {
  let points = 0;
  for (const route of seriesRoutes()) {
    const r = await c.get(route.path, { ...route.query, ...q });
    expect(r.status, `${route.path} ${label} ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
    expectJson(r.body, { data: route.expected(q) }, `${route.path} ${JSON.stringify(route.query)} ${label}`);
    points += r.body.data.length;
  }
  return points;
}

describe('series: days, windows, interval, tz', () => {
  const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata'];

  it('days (default and given) in every zone and interval', async () => {
    for (const tz of ZONES) {
      for (const interval of ['hour', 'day', 'week'] as const) {
        await checkSeries({ tz, interval }, `tz=${tz} interval=${interval}`);
        await checkSeries({ tz, interval, days: interval === 'hour' ? 3 : 45 }, `tz=${tz} interval=${interval} days`);
      }
    }
    // No tz and no interval: the dense UTC days of before these parameters.
    const plain = await c.get('/chart/plays', { days: 30 });
    expect(plain.body.data.map((p: any) => p.time)).toEqual(Array.from({ length: 30 }, (_, i) => (Math.floor(c.fixture.nowMs / MS_PER_DAY) - 29 + i) * MS_PER_DAY));
  });

  it('windows of one hour, one day, 400 days and cut edges, every zone and interval', async () => {
    for (const tz of ZONES) {
      for (const interval of ['hour', 'day', 'week'] as const) {
        for (const [label, startTime, endTime] of windows()) {
          const hours = ((endTime ?? c.fixture.nowMs) - (startTime ?? 0)) / MS_PER_HOUR;
          if (startTime === undefined || (interval === 'hour' && hours > 900)) continue; // over the cap: tested below
          await checkSeries({ tz, interval, startTime, endTime }, `tz=${tz} interval=${interval} ${label}`);
        }
      }
    }
  });

  it('daylight-saving days: 23- and 25-hour local days, games right before and after local midnight', async () => {
    for (const [tz, m] of Object.entries(MIDNIGHTS)) {
      const dates = Object.keys(m) as (keyof typeof m)[];
      const times = dates.map((d) => m[d]);
      // A few days around each change, in days and in hours.
      for (const [from, to] of [[times[0]! - 2 * MS_PER_DAY, times[1]! + 2 * MS_PER_DAY], [times[2]! - 2 * MS_PER_DAY, times[3]! + 2 * MS_PER_DAY]] as const) {
        for (const interval of ['hour', 'day', 'week'] as const) await checkSeries({ tz, interval, startTime: from, endTime: to }, `${tz} DST ${interval}`);
      }
      // Hard facts, independent of the oracle: bucket starts are the zone's midnights, the DST
      // days last 23 and 25 hours, and the edge games land on the dates on either side of midnight.
      const r = await c.get('/chart/daily-usd', { tz, creator: c.fixture.creators[2], startTime: times[0]! - MS_PER_DAY, endTime: times[3]! + MS_PER_DAY });
      expect(r.status).toBe(200);
      const byDate = new Map<string, any>(r.body.data.map((p: any) => [p.date, p]));
      for (const d of dates) expect(byDate.get(d)?.time, `${tz} ${d} starts at local midnight`).toBe(m[d]);
      expect(times[1]! - times[0]!).toBe(23 * MS_PER_HOUR);
      expect(times[3]! - times[2]!).toBe(25 * MS_PER_HOUR);
      const ordered: any[] = r.body.data;
      const next = (d: string) => ordered[ordered.findIndex((p) => p.date === d) + 1];
      expect(next(dates[0]!).time - m[dates[0]!]).toBe(23 * MS_PER_HOUR);
      expect(next(dates[2]!).time - m[dates[2]!]).toBe(25 * MS_PER_HOUR);
      // The game 1 s before local midnight is in the previous date, the ones at and after it in this one.
      const at = m[dates[1]!];
      const before = await c.get('/chart/plays', { tz, startTime: at - 1000, endTime: at });
      const after = await c.get('/chart/plays', { tz, startTime: at, endTime: at + 2000 });
      expect(before.body.data.map((p: any) => [p.date, p.plays >= 1])).toEqual([[dates[0], true]]);
      expect(after.body.data.map((p: any) => [p.date, p.plays >= 2])).toEqual([[dates[1], true]]);
    }
    // New York's repeated hour is two hourly points with the same local date and hour, an hour apart.
    const ny = await c.get('/chart/plays', { tz: 'America/New_York', interval: 'hour', startTime: Date.UTC(2025, 10, 2, 4), endTime: Date.UTC(2025, 10, 2, 8) });
    expect(ny.body.data.map((p: any) => p.time)).toEqual([4, 5, 6, 7].map((h) => Date.UTC(2025, 10, 2, h)));
    expect(ny.body.data.map((p: any) => p.date)).toEqual(['2025-11-02', '2025-11-02', '2025-11-02', '2025-11-02']);
    expect(ny.body.data[1].plays).toBeGreaterThanOrEqual(1);
    expect(ny.body.data[2].plays).toBeGreaterThanOrEqual(1);
  });

  it('zones with skipped midnights, half-hour DST and quarter-hour offsets', async () => {
    // America/Santiago skips 2025-09-07 00:00 (the day starts at 01:00) and repeats 2025-04-05 23:00;
    // Australia/Lord_Howe moves by 30 minutes; Asia/Kathmandu is UTC+05:45; Pacific/Chatham +12:45/+13:45.
    for (const tz of ['America/Santiago', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham']) {
      for (const interval of ['day', 'week'] as const) await checkSeries({ tz, interval }, `tz=${tz} interval=${interval}`);
      for (const [from, to] of [[Date.UTC(2025, 3, 4), Date.UTC(2025, 3, 8)], [Date.UTC(2025, 8, 5), Date.UTC(2025, 8, 9)], [Date.UTC(2025, 9, 3), Date.UTC(2025, 9, 7)]]) {
        await checkSeries({ tz, interval: 'hour', startTime: from, endTime: to }, `tz=${tz} hours ${new Date(from).toISOString()}`);
      }
    }
  });

  it('ISO 8601 bounds with offsets mean the same instants', async () => {
    const q = { tz: 'Europe/Berlin', interval: 'day' as const, startTime: Date.UTC(2025, 9, 20, 22), endTime: Date.UTC(2025, 10, 1, 23) };
    const r = await c.get('/daily', { pool: c.fixture.pools.USDC, tz: q.tz, startTime: '2025-10-21T00:00:00+02:00', endTime: '2025-11-02T00:00:00+01:00' });
    expectJson(r.body, { data: c.oracle.daily({ ...q, pool: c.fixture.pools.USDC }) }, 'ISO bounds');
  });

  it('400 past the cap on points, naming the parameters; unknown tz and interval', async () => {
    const now = c.fixture.nowMs;
    for (const [path, extra] of [['/chart/plays', {}], ['/chart/dao-usd', {}], ['/daily', { pool: c.fixture.pools.USDC }]] as const) {
      const hours = await c.get(path, { ...extra, interval: 'hour', startTime: now - 400 * MS_PER_DAY });
      expect(hours.status).toBe(400);
      expect(hours.body.code).toBe('INVALID_PARAMETER');
      expect(hours.body.error).toMatch(/'interval'.*startTime, endTime, days/);
      const days = await c.get(path, { ...extra, interval: 'hour', days: 300 });
      expect(days.status).toBe(400);
      // The largest allowed: 1000 points.
      const edge = await c.get(path, { ...extra, interval: 'hour', startTime: now - 1000 * MS_PER_HOUR - (now % MS_PER_HOUR), endTime: now - (now % MS_PER_HOUR) });
      expect(edge.status).toBe(200);
      expect(edge.body.data).toHaveLength(1000);
      const tz = await c.get(path, { ...extra, tz: 'Mars/Olympus_Mons' });
      expect(tz.status).toBe(400);
      expect(tz.body.error).toContain("'tz'");
      const iv = await c.get(path, { ...extra, interval: 'month' });
      expect(iv.status).toBe(400);
      expect(iv.body.error).toContain("'interval'");
      const future = await c.get(path, { ...extra, startTime: now + 10 * MS_PER_DAY });
      expect(future.status).toBe(400);
      expect(future.body.error).toContain("'startTime'");
    }
  });
});
