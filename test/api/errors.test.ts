import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ERROR_CODES, buildApp, startServer } from '../../src/api/index.js';
import { ManualClock, createCommon, createLogger } from '../../src/core/index.js';
import { createIdleSyncController } from '../../src/ingest/index.js';
import { createKeyService } from '../../src/keys/index.js';
import { createMemoryRateLimiter } from '../../src/ratelimit/index.js';
import type { Store } from '../../src/store/index.js';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { setupStore } from '../helpers/store.js';
import { type Res, expectError, http } from '../helpers/api-operations.js';

/** The error contract (docs/spec.md §7, docs/design.md §4 "Errors"): one JSON body for every error, framework ones included. */

/** A raw request, so the path reaches the server byte for byte (fetch would normalise it). */
function rawGet(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<Res> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: h, body: JSON.parse(text), text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('framework-level errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  test('unknown route → 404 NOT_FOUND, with or without a key', async () => {
    expectError(await http(t.baseUrl, '/nope'), 404, 'NOT_FOUND');
    expectError(await http(t.baseUrl, '/nope', { key: t.key }), 404, 'NOT_FOUND');
    expectError(await http(t.baseUrl, '/status/', { key: t.key }), 404, 'NOT_FOUND');
    expectError(await http(t.baseUrl, '/v2/status', { key: t.key }), 404, 'NOT_FOUND');
  });

  test.each([
    ['DELETE', '/status', 'GET, HEAD'],
    ['PUT', '/players', 'GET, HEAD'],
    ['POST', '/stats', 'GET, HEAD'],
    ['GET', '/sync', 'POST'],
    ['PATCH', '/sync', 'POST'],
  ])('%s %s → 405 METHOD_NOT_ALLOWED, Allow: %s', async (method, path, allow) => {
    const res = await http(t.baseUrl, path, { method, key: t.key });
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe(allow);
  });

  test('HEAD works where GET does', async () => {
    const r = await fetch(`${t.baseUrl}/status`, { method: 'HEAD', headers: { 'x-api-key': t.key } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit')).toBe('1000000');
  });

  test('bad JSON body → 400 BAD_REQUEST (after auth)', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"oops":' };
    expectError(await http(t.baseUrl, '/sync', { ...init, key: t.key }), 400, 'BAD_REQUEST');
    expectError(await http(t.baseUrl, '/sync', init), 401, 'MISSING_API_KEY');
    // Valid JSON, or no body at all, is fine.
    expect((await http(t.baseUrl, '/sync', { method: 'POST', key: t.key, headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(202);
    expect((await http(t.baseUrl, '/sync', { method: 'POST', key: t.key })).status).toBe(202);
  });

  test('body too large → 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(64 * 1024) });
    expectError(await http(t.baseUrl, '/sync', { method: 'POST', key: t.key, headers: { 'content-type': 'application/json' }, body }), 413, 'PAYLOAD_TOO_LARGE');
  });

  test('unsupported body type → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    expectError(await http(t.baseUrl, '/sync', { method: 'POST', key: t.key, headers: { 'content-type': 'application/xml' }, body: '<a/>' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('malformed URL → 400 BAD_REQUEST with the JSON body', async () => {
    expectError(await rawGet(t.baseUrl, '/stats%E0%A4%A', { 'x-api-key': t.key }), 400, 'BAD_REQUEST');
    expectError(await rawGet(t.baseUrl, '/%ZZ'), 400, 'BAD_REQUEST');
  });

  test('malformed percent-encoding in the query string → 400 naming the parameter', async () => {
    const res = await rawGet(t.baseUrl, '/stats?creator=%ZZ', { 'x-api-key': t.key });
    expectError(res, 400, 'INVALID_PARAMETER', 'creator');
  });

  test('every answer carries an X-Request-Id', async () => {
    const a = await http(t.baseUrl, '/nope');
    const b = await http(t.baseUrl, '/status', { key: t.key });
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get('x-request-id')).not.toBe(a.headers.get('x-request-id'));
  });
});

