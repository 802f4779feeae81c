import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { ADDR, expectError, http, rateHeaders } from '../helpers/api-operations.js';

/** Rate limits over HTTP (docs/spec.md §8, docs/design.md §4), time driven by a ManualClock. */
let t: TestApp;
beforeAll(async () => {
  // Start on a whole second so reset/retry arithmetic below is easy to read.
  t = await buildTestApp();
  t.clock.set(Math.ceil(t.clock.now() / 1000) * 1000);
});
afterAll(() => t.close());

const nowSec = () => t.clock.now() / 1000;

test('standard tier: a full burst of 200 passes, the 201st is 429, tokens refill at 100/min', async () => {
  const key = await t.createKey({ tier: 'standard' });
  for (let i = 0; i < 200; i++) {
    const res = await http(t.baseUrl, '/status', { key });
    expect(res.status).toBe(200);
    const h = rateHeaders(res);
    expect(h.limit).toBe(100);
    expect(h.remaining).toBe(199 - i);
    // Full again when the (i + 1) spent tokens are back: 600 ms each.
    expect(h.reset).toBe(Math.ceil(nowSec() + ((i + 1) * 600) / 1000));
  }
  const denied = await http(t.baseUrl, '/status', { key });
  expectError(denied, 429, 'RATE_LIMITED');
  expect(denied.body.retryAfter).toBe(1); // 600 ms to one token, rounded up
  expect(denied.headers.get('retry-after')).toBe('1');
  expect(rateHeaders(denied)).toEqual({ limit: 100, remaining: 0, reset: nowSec() + 120 });

  t.clock.advance(599);
  expectError(await http(t.baseUrl, '/status', { key }), 429, 'RATE_LIMITED');
  t.clock.advance(1);
  const again = await http(t.baseUrl, '/status', { key });
  expect(again.status).toBe(200);
  expect(rateHeaders(again).remaining).toBe(0);
  expectError(await http(t.baseUrl, '/status', { key }), 429, 'RATE_LIMITED');

  // One minute later: 100 more requests, not 200.
  t.clock.advance(60_000);
  for (let i = 0; i < 100; i++) expect((await http(t.baseUrl, '/status', { key })).status).toBe(200);
  expectError(await http(t.baseUrl, '/status', { key }), 429, 'RATE_LIMITED');
});

test('premium tier: burst 2000 and 1000/min (headers)', async () => {
  const key = await t.createKey({ tier: 'premium' });
  const first = await http(t.baseUrl, '/status', { key });
  expect(rateHeaders(first)).toMatchObject({ limit: 1000, remaining: 1999 });
});

test('enterprise custom limits and a long wait: Retry-After counts whole seconds up', async () => {
  const key = await t.createKey({ tier: 'enterprise', rpm: 7, burst: 1 });
  expect((await http(t.baseUrl, '/stats', { key })).status).toBe(200);
  const denied = await http(t.baseUrl, '/stats', { key });
  expectError(denied, 429, 'RATE_LIMITED');
  // 60/7 s ≈ 8.57 s → 9
  expect(denied.body.retryAfter).toBe(9);
  t.clock.advance(8_000);
  expect((await http(t.baseUrl, '/stats', { key })).body.retryAfter).toBe(1);
  t.clock.advance(572); // 8 572 ms ≥ 60 000 / 7
  expect((await http(t.baseUrl, '/stats', { key })).status).toBe(200);
});

test('keys do not share buckets', async () => {
  const a = await t.createKey({ tier: 'enterprise', rpm: 1, burst: 1 });
  const b = await t.createKey({ tier: 'enterprise', rpm: 1, burst: 1 });
  expect((await http(t.baseUrl, '/status', { key: a })).status).toBe(200);
  expectError(await http(t.baseUrl, '/status', { key: a }), 429, 'RATE_LIMITED');
  expect((await http(t.baseUrl, '/status', { key: b })).status).toBe(200);
  // …and the Bearer header draws on the same bucket as X-API-Key for the same key.
  expectError(await http(t.baseUrl, '/status', { headers: { Authorization: `Bearer ${b}` } }), 429, 'RATE_LIMITED');
});

describe('X-RateLimit-* on every authenticated answer', () => {
  test.each([
    ['200', '/status', 200],
    ['202', '/sync', 202],
    ['400 validation', '/players?limit=0', 400],
    ['404 player', `/player?user=${ADDR}`, 404],
  ])('%s', async (_name, path, status) => {
    const key = await t.createKey({ tier: 'enterprise', rpm: 60, burst: 5 });
    const res = await http(t.baseUrl, path, { key, method: path === '/sync' ? 'POST' : 'GET' });
    expect(res.status).toBe(status);
    expect(rateHeaders(res)).toEqual({ limit: 60, remaining: 4, reset: Math.ceil(nowSec() + 1) });
  });

  test('validation failures still spend a token (the limit comes first)', async () => {
    const key = await t.createKey({ tier: 'enterprise', rpm: 60, burst: 2 });
    expect((await http(t.baseUrl, '/players?limit=0', { key })).status).toBe(400);
    expect((await http(t.baseUrl, '/players?limit=0', { key })).status).toBe(400);
    // Rate limit is checked before validation: now 429, not 400.
    expectError(await http(t.baseUrl, '/players?limit=0', { key }), 429, 'RATE_LIMITED');
  });

  test('unauthenticated answers carry none', async () => {
    for (const res of [await http(t.baseUrl, '/status'), await http(t.baseUrl, '/health'), await http(t.baseUrl, '/status', { key: 'f'.repeat(64) })]) {
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});
