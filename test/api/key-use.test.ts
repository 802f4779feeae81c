import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { OPERATIONS, call, expectError, http, rateHeaders } from '../helpers/api-operations.js';

/**
 * Keys fit for real use (docs/design.md §4 "Scopes and publishable keys", "Usage", "Versioning";
 * docs/errors.md): scopes (403 INSUFFICIENT_SCOPE), publishable keys bound to their origins (403
 * ORIGIN_NOT_ALLOWED; CORS echoes only their origins), the IETF RateLimit headers beside
 * X-RateLimit-*, GET /usage, and the /v1 alias of every path.
 */
let t: TestApp;
const CASINO = 'https://casino.example';

beforeAll(async () => {
  t = await buildTestApp({ options: { authFailureLimits: { rpm: 1_000_000, burst: 1_000_000 } } });
});
afterAll(() => t.close());

async function issue(input: Parameters<TestApp['keys']['create']>[0]): Promise<string> {
  return (await t.keys.create(input)).key;
}

describe('scopes', () => {
  test('a key without `sync` gets 403 INSUFFICIENT_SCOPE on POST /sync, and reads as before', async () => {
    const key = await issue({ name: 'reader', tier: 'standard', scopes: ['read'] });
    const res = await http(t.baseUrl, '/sync', { method: 'POST', key });
    expectError(res, 403, 'INSUFFICIENT_SCOPE');
    expect(res.body.error).toContain("'sync'");
    expect((await http(t.baseUrl, '/status', { key })).status).toBe(200);
  });

  test('a key with `sync` triggers; a key with only `sync` cannot read', async () => {
    const key = await issue({ name: 'syncer', tier: 'standard', scopes: ['sync'] });
    expect((await http(t.baseUrl, '/sync', { method: 'POST', key })).status).toBe(202);
    for (const op of OPERATIONS.filter((o) => o.method === 'GET')) expectError(await call(t.baseUrl, op, { key }), 403, 'INSUFFICIENT_SCOPE');
  });

  test('a new key without --scopes holds all four (docs/design.md §4)', async () => {
    const created = await t.keys.create({ name: 'default', tier: 'premium' });
    expect([...created.record.scopes].sort()).toEqual(['export', 'read', 'stream', 'sync']);
    expect((await http(t.baseUrl, '/sync', { method: 'POST', key: created.key })).status).toBe(202);
  });

  test('a 403 is not charged to the bucket', async () => {
    const key = await issue({ name: 'uncharged', tier: 'standard', scopes: ['read'] });
    const before = rateHeaders(await http(t.baseUrl, '/status', { key })).remaining;
    for (let i = 0; i < 3; i++) expectError(await http(t.baseUrl, '/sync', { method: 'POST', key }), 403, 'INSUFFICIENT_SCOPE');
    expect(rateHeaders(await http(t.baseUrl, '/status', { key })).remaining).toBe(before - 1);
  });
});