describe('store failures', () => {
  function capture() {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
        cb();
      },
    });
    return { lines, logger: createLogger({ level: 'info', destination }) };
  }

  async function serve(store: Store) {
    const { lines, logger } = capture();
    const clock = new ManualClock(Date.now());
    const common = createCommon({ clock, logger });
    const keys = createKeyService({ store: store.keys, clock });
    const { key } = await keys.create({ name: 'k', tier: 'premium' });
    const app = await buildApp({ common, store, keys, limiter: createMemoryRateLimiter({ clock }), sync: createIdleSyncController(clock) });
    const server = await startServer({ app, host: '127.0.0.1', port: 0 });
    return { lines, key, server };
  }

  test('an unexpected error → 500 INTERNAL_ERROR; details logged with the request id, never returned', async () => {
    const real = await setupStore();
    const secret = 'SQLITE_ERROR: near "SELECT secret_column FROM games": syntax error';
    // Fault injection: the real store, with one query failing the way a driver would.
    const queries = new Proxy(real.queries, {
      get: (target, prop, recv) => (prop === 'stats' ? async () => { throw new Error(secret); } : Reflect.get(target, prop, recv)),
    });
    const store = new Proxy(real, { get: (target, prop, recv) => (prop === 'queries' ? queries : Reflect.get(target, prop, recv)) });
    const { lines, key, server } = await serve(store);
    try {
      const res = await http(server.url, '/stats', { key });
      expectError(res, 500, 'INTERNAL_ERROR');
      expect(res.text).not.toContain('secret_column');
      expect(res.text).not.toContain('SQLITE');
      expect(res.text).not.toMatch(/at .*\.ts:\d+/);
      const reqId = res.headers.get('x-request-id');
      const logged = lines.find((l) => l.level === 50 && JSON.stringify(l).includes('secret_column'));
      expect(logged?.request_id).toBe(reqId);
      // The key itself never appears in the logs (logger redaction).
      expect(JSON.stringify(lines)).not.toContain(key);
      // Other operations still work.
      expect((await http(server.url, '/status', { key })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('store unreachable → 503 STORE_UNAVAILABLE; /ready 503, /health still 200', async () => {
    const store = await setupStore();
    const { key, server } = await serve(store);
    try {
      expect((await http(server.url, '/ready')).status).toBe(200);
      // Authenticate once more while the store is up, then take it away.
      expect((await http(server.url, '/status', { key })).status).toBe(200);
      await store.close();
      expectError(await http(server.url, '/ready'), 503, 'STORE_UNAVAILABLE');
      expect((await http(server.url, '/health')).body).toEqual({ status: 'ok' });
      // Auth itself needs the store: a keyed request is 503, not 401.
      expectError(await http(server.url, '/stats', { key }), 503, 'STORE_UNAVAILABLE');
    } finally {
      await server.close();
    }
  });
});

describe('the registry and docs/errors.md', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

  test.each(Object.entries(ERROR_CODES))('%s is documented with its status and message', (code, { status, message }) => {
    const row = doc.split('\n').find((l) => l.includes(`\`${code}\``) && l.startsWith('|'));
    expect(row, `docs/errors.md has no table row for ${code}`).toBeDefined();
    expect(row).toMatch(new RegExp(`^\\|\\s*${status}\\s*\\|`));
    expect(row).toContain(message);
  });

  test('the docs/spec.md §7 messages are kept', () => {
    expect(ERROR_CODES.MISSING_API_KEY).toEqual({ status: 401, message: 'API key required' });
    expect(ERROR_CODES.UNAUTHORIZED).toEqual({ status: 401, message: 'Invalid API key' });
    expect(ERROR_CODES.RATE_LIMITED).toEqual({ status: 429, message: 'Rate limit exceeded' });
  });
});
