import { afterAll, beforeAll, expect, test } from 'vitest';
import { dayToDate, dayOf, isoMs } from '../../src/core/index.js';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { ADDR, MINT, OPERATIONS, call, expectError, http } from '../helpers/api-operations.js';

/** An empty store answers every operation with zeros and empty lists, never an error (docs/architecture.md "Done when"). */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const get = async (path: string) => {
  const res = await http(t.baseUrl, path, { key: t.key });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res.body;
};

/** The last `n` UTC dates ending today, oldest first (independent of the store's date code). */
function lastDates(n: number): string[] {
  const today = new Date(t.clock.now());
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - i));
    out.push(d.toISOString().slice(0, 10));
  }
  return out;
}

test('every operation answers (200/202; /player and /pool 404)', async () => {
  for (const op of OPERATIONS) {
    const res = await call(t.baseUrl, op, { key: t.key });
    expect(res.status, `${op.method} ${op.path}: ${res.text}`).toBe(op.emptyStatus);
  }
});

test('/status and /sync/status', async () => {
  expect(await get('/status')).toEqual({ syncing: false, lastSync: null, totalGames: 0, totalVolume: 0, coverage: { lastVerifiedAt: null, completeSince: null, gaps: null } });
  // Before any `gamba-analytics verify` run (docs/design.md §13).
  expect(await get('/audit/coverage')).toMatchObject({ verifiedAt: null, completeSince: null, days: [], diffs: [], nextCursor: null });
  expect(await get('/sync/status')).toEqual({
    success: true,
    data: { totalSignatures: 0, totalGames: 0, totalPoolChanges: 0, latestUpdate: null, lastSync: null, unpricedGames: 0, skipped: {} },
  });
});

test('POST /sync → 202 with the trigger', async () => {
  const res = await http(t.baseUrl, '/sync', { method: 'POST', key: t.key });
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ success: true, data: { syncing: true, alreadyRunning: false, scheduled: false, startedAt: isoMs(t.clock.now()), passId: expect.stringMatching(/^idle_\d+$/) } });
});

test('/stats is all zeros, with and without filters', async () => {
  const zeros = { players: 0, usd_volume: 0, plays: 0, creators: 0, revenue_usd: 0, player_net_profit_usd: 0, active_players: 0, first_bet_time: 0 };
  expect(await get('/stats')).toEqual(zeros);
  expect(await get(`/stats?creator=${ADDR}&startTime=0`)).toEqual(zeros);
});

test('/player → 404 PLAYER_NOT_FOUND', async () => {
  expectError(await http(t.baseUrl, `/player?user=${ADDR}`, { key: t.key }), 404, 'PLAYER_NOT_FOUND');
  expectError(await http(t.baseUrl, `/player?user=${ADDR}&token=${MINT}`, { key: t.key }), 404, 'PLAYER_NOT_FOUND');
});

test('lists are empty', async () => {
  expect(await get('/players')).toEqual({ results: [], total: 0, nextCursor: null });
  expect(await get(`/players?sortBy=token_volume&token=${MINT}`)).toEqual({ results: [], total: 0, nextCursor: null });
  expect(await get('/events/settledGames')).toEqual({ results: [], total: 0, nextCursor: null });
  expect(await get('/events/settledGames?onlyJackpots&orderBy=multiplier&sorting=ASC')).toEqual({ results: [], total: 0, nextCursor: null });
  expect(await get(`/events/poolChanges?pool=${ADDR}`)).toEqual({ results: [], total: 0, nextCursor: null });
  expect(await get('/platforms')).toEqual({ results: [], nextCursor: null });
  expect(await get(`/platforms-by-pool?pool=${ADDR}`)).toEqual({ results: [] });
  expect(await get('/tokens')).toEqual({ results: [], nextCursor: null });
  expect(await get(`/tokens?creator=${ADDR}`)).toEqual({ results: [], nextCursor: null });
  expect(await get(`/ratio?pool=${ADDR}`)).toEqual({ data: [] });
  expect(await get('/pools')).toEqual({ results: [], nextCursor: null });
  expect(await get(`/pools?token=${MINT}&sortBy=created_time&limit=100`)).toEqual({ results: [], nextCursor: null });
});

test('/pool of an unknown pool → 404 POOL_NOT_FOUND, with or without a window', async () => {
  expectError(await http(t.baseUrl, `/pool?pool=${ADDR}`, { key: t.key }), 404, 'POOL_NOT_FOUND');
  expectError(await http(t.baseUrl, `/pool?pool=${ADDR}&startTime=0&endTime=2025-01-01T00:00:00Z`, { key: t.key }), 404, 'POOL_NOT_FOUND');
});

test('/total of an unknown pool is zero', async () => {
  expect(await get(`/total?pool=${ADDR}`)).toEqual({ pool: ADDR, token: null, volume: '0', usd_volume: 0, plays: 0 });
});

test('daily series are dense with zeros, ending today (UTC)', async () => {
  const dates = lastDates(300);
  expect(dates.at(-1)).toBe(dayToDate(dayOf(t.clock.now())));
  // `time`: the UTC midnight starting each date (docs/design.md §4 "Windows").
  const time = (date: string) => Date.parse(`${date}T00:00:00Z`);
  expect((await get('/chart/plays')).data).toEqual(dates.map((date) => ({ date, time: time(date), plays: 0, volume_usd: 0 })));
  expect((await get('/chart/daily-usd?days=30')).data).toEqual(dates.slice(-30).map((date) => ({ date, time: time(date), volume_usd: 0, plays: 0 })));
  expect((await get(`/chart/dao-usd?days=5&creator=${ADDR}`)).data).toEqual(dates.slice(-5).map((date) => ({ date, time: time(date), dao_fees_usd: 0 })));
  expect((await get(`/daily?pool=${ADDR}&days=3`)).data).toEqual(dates.slice(-3).map((date) => ({ date, time: time(date), volume: '0', volume_usd: 0, plays: 0 })));
});
