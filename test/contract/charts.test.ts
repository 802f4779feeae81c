/**
 * Chart endpoints against the oracle: /chart/plays, /chart/daily-usd, /chart/dao-usd — dense UTC
 * series of `days` dates ending today (default 300, docs/spec.md §8.4; docs/design.md §4), optional creator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MS_PER_DAY, dayOf, dayToDate } from '../../src/core/index.js';
import { createOracle } from '../helpers/bruteforce.js';
import { expectJson } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';

let c: Contract;
beforeAll(async () => {
  c = await setupContract();
});
afterAll(async () => {
  await c?.close();
});

const DAYS = [1, 2, 30, 299, 300];

describe('GET /chart/plays', () => {
  it('default (300 days) and each days', async () => {
    const r = await c.get('/chart/plays');
    expect(r.status).toBe(200);
    expectJson(r.body, { data: c.oracle.chartPlays({ days: 300 }) }, '/chart/plays');
    for (const days of DAYS) {
      const rd = await c.get('/chart/plays', { days });
      expectJson(rd.body, { data: c.oracle.chartPlays({ days }) }, `/chart/plays days=${days}`);
    }
  });

  it('is dense and ends today; older games are outside', async () => {
    const r = await c.get('/chart/plays');
    const today = dayOf(c.fixture.nowMs);
    expect(r.body.data.map((p: any) => p.date)).toEqual(Array.from({ length: 300 }, (_, i) => dayToDate(today - 299 + i)));
    // Days without games are present with zeros (a small creator has many).
    const small = await c.get('/chart/daily-usd', { creator: c.fixture.creators[7] });
    expect(small.body.data).toHaveLength(300);
    expect(small.body.data.filter((p: any) => p.plays === 0 && p.volume_usd === 0).length).toBeGreaterThan(100);
    const inChart = r.body.data.reduce((a: number, p: any) => a + p.plays, 0);
    expect(inChart).toBeLessThan(c.oracle.games.length); // the fixture has games older than 300 days
  });
});

describe('GET /chart/daily-usd and /chart/dao-usd', () => {
  it('each days, with and without creator', async () => {
    for (const creator of [undefined, ...c.fixture.creators.slice(0, 3)]) {
      for (const days of [undefined, ...DAYS]) {
        const d = days ?? 300;
        const u = await c.get('/chart/daily-usd', { days, creator });
        expect(u.status).toBe(200);
        expectJson(u.body, { data: c.oracle.chartDailyUsd({ days: d, creator }) }, `/chart/daily-usd days=${days} creator=${creator}`);
        const dao = await c.get('/chart/dao-usd', { days, creator });
        expect(dao.status).toBe(200);
        expectJson(dao.body, { data: c.oracle.chartDaoUsd({ days: d, creator }) }, `/chart/dao-usd days=${days} creator=${creator}`);
      }
    }
  });

  it('"today" follows the wall clock across midnight UTC', async () => {
    const midnight = (dayOf(c.fixture.nowMs) + 1) * MS_PER_DAY;
    try {
      for (const t of [midnight - 1, midnight]) {
        c.clock.set(t);
        const moved = createOracle({ ...c.fixture, nowMs: t });
        const r = await c.get('/chart/daily-usd', { days: 2 });
        expectJson(r.body, { data: moved.chartDailyUsd({ days: 2 }) }, `/chart/daily-usd at ${new Date(t).toISOString()}`);
      }
    } finally {
      c.clock.set(c.fixture.nowMs);
    }
  });
});