describe('publishable keys', () => {
  let pub: string;
  beforeAll(async () => {
    pub = await issue({ name: 'casino-web', publishable: true, origins: [CASINO, 'http://localhost:5173'] });
  });

  test('from a foreign origin → 403 ORIGIN_NOT_ALLOWED, and CORS does not allow it', async () => {
    for (const origin of ['https://evil.example', 'https://casino.example.evil.example', 'http://casino.example', 'null']) {
      const res = await http(t.baseUrl, '/stats', { key: pub, headers: { origin } });
      expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  test('without an Origin header (a server-side script) → 403 ORIGIN_NOT_ALLOWED', async () => {
    expectError(await http(t.baseUrl, '/stats', { key: pub }), 403, 'ORIGIN_NOT_ALLOWED');
  });

  test('from its origin → 200 and CORS echoes that origin (not *)', async () => {
    for (const origin of [CASINO, 'http://localhost:5173']) {
      const res = await http(t.baseUrl, '/stats', { key: pub, headers: { origin } });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('vary') ?? '').toMatch(/origin/i);
    }
  });

  test('is read-only: POST /sync from its origin → 403 INSUFFICIENT_SCOPE', async () => {
    expectError(await http(t.baseUrl, '/sync', { method: 'POST', key: pub, headers: { origin: CASINO } }), 403, 'INSUFFICIENT_SCOPE');
  });

  test('is on its own lower tier: 60 requests/minute, burst 120 (docs/errors.md)', async () => {
    const res = await http(t.baseUrl, '/status', { key: pub, headers: { origin: CASINO } });
    expect(rateHeaders(res).limit).toBe(60);
    expect(res.headers.get('ratelimit-policy')).toBe('"publishable";q=120;w=120');
  });

  test('a secret key keeps Access-Control-Allow-Origin: * from any origin', async () => {
    const res = await http(t.baseUrl, '/stats', { key: t.key, headers: { origin: 'https://anywhere.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('creation refuses other scopes, no origin, a path in an origin, origins on a secret key', async () => {
    await expect(t.keys.create({ name: 'p', publishable: true, origins: [CASINO], scopes: ['read', 'sync'] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(t.keys.create({ name: 'p', publishable: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(t.keys.create({ name: 'p', publishable: true, origins: [`${CASINO}/app`] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(t.keys.create({ name: 'p', tier: 'standard', origins: [CASINO] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  test('the key is stored as a hash only, with its origins', async () => {
    const rows = await t.store.keys.list();
    const row = rows.find((r) => r.name === 'casino-web')!;
    expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.keyHash).not.toBe(pub);
    expect(JSON.stringify(rows)).not.toContain(pub);
    expect(row).toMatchObject({ publishable: true, tier: 'publishable', scopes: ['read'], origins: [CASINO, 'http://localhost:5173'] });
  });
});

describe('RateLimit headers', () => {
  test('standard key: RateLimit-Policy states the burst; RateLimit agrees with X-RateLimit-* on every answer', async () => {
    // docs/spec.md §8: standard = 100 requests/minute, burst 200; the window is 200 × 60 / 100 s.
    const key = await issue({ name: 'headers', tier: 'standard' });
    for (let i = 1; i <= 5; i++) {
      const res = await http(t.baseUrl, i === 5 ? '/players?limit=0' : '/status', { key });
      expect(res.status).toBe(i === 5 ? 400 : 200);
      const x = rateHeaders(res);
      expect(x).toMatchObject({ limit: 100, remaining: 200 - i });
      expect(res.headers.get('ratelimit-policy')).toBe('"standard";q=200;w=120');
      const m = /^"standard";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '');
      expect(m, res.headers.get('ratelimit') ?? 'no RateLimit header').not.toBeNull();
      expect(Number(m![1])).toBe(x.remaining);
      expect(Number(m![1])).toBeLessThanOrEqual(200);
      // t = seconds until full = X-RateLimit-Reset − now (the ManualClock does not move here).
      expect(Number(m![2])).toBe(x.reset - Math.floor(t.clock.now() / 1000));
      // i tokens taken, refilled at 100/min: full after ceil(i × 0.6 s).
      expect(x.reset).toBe(Math.ceil((t.clock.now() + i * 600) / 1000));
    }
  });

  test('a 429 carries them too, r=0', async () => {
    const key = await issue({ name: 'empty', tier: 'enterprise', rpm: 6, burst: 1 });
    expect((await http(t.baseUrl, '/status', { key })).status).toBe(200);
    const res = await http(t.baseUrl, '/status', { key });
    expectError(res, 429, 'RATE_LIMITED');
    expect(res.headers.get('ratelimit-policy')).toBe('"enterprise";q=1;w=10');
    expect(res.headers.get('ratelimit')).toMatch(/^"enterprise";r=0;t=\d+$/);
  });

  test('CORS exposes them to browsers', async () => {
    const res = await http(t.baseUrl, '/status', { key: t.key, headers: { origin: 'https://x.example' } });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    for (const h of ['ratelimit', 'ratelimit-policy', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) expect(exposed).toContain(h);
  });
});

describe('GET /usage', () => {
  test('counts the charged requests of the key today by operation; itself and refusals are not counted', async () => {
    const key = await issue({ name: 'usage', tier: 'standard', scopes: ['read'] });
    const other = await issue({ name: 'usage-other', tier: 'standard' });
    const sent: [string, RequestInit?][] = [['/stats'], ['/stats'], ['/v1/stats'], ['/players'], ['/players?limit=0'], ['/status', { method: 'HEAD' }], ['/usage'], ['/sync', { method: 'POST' }]];
    for (const [path, init] of sent) await http(t.baseUrl, path, { ...init, key });
    await http(t.baseUrl, '/stats', { key: other });
    const res = await http(t.baseUrl, '/usage', { key });
    expect(res.status, res.text).toBe(200);
    // Charged: 3 × stats (one via /v1), 2 × players (one a 400 after the charge), HEAD /status. Not: /usage, the 403.
    expect(res.body.today).toEqual({ date: new Date(t.clock.now()).toISOString().slice(0, 10), total: 6, operations: { getPlayers: 2, getStats: 3, getStatus: 1 } });
    expect(res.body.key).toMatchObject({ name: 'usage', tier: 'standard', scopes: ['read'], publishable: false, origins: [] });
    expect(res.body.bucket).toMatchObject({ rpm: 100, burst: 200, remaining: 194, policy: '"standard";q=200;w=120' });
    expect(res.body.bucket.resetAt).toBe(rateHeaders(res).reset);
    expect(rateHeaders(res).remaining).toBe(194);
  });

  test('counts restart on the next UTC day', async () => {
    const key = await issue({ name: 'usage-day', tier: 'standard' });
    await http(t.baseUrl, '/stats', { key });
    expect((await http(t.baseUrl, '/usage', { key })).body.today.total).toBe(1);
    const now = t.clock.now();
    t.clock.advance(86_400_000 - (now % 86_400_000));
    const next = (await http(t.baseUrl, '/usage', { key })).body.today;
    expect(next).toEqual({ date: new Date(t.clock.now()).toISOString().slice(0, 10), total: 0, operations: {} });
  });

  test('needs a key', async () => {
    expectError(await http(t.baseUrl, '/usage'), 401, 'MISSING_API_KEY');
  });
});

describe('/v1 alias', () => {
  test.each(OPERATIONS.filter((o) => o.method === 'GET' && o.path !== '/usage'))('GET /v1$path answers like GET $path', async (op) => {
    const plain = await call(t.baseUrl, op, { key: t.key });
    const v1 = await call(t.baseUrl, { ...op, path: `/v1${op.path}` }, { key: t.key });
    expect(v1.status).toBe(plain.status);
    const strip = (b: any) => (b && typeof b === 'object' && 'timestamp' in b ? { ...b, timestamp: undefined } : b);
    expect(strip(v1.body)).toEqual(strip(plain.body));
    expect(v1.headers.get('content-type')).toBe(plain.headers.get('content-type'));
  });

  test('POST /v1/sync, /v1/usage, public /v1/health, and the same errors (401, 400, 405)', async () => {
    expect((await http(t.baseUrl, '/v1/sync', { method: 'POST', key: t.key })).status).toBe(202);
    expect((await http(t.baseUrl, '/v1/usage', { key: t.key })).status).toBe(200);
    expect((await http(t.baseUrl, '/v1/health')).status).toBe((await http(t.baseUrl, '/health')).status);
    expectError(await http(t.baseUrl, '/v1/stats'), 401, 'MISSING_API_KEY');
    expectError(await http(t.baseUrl, '/v1/players?limit=0', { key: t.key }), 400, 'INVALID_PARAMETER', 'limit');
    expectError(await http(t.baseUrl, '/v1/stats', { method: 'DELETE', key: t.key }), 405, 'METHOD_NOT_ALLOWED');
    expectError(await http(t.baseUrl, '/v1', { key: t.key }), 404, 'NOT_FOUND');
  });

  test('the OpenAPI document lists the unversioned paths only', async () => {
    const doc = (await http(t.baseUrl, '/openapi.json')).body;
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/v1'))).toEqual([]);
    expect(doc.paths['/players']).toBeDefined();
  });
});

describe('publishable keys with the response cache on (as `serve` runs)', () => {
  let c: TestApp;
  beforeAll(async () => {
    c = await buildTestApp({ options: { cache: { ttlMs: 5000 } } });
  });
  afterAll(() => c.close());

  test('a cached answer still echoes only the key\'s origin, and a foreign origin is still refused', async () => {
    const pub = (await c.keys.create({ name: 'web', publishable: true, origins: [CASINO] })).key;
    // First a secret key fills the cache (its answer carries *), then the publishable key hits it.
    expect((await http(c.baseUrl, '/stats', { key: c.key, headers: { origin: 'https://x.example' } })).headers.get('access-control-allow-origin')).toBe('*');
    for (let i = 0; i < 2; i++) {
      const hit = await http(c.baseUrl, '/stats', { key: pub, headers: { origin: CASINO } });
      expect(hit.status).toBe(200);
      expect(hit.headers.get('access-control-allow-origin')).toBe(CASINO);
      expect(hit.headers.get('etag')).not.toBeNull();
    }
    const foreign = await http(c.baseUrl, '/stats', { key: pub, headers: { origin: 'https://evil.example' } });
    expectError(foreign, 403, 'ORIGIN_NOT_ALLOWED');
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});
