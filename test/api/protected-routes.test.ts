import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { OPERATIONS, call, expectError, http, rateHeaders } from '../helpers/api-operations.js';

/**
 * The shared generator (docs/architecture.md convention 8): every protected operation gets its missing-key,
 * bad-key, revoked-key, expired-key and 429 tests, from one table.
 */
let t: TestApp;
let revoked: string;
let expired: string;

beforeAll(async () => {
  // The per-IP failed-auth guard is tested on its own (auth.test.ts); here it must not interfere.
  t = await buildTestApp({ options: { authFailureLimits: { rpm: 1_000_000, burst: 1_000_000 } } });
  const r = await t.keys.create({ name: 'to-revoke', tier: 'standard' });
  revoked = r.key;
  expect(await t.keys.revoke(r.id)).toBe(true);
  expired = await t.createKey({ tier: 'premium', expiresAt: t.clock.now() + 1000 });
  t.clock.advance(1000);
});
afterAll(() => t.close());

test('the table covers every protected operation of the OpenAPI document (17 of docs/spec.md §4, /pools, /pool, /usage, the operations of docs/design.md §10 and /audit/coverage of §13 and /audit/fairness of §14)', async () => {
  const doc = (await http(t.baseUrl, '/openapi.json')).body;
  const documented: string[] = [];
  for (const [path, item] of Object.entries<Record<string, { security?: unknown[] }>>(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'head') continue;
      if (Array.isArray(op.security) && op.security.length === 0) continue; // public
      // Live streams never end: their auth, rate limit and cap are tested by test/contract/stream.test.ts.
      if (path.startsWith('/stream/')) continue;
      documented.push(`${method.toUpperCase()} ${path}`);
    }
  }
  expect(documented.sort()).toEqual(OPERATIONS.map((o) => `${o.method} ${o.path}`).sort());
  expect(documented).toHaveLength(26);
});

describe.each(OPERATIONS)('$method $path', (op) => {
  test('answers with a valid key', async () => {
    const res = await call(t.baseUrl, op, { key: t.key });
    expect(res.status, res.text).toBe(op.emptyStatus);
    expect(rateHeaders(res).limit).toBe(1_000_000);
  });

  test('no key → 401 MISSING_API_KEY, no rate-limit headers', async () => {
    const res = await call(t.baseUrl, op);
    expectError(res, 401, 'MISSING_API_KEY');
    expect(res.body.error).toBe('API key required');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  test('wrong key → 401 UNAUTHORIZED', async () => {
    const res = await call(t.baseUrl, op, { key: 'ab'.repeat(32) });
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.body.error).toBe('Invalid API key');
  });

  test('revoked key → 401 UNAUTHORIZED', async () => {
    expectError(await call(t.baseUrl, op, { key: revoked }), 401, 'UNAUTHORIZED');
  });

  test('expired key → 401 UNAUTHORIZED', async () => {
    expectError(await call(t.baseUrl, op, { key: expired }), 401, 'UNAUTHORIZED');
  });

  test.skipIf(op.free)('an empty bucket → 429 RATE_LIMITED with Retry-After and rate-limit headers', async () => {
    const key = await t.createKey({ tier: 'enterprise', rpm: 6, burst: 2 });
    for (let i = 0; i < 2; i++) {
      const ok = await call(t.baseUrl, op, { key });
      expect(ok.status).toBe(op.emptyStatus);
      expect(rateHeaders(ok)).toMatchObject({ limit: 6, remaining: 1 - i });
    }
    const res = await call(t.baseUrl, op, { key });
    expectError(res, 429, 'RATE_LIMITED');
    expect(res.body.error).toBe('Rate limit exceeded');
    // 6 per minute: one token every 10 s.
    expect(res.body.retryAfter).toBe(10);
    expect(rateHeaders(res)).toMatchObject({ limit: 6, remaining: 0 });
  });

  test.runIf(op.free)('free: an empty bucket still answers, and the call takes no token', async () => {
    const key = await t.createKey({ tier: 'enterprise', rpm: 6, burst: 2 });
    for (let i = 0; i < 2; i++) expect((await call(t.baseUrl, OPERATIONS[0]!, { key })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const res = await call(t.baseUrl, op, { key });
      expect(res.status, res.text).toBe(op.emptyStatus);
      expect(rateHeaders(res)).toMatchObject({ limit: 6, remaining: 0 });
    }
  });
});
