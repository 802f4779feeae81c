/**
 * GET /platforms (rolling window, sortBy, limit) and GET /tokens (optional creator) against the
 * oracle (docs/spec.md §2 Platform entry, §8.3 defaults; docs/design.md §3 revenue, §4 windows and /tokens).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOracle } from '../helpers/bruteforce.js';
import { expectJson, withoutCursor } from '../helpers/compare.js';
import { setupContract, type Contract } from '../helpers/contract-world.js';

let c: Contract;
beforeAll(async () => {
  c = await setupContract();
});
afterAll(async () => {
  await c?.close();
});

describe('GET /platforms', () => {
  it('each days × sortBy × limit', async () => {
    for (const days of [1, 2, 7, 30, 365]) {
      for (const sortBy of ['usd_volume', 'usd_revenue'] as const) {
        for (const limit of [1, 3, 100]) {
          const r = await c.get('/platforms', { days, sortBy, limit });
          expect(r.status).toBe(200);
          expectJson(withoutCursor(r.body), { results: c.oracle.platforms({ days, sortBy, limit }) }, `/platforms days=${days} sortBy=${sortBy} limit=${limit}`);
        }
      }
    }
  });

  it('defaults: days 7, sortBy usd_volume, limit 10', async () => {
    const r = await c.get('/platforms');
    expectJson(withoutCursor(r.body), { results: c.oracle.platforms({ days: 7, sortBy: 'usd_volume', limit: 10 }) }, '/platforms defaults');
    expect(r.body.results.length).toBe(8);
  });

  it('the window is rolling on the wall clock (now − days × 24 h)', async () => {
    try {
      for (const dt of [3_600_000, 86_400_000 - 1_000, 5 * 86_400_000]) {
        c.clock.set(c.fixture.nowMs + dt);
        const moved = createOracle({ ...c.fixture, nowMs: c.fixture.nowMs + dt });
        const r = await c.get('/platforms', { days: 1, limit: 100 });
        expectJson(withoutCursor(r.body), { results: moved.platforms({ days: 1, sortBy: 'usd_volume', limit: 100 }) }, `/platforms days=1 at now+${dt}`);
      }
    } finally {
      c.clock.set(c.fixture.nowMs);
    }
  });

  it('a game exactly at now − days × 24 h is inside the window', async () => {
    const edge = c.oracle.games.filter((g) => g.time > c.fixture.nowMs - 86_400_000 && g.creator === c.fixture.creators[5]).sort((a, b) => a.time - b.time)[0]!;
    const now = edge.time + 86_400_000;
    try {
      c.clock.set(now);
      const moved = createOracle({ ...c.fixture, nowMs: now });
      const r = await c.get('/platforms', { days: 1, limit: 100 });
      expectJson(withoutCursor(r.body), { results: moved.platforms({ days: 1, sortBy: 'usd_volume', limit: 100 }) }, '/platforms edge');
      const later = createOracle({ ...c.fixture, nowMs: now + 1 });
      const withEdge = moved.platforms({ days: 1, sortBy: 'usd_volume', limit: 100 }).find((p) => p.creator === edge.creator)!;
      const without = later.platforms({ days: 1, sortBy: 'usd_volume', limit: 100 }).find((p) => p.creator === edge.creator);
      expect(withEdge.plays).toBe((without?.plays ?? 0) + c.oracle.games.filter((g) => g.time === edge.time && g.creator === edge.creator).length);
    } finally {
      c.clock.set(c.fixture.nowMs);
    }
  });
});

describe('GET /tokens', () => {
  it('all tokens, and per creator', async () => {
    const r = await c.get('/tokens');
    expect(r.status).toBe(200);
    expectJson(withoutCursor(r.body), { results: c.oracle.tokens() }, '/tokens');
    expect(r.body.results).toHaveLength(5);
    expect(BigInt(r.body.results.find((t: any) => t.token === c.fixture.tokens.BONK).volume)).toBeGreaterThan(1n << 64n);
    for (const creator of [...c.fixture.creators, c.fixture.whale]) {
      const rc = await c.get('/tokens', { creator });
      expectJson(withoutCursor(rc.body), { results: c.oracle.tokens({ creator }) }, `/tokens creator=${creator}`);
    }
  });
});
