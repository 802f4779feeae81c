/**
 * Limits a public-facing service needs (docs/hardening.md): URL and header sizes (414 / 431), body size
 * (413), slow clients (408 and closed sockets, slowloris over a raw socket), idle keep-alive
 * sockets, `Allow` on 405, and the cap on concurrent queries (one key cannot starve the others;
 * 503 + Retry-After when saturated). Every refusal carries the docs/spec.md §7 JSON body.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { setupStore } from '../helpers/store.js';
import { expectError, http } from '../helpers/api-operations.js';
import { gateQuery } from '../helpers/gated-store.js';
import { bytesOf, rawExchange } from '../helpers/raw-http.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function expectRawError(a: { status?: number; headers: Record<string, string>; body: any; text: string }, status: number, code: string) {
  expect(a.status, a.text).toBe(status);
  expect(a.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(a.body).sort()).toEqual(['code', 'error', 'timestamp']);
  expect(a.body.code).toBe(code);
  expect(a.body.timestamp).toMatch(ISO_MS);
}

describe('sizes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  test('a URL longer than 8 KiB → 414 URI_TOO_LONG, before authentication and on unknown routes', async () => {
    const long = `/stats?creator=${'A'.repeat(9000)}`;
    expectError(await http(t.baseUrl, long, { key: t.key }), 414, 'URI_TOO_LONG');
    expectError(await http(t.baseUrl, long), 414, 'URI_TOO_LONG');
    expectError(await http(t.baseUrl, `/nope/${'x'.repeat(9000)}`), 414, 'URI_TOO_LONG');
    // Just under the limit is read normally (here: a 400 naming the parameter).
    expectError(await http(t.baseUrl, `/stats?creator=${'A'.repeat(8000)}`, { key: t.key }), 400, 'INVALID_PARAMETER', 'creator');
  });

  test('headers larger than 16 KiB → 431 HEADERS_TOO_LARGE with the JSON body, socket closed', async () => {
    const a = await rawExchange(t.baseUrl, [`GET /status HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.key}\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`]);
    expectRawError(a, 431, 'HEADERS_TOO_LARGE');
    expect(a.closedAfterMs).toBeDefined();
  });

  test('a request target of 8..16 KiB is 414, beyond the header budget 431: never a hang, never 5xx', async () => {
    const a = await rawExchange(t.baseUrl, [`GET /stats?x=${'a'.repeat(12_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
    expectRawError(a, 414, 'URI_TOO_LONG');
    const b = await rawExchange(t.baseUrl, [`GET /stats?x=${'a'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);
    expectRawError(b, 431, 'HEADERS_TOO_LARGE');
  });

  test('a body larger than 16 KiB on POST /sync → 413, whether or not Content-Length announces it', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(20_000) });
    expectError(await http(t.baseUrl, '/sync', { method: 'POST', key: t.key, headers: { 'content-type': 'application/json' }, body }), 413, 'PAYLOAD_TOO_LARGE');
    const chunked = await rawExchange(t.baseUrl, [
      `POST /sync HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      `${(20_000).toString(16)}\r\n${'x'.repeat(20_000)}\r\n0\r\n\r\n`,
    ], { waitMs: 3000 });
    expectRawError(chunked, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('405 carries Allow', async () => {
    const res = await http(t.baseUrl, '/sync', { method: 'DELETE', key: t.key });
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('slow clients', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      options: { httpLimits: { headersTimeoutMs: 600, requestTimeoutMs: 1200, keepAliveTimeoutMs: 400, timeoutCheckIntervalMs: 100 } },
    });
  });
  afterAll(() => t.close());

  test('slowloris: headers trickled one byte at a time → 408 REQUEST_TIMEOUT and the socket is closed', async () => {
    const request = `GET /status HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.key}\r\nX-Slow: ${'s'.repeat(200)}\r\n\r\n`;
    const a = await rawExchange(t.baseUrl, bytesOf(request), { gapMs: 50, waitMs: 8000 });
    expectRawError(a, 408, 'REQUEST_TIMEOUT');
    // Closed by the server long before the client would have finished (≈ 15 s of trickling).
    expect(a.closedAfterMs).toBeDefined();
    expect(a.closedAfterMs!).toBeLessThan(8000);
  });

  test('a body trickled slower than the request timeout → 408, socket closed', async () => {
    const head = `POST /sync HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n`;
    const a = await rawExchange(t.baseUrl, [head, ...bytesOf(`{"pad":"${'x'.repeat(390)}"}`)], { gapMs: 40, waitMs: 8000 });
    expectRawError(a, 408, 'REQUEST_TIMEOUT');
  });

  test('a connection that never sends a byte is closed', async () => {
    const a = await rawExchange(t.baseUrl, [], { waitMs: 8000 });
    expect(a.closedAfterMs).toBeDefined();
  });

  test('an idle keep-alive socket is closed after the keep-alive timeout; meanwhile other clients are served', async () => {
    const [idle, slow, normal] = await Promise.all([
      rawExchange(t.baseUrl, [`GET /health HTTP/1.1\r\nHost: x\r\n\r\n`], { waitMs: 8000 }),
      rawExchange(t.baseUrl, bytesOf(`GET /health HTTP/1.1\r\nHost: x\r\n${'X-A: b\r\n'.repeat(40)}\r\n`), { gapMs: 30, waitMs: 8000 }),
      http(t.baseUrl, '/status', { key: t.key }),
    ]);
    expect(idle.status).toBe(200);
    expect(idle.closedAfterMs).toBeDefined();
    expect(slow.status).toBe(408);
    expect(normal.status).toBe(200);
  });
});

describe('concurrent query cap', () => {
  test('one key holding many slow queries cannot starve another key; its excess waits in its own queue, then 429', async () => {
    const base = await setupStore('sqlite');
    const gate = gateQuery(base, 'stats');
    const t = await buildTestApp({ store: gate.store, options: { concurrency: { maxConcurrent: 4, perKey: 2, perKeyQueue: 3, maxQueue: 10, queueTimeoutMs: 60_000 } } });
    try {
      const greedy = await t.createKey({ tier: 'enterprise', rpm: 100_000, burst: 100_000 });
      const polite = await t.createKey({ tier: 'standard' });
      const held = Array.from({ length: 2 }, () => http(t.baseUrl, '/stats', { key: greedy }));
      await gate.waitEntered(2);
      // Three more wait in the greedy key's own queue (not in the global one)…
      const waiting = Array.from({ length: 3 }, () => http(t.baseUrl, '/tokens', { key: greedy }));
      // …so the fourth extra is refused at once, with Retry-After.
      let refused;
      for (let i = 0; i < 100; i++) {
        refused = await http(t.baseUrl, '/tokens', { key: greedy });
        if (refused.status === 429) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expectError(refused!, 429, 'RATE_LIMITED');
      expect(refused!.headers.get('retry-after')).toBe('1');
      expect(refused!.body.error).toMatch(/^Rate limit exceeded: too many concurrent requests/);
      // Another key is served while the greedy key's queries are stuck (2 of 4 global slots used).
      const other = await http(t.baseUrl, '/tokens', { key: polite });
      expect(other.status, other.text).toBe(200);
      expect(gate.entered).toBe(2);
      gate.open();
      for (const r of await Promise.all([...held, ...waiting])) expect(r.status).toBe(200);
      // Slots were released: the greedy key is served again.
      expect((await http(t.baseUrl, '/tokens', { key: greedy })).status).toBe(200);
    } finally {
      gate.open();
      await t.close();
    }
  });

  test('each request takes exactly one slot (HEAD routes too: a handler wrapped twice would wait for itself)', async () => {
    const t = await buildTestApp({ options: { concurrency: { perKey: 1, maxConcurrent: 1, queueTimeoutMs: 2000 } } });
    try {
      for (const method of ['GET', 'HEAD']) {
        const r = await fetch(`${t.baseUrl}/stats`, { method, headers: { 'x-api-key': t.key } });
        expect(r.status, method).toBe(200);
      }
    } finally {
      await t.close();
    }
  });

  test('a client with more connections than its key may run is slowed, not refused', async () => {
    const t = await buildTestApp({ options: { concurrency: { perKey: 2 } } });
    try {
      const answers = await Promise.all(Array.from({ length: 24 }, () => http(t.baseUrl, '/stats', { key: t.key })));
      expect(answers.map((a) => a.status)).toEqual(Array(24).fill(200));
    } finally {
      await t.close();
    }
  });

  test('all slots busy and the queue full → 503 SERVICE_UNAVAILABLE + Retry-After; queued requests complete', async () => {
    const base = await setupStore('sqlite');
    const gate = gateQuery(base, 'stats');
    const t = await buildTestApp({ store: gate.store, options: { concurrency: { maxConcurrent: 2, perKey: 100, maxQueue: 3, queueTimeoutMs: 60_000 } } });
    try {
      const running = Array.from({ length: 2 }, () => http(t.baseUrl, '/stats', { key: t.key }));
      await gate.waitEntered(2);
      const queued = Array.from({ length: 3 }, () => http(t.baseUrl, '/stats', { key: t.key }));
      // Wait until the three are queued: a fourth extra request must be refused.
      let refused;
      for (let i = 0; i < 100; i++) {
        refused = await http(t.baseUrl, '/tokens', { key: t.key });
        if (refused.status === 503) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expectError(refused!, 503, 'SERVICE_UNAVAILABLE');
      expect(refused!.headers.get('retry-after')).toBe('1');
      expect(refused!.body.error).not.toMatch(/select|sqlite|at .*\.ts/i);
      gate.open();
      for (const r of await Promise.all([...running, ...queued])) expect(r.status).toBe(200);
      expect(gate.entered).toBe(5);
    } finally {
      gate.open();
      await t.close();
    }
  });

  test('a request waiting longer than the queue timeout → 503; public routes never wait', async () => {
    const base = await setupStore('sqlite');
    const gate = gateQuery(base, 'stats');
    const t = await buildTestApp({ store: gate.store, options: { concurrency: { maxConcurrent: 1, perKey: 100, maxQueue: 10, queueTimeoutMs: 200 } } });
    try {
      const running = http(t.baseUrl, '/stats', { key: t.key });
      await gate.waitEntered(1);
      const late = await http(t.baseUrl, '/tokens', { key: t.key });
      expectError(late, 503, 'SERVICE_UNAVAILABLE');
      expect((await http(t.baseUrl, '/health')).status).toBe(200);
      expect((await http(t.baseUrl, '/ready')).status).toBe(200);
      gate.open();
      expect((await running).status).toBe(200);
    } finally {
      gate.open();
      await t.close();
    }
  });
});
