import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { expectError, http } from '../helpers/api-operations.js';

/** Authentication (docs/spec.md §5, docs/design.md §4): header precedence, one 401 for every bad key, per-IP guard. */
describe('authentication', () => {
  let t: TestApp;
  let good: string;
  let other: string;

  beforeAll(async () => {
    t = await buildTestApp({ options: { authFailureLimits: { rpm: 1_000_000, burst: 1_000_000 } } });
    good = await t.createKey({ tier: 'standard' });
    other = await t.createKey({ tier: 'premium' });
  });
  afterAll(() => t.close());

  const get = (headers: Record<string, string>) => http(t.baseUrl, '/status', { headers });

  test('X-API-Key authenticates', async () => {
    const res = await get({ 'X-API-Key': good });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
  });

  test('Authorization: Bearer authenticates (scheme is case-insensitive)', async () => {
    expect((await get({ Authorization: `Bearer ${good}` })).status).toBe(200);
    expect((await get({ Authorization: `bearer ${good}` })).status).toBe(200);
  });

  test('the key is hex, case-insensitive', async () => {
    expect((await get({ 'X-API-Key': good.toUpperCase() })).status).toBe(200);
  });

  test('missing: no header, or empty headers → 401 MISSING_API_KEY', async () => {
    for (const headers of [{}, { 'X-API-Key': '' }, { Authorization: '' }] as Record<string, string>[]) {
      const res = await get(headers);
      expectError(res, 401, 'MISSING_API_KEY');
      expect(res.body.error).toBe('API key required');
    }
  });

  const flip = (k: string) => `${k.slice(0, 63)}${k[63] === '0' ? '1' : '0'}`;
  test.each([
    ['wrong (unknown 64 hex)', () => flip(good)],
    ['63 characters', () => good.slice(0, 63)],
    ['65 characters', () => `${good}0`],
    ['non-hex character', () => `${good.slice(0, 63)}z`],
    ['extra characters around it', () => `x${good}`],
    ['spaces inside', () => `${good.slice(0, 32)} ${good.slice(32)}`],
  ])('%s → 401 UNAUTHORIZED (both headers)', async (_name, mk) => {
    const key = mk();
    for (const headers of [{ 'X-API-Key': key }, { Authorization: `Bearer ${key}` }] as Record<string, string>[]) {
      const res = await get(headers);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.body.error).toBe('Invalid API key');
    }
  });

  test('Authorization without the Bearer scheme → 401 UNAUTHORIZED', async () => {
    expectError(await get({ Authorization: good }), 401, 'UNAUTHORIZED');
    expectError(await get({ Authorization: `Basic ${Buffer.from(`u:${good}`).toString('base64')}` }), 401, 'UNAUTHORIZED');
  });

  test('revoked and expired keys → the same 401 UNAUTHORIZED body', async () => {
    const r = await t.keys.create({ name: 'r', tier: 'standard' });
    const e = await t.keys.create({ name: 'e', tier: 'standard', expiresAt: t.clock.now() + 5_000 });
    expect((await get({ 'X-API-Key': r.key })).status).toBe(200);
    expect((await get({ 'X-API-Key': e.key })).status).toBe(200);
    await t.keys.revoke(r.id);
    t.clock.advance(5_000);
    const bodies = [];
    for (const key of [r.key, e.key, flip(good)]) {
      const res = await get({ 'X-API-Key': key });
      expectError(res, 401, 'UNAUTHORIZED');
      bodies.push({ ...res.body, timestamp: undefined });
    }
    // No oracle: the three answers are identical.
    expect(bodies[0]).toEqual(bodies[1]);
    expect(bodies[1]).toEqual(bodies[2]);
  });

  test('both headers: X-API-Key wins', async () => {
    // Right X-API-Key, wrong Bearer → accepted, and it is the X-API-Key's key that is charged.
    const a = await get({ 'X-API-Key': other, Authorization: `Bearer ${flip(good)}` });
    expect(a.status).toBe(200);
    expect(a.headers.get('x-ratelimit-limit')).toBe('1000');
    // Wrong X-API-Key, right Bearer → 401 (docs/design.md §4).
    expectError(await get({ 'X-API-Key': flip(good), Authorization: `Bearer ${good}` }), 401, 'UNAUTHORIZED');
    // Two right keys: the X-API-Key one is used.
    const c = await get({ 'X-API-Key': good, Authorization: `Bearer ${other}` });
    expect(c.headers.get('x-ratelimit-limit')).toBe('100');
  });

  test('public paths need no key', async () => {
    expect((await http(t.baseUrl, '/health')).body).toEqual({ status: 'ok' });
    expect((await http(t.baseUrl, '/ready')).status).toBe(200);
    expect((await http(t.baseUrl, '/openapi.json')).status).toBe(200);
    const docs = await http(t.baseUrl, '/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
  });

  test('CORS preflight allows X-API-Key and Authorization', async () => {
    const r = await fetch(`${t.baseUrl}/stats`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://dash.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key, authorization' },
    });
    expect(r.status).toBeLessThan(300);
    const allowed = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    expect(allowed).toContain('x-api-key');
    expect(allowed).toContain('authorization');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('failed-authentication guard (per client IP)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ options: { authFailureLimits: { rpm: 6, burst: 3 } } });
  });
  afterAll(() => t.close());

  test('after the allowed failures, keyed requests from the IP get 429 without the key being checked; it refills', async () => {
    const bad = 'cd'.repeat(32);
    for (let i = 0; i < 3; i++) expectError(await http(t.baseUrl, '/status', { key: bad }), 401, 'UNAUTHORIZED');
    // Blocked: even the right key is not checked while the IP is blocked (no guessing oracle).
    const blocked = await http(t.baseUrl, '/status', { key: t.key });
    expectError(blocked, 429, 'RATE_LIMITED');
    expect(blocked.body.retryAfter).toBe(10); // 6 per minute → one attempt per 10 s
    expectError(await http(t.baseUrl, '/status', { key: bad }), 429, 'RATE_LIMITED');
    // A missing key is not a guess: still 401 MISSING_API_KEY.
    expectError(await http(t.baseUrl, '/status'), 401, 'MISSING_API_KEY');
    t.clock.advance(10_000);
    expect((await http(t.baseUrl, '/status', { key: t.key })).status).toBe(200);
    // Successes do not consume failure budget: many good requests stay fine.
    for (let i = 0; i < 10; i++) expect((await http(t.baseUrl, '/status', { key: t.key })).status).toBe(200);
    expectError(await http(t.baseUrl, '/status', { key: bad }), 401, 'UNAUTHORIZED');
    expectError(await http(t.baseUrl, '/status', { key: bad }), 429, 'RATE_LIMITED');
  });
});
