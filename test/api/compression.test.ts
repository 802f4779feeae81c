/**
 * Compression (docs/design.md §11): br and gzip bodies decode to exactly the identity answer;
 * answers under 1 KB go uncompressed; the response cache keeps and serves its compressed form
 * again (same bytes, same per-encoding ETag, 304 on it); every answer says Vary: Accept-Encoding;
 * exports stream compressed. Raw node:http requests: fetch would negotiate and decode by itself.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { generateFixture, loadFixture } from '../helpers/fixture.js';
import { setupStore } from '../helpers/store.js';

let cached: TestApp;
let plain: TestApp;

beforeAll(async () => {
  const fixture = generateFixture({ seed: 77, games: 800, poolChanges: 50 });
  const store = await setupStore('sqlite');
  await loadFixture(store, fixture);
  cached = await buildTestApp({ store, clock: new ManualClock(fixture.nowMs), options: { cache: { ttlMs: 5000 } } });
  plain = await buildTestApp({ store, clock: new ManualClock(fixture.nowMs) });
}, 120_000);
afterAll(async () => {
  await cached?.close();
  await plain?.close();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(app: TestApp, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${app.baseUrl}${path}`, { headers: { 'X-API-Key': app.key, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decode(r: Raw): string {
  const enc = r.headers['content-encoding'];
  if (enc === 'br') return brotliDecompressSync(r.body).toString('utf8');
  if (enc === 'gzip') return gunzipSync(r.body).toString('utf8');
  expect(enc).toBeUndefined();
  return r.body.toString('utf8');
}

const varyOf = (r: Raw) => String(r.headers.vary ?? '').toLowerCase();

describe.each([
  ['without the cache', () => plain],
  ['with the cache', () => cached],
])('compression %s', (_name, app) => {
  it('gzip and br bodies decode to the identity JSON', async () => {
    for (const path of ['/players?limit=500&sortBy=usd_volume', '/events/settledGames?itemsPerPage=200', '/chart/plays']) {
      const identity = await get(app(), path, { 'Accept-Encoding': 'identity' });
      expect(identity.status).toBe(200);
      expect(identity.headers['content-encoding']).toBeUndefined();
      expect(identity.body.length).toBeGreaterThan(1024);
      const text = identity.body.toString('utf8');
      for (const [accept, enc] of [['gzip', 'gzip'], ['br', 'br'], ['gzip, deflate, br', 'br'], ['br;q=0, gzip', 'gzip'], ['*', 'br']] as const) {
        const r = await get(app(), path, { 'Accept-Encoding': accept });
        expect(r.status, `${path} ${accept}`).toBe(200);
        expect(r.headers['content-encoding'], `${path} ${accept}`).toBe(enc);
        expect(r.body.length).toBeLessThan(identity.body.length);
        expect(decode(r)).toBe(text);
        expect(JSON.parse(decode(r))).toEqual(JSON.parse(text));
        expect(varyOf(r)).toContain('accept-encoding');
      }
      expect(varyOf(identity)).toContain('accept-encoding');
    }
  });

  it('small answers are not compressed', async () => {
    const r = await get(app(), '/tokens?limit=1', { 'Accept-Encoding': 'gzip, br' });
    expect(r.status).toBe(200);
    expect(r.body.length).toBeLessThan(1024);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(r.body.toString('utf8')).results).toHaveLength(1);
    expect(varyOf(r)).toContain('accept-encoding');
    const err = await get(app(), '/players?limit=0', { 'Accept-Encoding': 'gzip' });
    expect(err.status).toBe(400);
    expect(err.headers['content-encoding']).toBeUndefined();
  });

  it('exports stream compressed', async () => {
    const identity = await get(app(), '/events/settledGames?format=ndjson', { 'Accept-Encoding': 'identity' });
    const gz = await get(app(), '/events/settledGames?format=ndjson', { 'Accept-Encoding': 'gzip' });
    const br = await get(app(), '/events/settledGames', { 'Accept-Encoding': 'br', Accept: 'text/csv' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(decode(gz)).toBe(identity.body.toString('utf8'));
    expect(decode(br).split('\r\n').length - 2).toBe(identity.body.toString('utf8').split('\n').length - 1);
    expect(decode(gz).split('\n').length).toBeGreaterThan(800);
  });
});

describe('the cache keeps the compressed form', () => {
  it('a cached compressed answer is served again: same bytes, its own ETag, 304 on it', async () => {
    const path = '/players?limit=300&sortBy=usd_profit&creator=' + (await get(plain, '/platforms?limit=1').then((r) => JSON.parse(decode(r)).results[0].creator));
    const first = await get(cached, path, { 'Accept-Encoding': 'br' });
    const second = await get(cached, path, { 'Accept-Encoding': 'br' });
    const third = await get(cached, path, { 'Accept-Encoding': 'br' }); // by raw target: the fast path
    const gz = await get(cached, path, { 'Accept-Encoding': 'gzip' });
    const identity = await get(cached, path, { 'Accept-Encoding': 'identity' });
    for (const r of [first, second, third]) {
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBe('br');
      expect(r.body.equals(first.body)).toBe(true);
      expect(r.headers.etag).toBe(first.headers.etag);
      expect(varyOf(r)).toContain('accept-encoding');
    }
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(decode(gz)).toBe(identity.body.toString('utf8'));
    expect(decode(first)).toBe(identity.body.toString('utf8'));
    // Each representation has its own strong ETag.
    expect(new Set([first.headers.etag, gz.headers.etag, identity.headers.etag]).size).toBe(3);
    const notModified = await get(cached, path, { 'Accept-Encoding': 'br', 'If-None-Match': String(first.headers.etag) });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    const otherEncoding = await get(cached, path, { 'Accept-Encoding': 'gzip', 'If-None-Match': String(first.headers.etag) });
    expect(otherEncoding.status).toBe(200);
    expect(otherEncoding.headers['content-encoding']).toBe('gzip');
  });
});
