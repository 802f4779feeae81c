/**
 * GET /stats, /status, /sync/status against the brute-force oracle (docs/spec.md §2 Platform statistics,
 * Status, Sync status; docs/design.md §3 aggregates, §4 startTime window; types.ts StoreCounts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoMs } from '../../src/core/index.js';
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

describe('GET /stats', () => {
  it('whole history', async () => {
    const r = await c.get('/stats');
    expect(r.status).toBe(200);
    expectJson(r.body, c.oracle.stats(), '/stats');
    // The whale alone makes players lose overall (spec: negative when players lose).
    expect(r.body.player_net_profit_usd).toBeLessThan(0);
  });

  it('per creator, including one nobody played on', async () => {
    for (const creator of [...c.fixture.creators, c.fixture.whale]) {
      const r = await c.get('/stats', { creator });
      expect(r.status).toBe(200);
      expectJson(r.body, c.oracle.stats({ creator }), `/stats?creator=${creator}`);
    }
    expect(c.oracle.stats({ creator: c.fixture.whale }).plays).toBe(0);
  });

  it('startTime in ms and as ISO 8601, inclusive at an exact game time', async () => {
    const times = [...new Set(c.oracle.games.map((g) => g.time))].sort((a, b) => a - b);
    const picks = [0, 1, times[0]!, times[Math.floor(times.length / 3)]!, times[Math.floor(times.length / 2)]! + 1, times.at(-5)!, c.fixture.nowMs, c.fixture.nowMs + 1];
    for (const startTime of picks) {
      const expected = c.oracle.stats({ startTime });
      const ms = await c.get('/stats', { startTime });
      expect(ms.status).toBe(200);
      expectJson(ms.body, expected, `/stats?startTime=${startTime}`);
      const iso = await c.get('/stats', { startTime: isoMs(startTime) });
      expect(iso.status).toBe(200);
      expectJson(iso.body, expected, `/stats?startTime=${isoMs(startTime)}`);
    }
    // Inclusive: a start exactly at a game's time keeps it, one ms later drops it.
    const t = times[Math.floor(times.length / 3)]!;
    expect(c.oracle.stats({ startTime: t }).plays).toBeGreaterThan(c.oracle.stats({ startTime: t + 1 }).plays);
  });

  it('a window at the edges of the history: the last game is kept only by an end after it', async () => {
    // A window holding every game is served by the all-time path (common.ts windowCoversHistory);
    // one ending exactly at the last game's time must not be, nor one starting after the first game.
    const times = c.oracle.games.map((g) => g.time);
    const first = Math.min(...times);
    const last = Math.max(...times);
    for (const [startTime, endTime] of [[first, last], [first, last + 1], [first + 1, last + 1], [first - 1, last + 1]] as const) {
      const r = await c.get('/stats', { startTime, endTime });
      expect(r.status).toBe(200);
      expectJson(r.body, c.oracle.stats({ startTime, endTime }), `/stats?startTime=${startTime}&endTime=${endTime}`);
    }
    expect(c.oracle.stats({ startTime: first, endTime: last }).plays).toBeLessThan(c.oracle.stats({ startTime: first, endTime: last + 1 }).plays);
  });

  it('ISO 8601 with an offset and without milliseconds', async () => {
    const t = c.oracle.games[Math.floor(c.oracle.games.length / 2)]!.time; // whole seconds
    const d = new Date(t + 2 * 3_600_000);
    const local = `${d.toISOString().slice(0, 19)}+02:00`; // same instant, written at UTC+2
    const r = await c.get('/stats', { startTime: local });
    expect(r.status).toBe(200);
    expectJson(r.body, c.oracle.stats({ startTime: t }), `/stats?startTime=${local}`);
  });

  it('creator and startTime together; active_players ignores startTime', async () => {
    const creator = c.fixture.creators[1]!;
    const startTime = c.fixture.nowMs - 10 * 86_400_000;
    const r = await c.get('/stats', { creator, startTime });
    expectJson(r.body, c.oracle.stats({ creator, startTime }), '/stats creator+startTime');
    const late = await c.get('/stats', { startTime: c.fixture.nowMs });
    expect(late.body.active_players).toBe(c.oracle.stats().active_players);
    expect(late.body.active_players).toBeGreaterThan(1);
  });

  it('active_players window is [now − 60 min, now] on the wall clock', async () => {
    const { fixture } = c;
    // At now, edgeInUser (now − 3600 s) counts and edgeOutUser (now − 3601 s) does not.
    const base = await c.get('/stats', { creator: fixture.creators[1] });
    expectJson(base.body, c.oracle.stats({ creator: fixture.creators[1] }), 'base');
    try {
      for (const dt of [999, 1_000, 60_000, 3_600_000, -1_000]) {
        c.clock.set(fixture.nowMs + dt);
        const moved = createOracle({ ...fixture, nowMs: fixture.nowMs + dt });
        for (const creator of [undefined, fixture.creators[1]]) {
          const r = await c.get('/stats', { creator });
          expectJson(r.body, moved.stats({ creator }), `/stats at now+${dt} creator=${creator}`);
        }
      }
    } finally {
      c.clock.set(fixture.nowMs);
    }
    // The oracle itself moves as the definition says (guards the guard).
    const plus1s = createOracle({ ...fixture, nowMs: fixture.nowMs + 1_000 });
    expect(plus1s.stats().active_players).toBeLessThanOrEqual(c.oracle.stats().active_players);
    expect(c.oracle.stats({ creator: fixture.creators[1] }).active_players - plus1s.stats({ creator: fixture.creators[1] }).active_players).toBeGreaterThanOrEqual(1);
  });
});

describe('GET /status and /sync/status', () => {
  it('report the store counts', async () => {
    const counts = c.oracle.counts();
    const s = await c.get('/status');
    expect(s.status).toBe(200);
    expect(s.body.syncing).toBe(false);
    expect(s.body.totalGames).toBe(counts.totalGames);
    expectJson({ totalVolume: s.body.totalVolume }, { totalVolume: counts.totalVolumeUsd });
    const ss = await c.get('/sync/status');
    expect(ss.status).toBe(200);
    expect(ss.body.success).toBe(true);
    expectJson(
      {
        totalSignatures: ss.body.data.totalSignatures, totalGames: ss.body.data.totalGames, totalPoolChanges: ss.body.data.totalPoolChanges,
        latestUpdate: ss.body.data.latestUpdate,
      },
      {
        totalSignatures: counts.totalSignatures, totalGames: counts.totalGames, totalPoolChanges: counts.totalPoolChanges,
        latestUpdate: { signature: counts.latest!.signature, blockTime: counts.latest!.blockTime, timestamp: isoMs(counts.latest!.blockTime * 1000) },
      },
      '/sync/status',
    );
  });

  it('store counts agree (un-priced games, totals)', async () => {
    const counts = await c.store.queries.counts();
    const o = c.oracle.counts();
    expectJson(
      { totalGames: counts.totalGames, totalPoolChanges: counts.totalPoolChanges, totalSignatures: counts.totalSignatures, unpricedGames: counts.unpricedGames, totalVolumeUsd: counts.totalVolumeUsd, latest: counts.latest },
      { totalGames: o.totalGames, totalPoolChanges: o.totalPoolChanges, totalSignatures: o.totalSignatures, unpricedGames: o.unpricedGames, totalVolumeUsd: o.totalVolumeUsd, latest: o.latest },
      'store.queries.counts()',
    );
  });
});
