/**
 * Secrets and headers (docs/hardening.md): API keys never reach a log line (captured at trace level, grepped
 * for the key, its upper-case form and its SHA-256 hash), keys are compared in constant time,
 * no stack trace or SQL text in any answer (real store failures forced), security headers on
 * every answer, CORS as docs/design.md §4.
 */
import { createHash } from 'node:crypto';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp, startServer } from '../../src/api/index.js';
import { ManualClock, createCommon, createLogger } from '../../src/core/index.js';
import { createIdleSyncController } from '../../src/ingest/index.js';
import { createKeyService } from '../../src/keys/index.js';
import { createMemoryRateLimiter } from '../../src/ratelimit/index.js';
import { createStore } from '../../src/store/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS, call, expectError, http, opUrl } from '../helpers/api-operations.js';

const dir = mkdtempSync(join(tmpdir(), 'gamba-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The API over a real SQLite file, logging everything (trace) into `lines`. */
async function serveLogged(name: string) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(l);
      cb();
    },
  });
  const logger = createLogger({ level: 'trace', destination });
  const clock = new ManualClock(Date.now());
  const common = createCommon({ clock, logger });
  const path = join(dir, `${name}.db`);
  // As `serve` builds it: a read-write store issues the key, the API reads a read-only one (reader threads).
  const writer = await createStore({ common, config: { kind: 'sqlite', path } });
  const { key } = await createKeyService({ store: writer.keys, clock }).create({ name: 'secret-test', tier: 'enterprise', rpm: 100_000, burst: 100_000 });
  await writer.close();
  const store = await createStore({ common, config: { kind: 'sqlite', path }, access: 'readonly' });
  const keys = createKeyService({ store: store.keys, clock });
  const limiter = createMemoryRateLimiter({ clock });
  const app = await buildApp({ common, store, keys, limiter, sync: createIdleSyncController(clock) });
  const server = await startServer({ app, host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    key,
    /** The API's (read-only) store. */
    store,
    path,
    lines,
    metrics: common.metrics,
    async close() {
      await server.close();
      await limiter.close();
      await store.close();
    },
  };
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('keys never reach the logs', () => {
  let s: Awaited<ReturnType<typeof serveLogged>>;
  beforeAll(async () => {
    s = await serveLogged('logs');
  });
  afterAll(() => s.close());

  test('every way a key can be presented (valid, invalid, repeated, in the URL, on errors) leaves no trace of it', async () => {
    const other = 'ab'.repeat(32); // well-formed, unknown
    const upper = s.key.toUpperCase();
    for (const op of OPERATIONS) {
      await call(s.url, op, { key: s.key });
      await call(s.url, op, { headers: { authorization: `Bearer ${s.key}` } });
    }
    await http(s.url, '/stats', { headers: { 'x-api-key': upper } });
    await http(s.url, '/stats', { headers: { 'x-api-key': other } });
    await http(s.url, '/stats', { headers: { authorization: `Basic ${s.key}` } });
    await http(s.url, '/stats', { headers: [['x-api-key', s.key], ['x-api-key', other]] });
    await http(s.url, '/stats', { headers: { 'x-api-key': `${s.key}, ${other}` } });
    // Careless clients put keys in the URL: those are redacted from the logged URL too.
    await http(s.url, `/stats?apiKey=${s.key}`, { key: s.key });
    await http(s.url, `/nope?key=${s.key}`);
    await http(s.url, `/stats?creator=${s.key}`, { key: s.key });
    await http(s.url, `/player?user=${other}`, { key: s.key });
    await http(s.url, `/stats%ZZ?k=${s.key}`);
    expect(s.lines.length).toBeGreaterThan(50);
    const all = s.lines.join('\n');
    for (const secret of [s.key, upper, other, sha256(s.key), sha256(other)]) {
      const hit = s.lines.find((l) => l.toLowerCase().includes(secret.toLowerCase()));
      expect(hit, `a log line contains a key or its hash: ${hit}`).toBeUndefined();
    }
    // The lines still say what happened (a request id, the route), just not the key.
    expect(all).toContain('"request_id"');
    expect(all).toMatch(/authentication failed/);
  });
});

describe('no stack traces or SQL text in answers', () => {
  test('a real SQL failure (a table dropped under the API) → 500 generic body; details only in the log', async () => {
    const s = await serveLogged('sqlfail');
    try {
      const raw = new BetterSqlite3(s.path);
      raw.exec('DROP TABLE ru_ctp; DROP TABLE games;');
      raw.close();
      const seen = new Set<number>();
      for (const op of OPERATIONS) {
        const res = await call(s.url, op, { key: s.key });
        seen.add(res.status);
        expect(res.status, `${op.path}: ${res.text}`).toBeLessThan(600);
        if (res.status >= 500) {
          expectError(res, 500, 'INTERNAL_ERROR');
          expect(res.text).not.toMatch(/no such table|select |from |games|ru_ctp|sqlite|\.ts:\d+|at \w+ \(/i);
        }
      }
      expect(seen.has(500)).toBe(true);
      // The operator sees the cause, with the request id the client got.
      expect(s.lines.some((l) => l.includes('no such table') && l.includes('"request_id"'))).toBe(true);
    } finally {
      await s.close();
    }
  });

  test('a closed store → 503 on every operation and /ready, nothing internal in the body', async () => {
    const s = await serveLogged('closed');
    await s.store.close();
    for (const op of OPERATIONS) {
      const res = await call(s.url, op, { key: s.key });
      // The key lookup itself needs the store: 503 before anything else.
      expectError(res, 503, 'STORE_UNAVAILABLE');
      expect(res.text).not.toMatch(/database|connection|sqlite|\.ts:\d+/i);
    }
    expectError(await http(s.url, '/ready'), 503, 'STORE_UNAVAILABLE');
    expect((await http(s.url, '/health')).status).toBe(200);
    await s.close();
  });
});

describe('clients that go away', () => {
  test('an abandoned upload (headers and part of the body, then the socket destroyed) is neither logged nor counted as a store error', async () => {
    const s = await serveLogged('aborts');
    try {
      const u = new URL(s.url);
      const arrived = () => s.lines.filter((l) => l.includes('incoming request') && l.includes('"/sync"')).length;
      for (let i = 1; i <= 5; i++) {
        const socket = net.connect(Number(u.port), u.hostname);
        socket.on('error', () => undefined);
        await new Promise((r) => socket.once('connect', r));
        socket.write(`POST /sync HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"partial":`);
        // The server has the headers and is reading the body when the client goes.
        await expect.poll(arrived, { timeout: 10_000, interval: 10 }).toBe(i);
        socket.destroy();
      }
      await expect.poll(() => s.lines.filter((l) => l.includes('client closed the connection before the request was complete')).length, { timeout: 10_000 }).toBe(5);
      expect(s.lines.filter((l) => /store unavailable/i.test(l))).toEqual([]);
      expect(s.lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 40)).toEqual([]);
      const metrics = await s.metrics.registry.getSingleMetricAsString('http_requests_total');
      expect(metrics).not.toMatch(/status="5\d\d"/);
      expect((await http(s.url, '/status', { key: s.key })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('headers', () => {
  let s: Awaited<ReturnType<typeof serveLogged>>;
  beforeAll(async () => {
    s = await serveLogged('headers');
  });
  afterAll(() => s.close());

  test('security headers on answers of every kind', async () => {
    const answers = [
      await http(s.url, '/stats', { key: s.key }),
      await http(s.url, '/stats'),
      await http(s.url, '/nope'),
      await http(s.url, '/health'),
      await http(s.url, '/openapi.json'),
      await http(s.url, '/stats?limit=1&limit=2&creator=x', { key: s.key }),
    ];
    for (const r of answers) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.headers.get('cache-control')).toBeTruthy();
      // JSON answers carry no document policies (docs/hardening.md "Security headers").
      for (const h of ['x-frame-options', 'referrer-policy', 'content-security-policy', 'cross-origin-opener-policy']) expect(r.headers.get(h), h).toBeNull();
      expect(r.headers.get('x-powered-by')).toBeNull();
      expect(r.headers.get('server')).toBeNull();
    }
    // The docs UI (HTML) can run its own scripts but still cannot be framed, and keeps the document policies.
    const docs = await fetch(`${s.url}/docs/`);
    expect(docs.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(docs.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(docs.headers.get('x-frame-options')).toBe('DENY');
    expect(docs.headers.get('referrer-policy')).toBe('no-referrer');
    expect(docs.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
  });

  test('CORS as docs/design.md §4: any origin, X-API-Key and Authorization allowed, rate-limit headers exposed', async () => {
    const pre = await fetch(`${s.url}/stats`, {
      method: 'OPTIONS',
      headers: { origin: 'https://dash.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key, authorization' },
    });
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    expect(allowed).toContain('x-api-key');
    expect(allowed).toContain('authorization');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const get = await fetch(`${s.url}/stats`, { headers: { origin: 'https://dash.example', 'x-api-key': s.key } });
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    expect((get.headers.get('access-control-expose-headers') ?? '').toLowerCase()).toContain('x-ratelimit-remaining');
    expect(get.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

test('keys are compared in constant time and only by hash (src/keys)', () => {
  const material = readFileSync(new URL('../../src/keys/material.ts', import.meta.url), 'utf8');
  const service = readFileSync(new URL('../../src/keys/service.ts', import.meta.url), 'utf8');
  expect(material).toMatch(/timingSafeEqual/);
  expect(service).toMatch(/sameHash\(record\.keyHash, hash\)/);
  // No plain string comparison of hashes or keys anywhere in the key service.
  expect(service).not.toMatch(/keyHash\s*===|===\s*record\.keyHash/);
});

test('opUrl sanity (the operations list covers the spec, the pool directory, LP returns, house edge, /usage and the two audits)', () => {
  expect(OPERATIONS.length).toBe(26);
  expect(opUrl(OPERATIONS[4]!)).toContain('user=');
});
