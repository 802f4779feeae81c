/**
 * The cheap request path of docs/benchmarks.md (cached throughput) keeps every documented behaviour:
 * - auth and the per-key rate limit answer the same whether the limiter and the key service
 *   answer synchronously (in-process limiter, key records reused for `recordTtlMs`, as `serve`
 *   runs) or through promises (a limiter without the `sync` facet, like Redis; no record reuse);
 * - the response cache's raw-target lookup (before validation) still runs after auth and the
 *   rate limit, carries every header a full answer carries, never turns an invalid query valid,
 *   and HEAD answers keep their ETag;
 * - /status and /sync/status reuse the store's counters (and /status the latest coverage run) for
 *   at most 1 s, never across an in-process write, and not at all without the response cache.
 * Real store, real sockets, real limiter and key service (no mocks).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ApiOptions, type RunningServer, buildApp, startServer } from '../../src/api/index.js';
import { type Common, ManualClock, createCommon, createLogger } from '../../src/core/index.js';
import { createIdleSyncController } from '../../src/ingest/index.js';
import { type KeyService, createKeyService } from '../../src/keys/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { type RateLimiter, createMemoryRateLimiter } from '../../src/ratelimit/index.js';
import { type CoverageResult, type Store, createStore } from '../../src/store/index.js';
import { loadFixture } from '../helpers/contract-world.js';
import { type Fixture, generateFixture } from '../helpers/fixture.js';
import { expectError, http } from '../helpers/api-operations.js';

interface Served {
  url: string;
  clock: ManualClock;
  common: Common;
  keys: KeyService;
  store: Store;
  close(): Promise<void>;
}

/** The API over `store` with the given limiter facet and key-record reuse, on a real socket. */
async function serve(o: { store: Store; clock: ManualClock; syncLimiter: boolean; recordTtlMs: number; options?: ApiOptions; logLines?: Record<string, unknown>[] }): Promise<Served> {
  const lines = o.logLines;
  // With logLines: every log line, parsed, at level info (as `serve` logs by default).
  const logger = lines === undefined
    ? createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' })
    : createLogger({ level: 'info', destination: new Writable({ write: (chunk, _enc, cb) => cb(void lines.push(...String(chunk).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)))) }) });
  const common = createCommon({ clock: o.clock, logger });
  const memory = createMemoryRateLimiter({ clock: o.clock });
  // The same real limiter, seen only through its promise interface (as a shared limiter would be).
  const limiter: RateLimiter = o.syncLimiter ? memory : { consume: memory.consume, peek: memory.peek, close: memory.close };
  const keys = createKeyService({ store: o.store.keys, clock: o.clock, recordTtlMs: o.recordTtlMs });
  const app = await buildApp({ common, store: o.store, keys, limiter, sync: createIdleSyncController(o.clock), options: o.options });
  const server: RunningServer = await startServer({ app, host: '127.0.0.1', port: 0 });
  return { url: server.url, clock: o.clock, common, keys, store: o.store, close: () => server.close() };
}

let dir: string;
let fixture: Fixture;
let store: Store;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gamba-hot-'));
  fixture = generateFixture({ seed: 11, games: 200, poolChanges: 20 });
  store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
  await loadFixture(store, fixture);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  { name: 'synchronous limiter, key records reused', syncLimiter: true, recordTtlMs: 5_000 },
  { name: 'promise-only limiter, no record reuse', syncLimiter: false, recordTtlMs: 0 },
])('auth and rate limit: $name', ({ syncLimiter, recordTtlMs }) => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({ store, clock: new ManualClock(fixture.nowMs), syncLimiter, recordTtlMs, options: { authFailureLimits: { rpm: 6, burst: 3 } } });
  });
  afterAll(() => s.close());

  test('the per-IP failure guard: 3 failures, then 429 without checking even a good key; refills', async () => {
    const good = (await s.keys.create({ name: 'good', tier: 'standard' })).key;
    expect((await http(s.url, '/stats', { key: good })).status).toBe(200);
    const bad = 'ef'.repeat(32);
    for (let i = 0; i < 3; i++) expectError(await http(s.url, '/stats', { key: bad }), 401, 'UNAUTHORIZED');
    const blocked = await http(s.url, '/stats', { key: good });
    expectError(blocked, 429, 'RATE_LIMITED');
    expect(blocked.body.retryAfter).toBe(10);
    expectError(await http(s.url, '/stats', { key: 'not a key' }), 429, 'RATE_LIMITED');
    expectError(await http(s.url, '/stats'), 401, 'MISSING_API_KEY');
    s.clock.advance(10_000);
    expect((await http(s.url, '/stats', { key: good })).status).toBe(200);
    expectError(await http(s.url, '/stats', { key: 'not a key' }), 401, 'UNAUTHORIZED');
    expectError(await http(s.url, '/stats', { key: good }), 429, 'RATE_LIMITED');
    s.clock.advance(60_000);
  });

  test('the key bucket: headers on every answer, 429 after the burst, cached answers included', async () => {
    const key = (await s.keys.create({ name: 'small', tier: 'enterprise', rpm: 60, burst: 3 })).key;
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await http(s.url, '/stats', { key });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('60');
      remaining.push(r.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const denied = await http(s.url, '/stats', { key });
    expectError(denied, 429, 'RATE_LIMITED');
    expect(denied.headers.get('retry-after')).toBe('1');
    expect(denied.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  test('a revoked key stops working at once in this process, and is 401 like any bad key', async () => {
    const { id, key } = await s.keys.create({ name: 'revoked', tier: 'standard' });
    expect((await http(s.url, '/stats', { key })).status).toBe(200);
    await s.keys.revoke(id);
    expectError(await http(s.url, '/stats', { key }), 401, 'UNAUTHORIZED');
    s.clock.advance(60_000);
  });
});

describe('response cache: the raw-target lookup', () => {
  let s: Served;
  let key: string;
  beforeAll(async () => {
    s = await serve({ store, clock: new ManualClock(fixture.nowMs), syncLimiter: true, recordTtlMs: 5_000, options: { cache: { ttlMs: 5_000 } } });
    key = (await s.keys.create({ name: 'cache', tier: 'enterprise', rpm: 1_000, burst: 1_000 })).key;
  });
  afterAll(() => s.close());

  /**
   * Every header a cached answer carries (docs/design.md §5 "Response headers"); Node adds date,
   * connection and keep-alive.
   */
  const CACHED_ANSWER_HEADERS = [
    'access-control-allow-origin', 'access-control-expose-headers', 'cache-control', 'connection', 'content-length', 'content-type', 'date', 'etag', 'keep-alive', 'ratelimit', 'ratelimit-policy', 'vary',
    'x-content-type-options', 'x-indexed-slot', 'x-indexed-time', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id',
  ];

  test('a repeated target is a hit with every header of a full answer; auth, rate limit and metrics still run', async () => {
    const url = `/players?limit=3&creator=${fixture.creators[0]}`;
    const first = await http(s.url, url, { key });
    const second = await http(s.url, url, { key });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    // The hit is written without Fastify's send path: the same header names, no more, no fewer.
    expect([...second.headers.keys()].sort()).toEqual([...first.headers.keys()].sort());
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(second.headers.get('cache-control')).toMatch(/^private, max-age=[0-5]$/);
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.headers.get('content-length')).toBe(String(Buffer.byteLength(first.text)));
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    expect(second.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(second.headers.get('access-control-allow-origin')).toBe('*');
    expect(second.headers.get('x-content-type-options')).toBe('nosniff');
    // Nothing a client does not use: the header set of a hit is exactly the documented one (plus CORS' for an Origin).
    const plain = await http(s.url, url, { key });
    expect([...plain.headers.keys()].sort()).toEqual(CACHED_ANSWER_HEADERS);
    // Auth first: the same target without a key, or with a bad one, is refused.
    expectError(await http(s.url, url), 401, 'MISSING_API_KEY');
    expectError(await http(s.url, url, { key: 'ab'.repeat(32) }), 401, 'UNAUTHORIZED');
    // Every answer was counted under the route pattern (never the raw URL).
    const text = await s.common.metrics.registry.metrics();
    expect(text).toMatch(/http_requests_total\{route="\/players",method="GET",status="200"\} 3\b/);
    expect(text).toMatch(/http_requests_total\{route="\/players",method="GET",status="401"\} 2\b/);
    expect(text).toMatch(/http_request_duration_seconds_count\{route="\/players",method="GET"\} 5\b/);
    expect(text).not.toContain('creator=');
  });

  /** Answers the hit lane has given so far (plugins/hit-lane.ts). */
  const laneAnswers = async (x: Served = s): Promise<number> => (await x.common.metrics.hitLaneAnswers.get()).values[0]?.value ?? 0;
  /** Headers that differ between any two answers: per request (id, date, bucket state) or per second (remaining age). */
  const PER_REQUEST = new Set(['x-request-id', 'date', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'cache-control']);
  const stable = (h: Headers): [string, string][] => [...h.entries()].filter(([k]) => !PER_REQUEST.has(k)).sort(([a], [b]) => a.localeCompare(b));

  test('the hit lane answers a repeated plain GET before Fastify, with the values of the full answer', async () => {
    const url = `/players?limit=2&creator=${fixture.creators[1]}`;
    const before = await laneAnswers();
    const full = await http(s.url, url, { key });
    expect(await laneAnswers()).toBe(before);
    const hit = await http(s.url, url, { key });
    expect(await laneAnswers()).toBe(before + 1);
    expect(hit.status).toBe(200);
    expect(hit.text).toBe(full.text);
    expect(stable(hit.headers)).toEqual(stable(full.headers));
    expect(Number(hit.headers.get('x-ratelimit-remaining'))).toBe(Number(full.headers.get('x-ratelimit-remaining')) - 1);
    expect(hit.headers.get('ratelimit')).toBe(`"enterprise";r=${hit.headers.get('x-ratelimit-remaining')};t=${Number(hit.headers.get('x-ratelimit-reset')) - Math.floor(s.clock.now() / 1000)}`);
    // Compressed representations too: the same bytes and tag as the pipeline's.
    const gz = { key, headers: { 'accept-encoding': 'gzip' } };
    const gzFull = await http(s.url, `/players?limit=25`, gz);
    const gzHit = await http(s.url, `/players?limit=25`, gz);
    expect(gzFull.headers.get('content-encoding')).toBe('gzip');
    expect(await laneAnswers()).toBe(before + 2);
    expect(stable(gzHit.headers)).toEqual(stable(gzFull.headers));
    expect(gzHit.text).toBe(gzFull.text);
    // The hits are counted in the key's usage and the metrics under the route pattern.
    const used = await http(s.url, '/usage', { key });
    expect(used.body.today.operations.getPlayers).toBeGreaterThanOrEqual(4);
  });

  test('the hit lane leaves to Fastify every request it would not answer exactly as the pipeline does', async () => {
    const url = '/players?limit=7';
    expect((await http(s.url, url, { key })).status).toBe(200);
    const before = await laneAnswers();
    const etag = (await http(s.url, url, { key })).headers.get('etag')!;
    expect(await laneAnswers()).toBe(before + 1);
    // 304s, exports, HEAD, no key, bad keys, another scope, publishable keys: the pipeline answers.
    expect((await http(s.url, url, { key, headers: { 'if-none-match': etag } })).status).toBe(304);
    const csv = await http(s.url, url, { key, headers: { accept: 'text/csv' } });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect((await http(s.url, url, { key, method: 'HEAD' })).status).toBe(200);
    expectError(await http(s.url, url), 401, 'MISSING_API_KEY');
    expectError(await http(s.url, url, { key: 'cd'.repeat(32) }), 401, 'UNAUTHORIZED');
    const streamOnly = (await s.keys.create({ name: 'stream-only', tier: 'standard', scopes: ['stream'] })).key;
    // Twice: the second time its record is known to the key service, as the lane needs.
    for (let i = 0; i < 2; i++) expectError(await http(s.url, url, { key: streamOnly }), 403, 'INSUFFICIENT_SCOPE');
    const browser = (await s.keys.create({ name: 'browser', publishable: true, origins: ['https://casino.example'] })).key;
    const fromPage = await http(s.url, url, { key: browser, headers: { origin: 'https://casino.example' } });
    expect(fromPage.status).toBe(200);
    expect(fromPage.headers.get('access-control-allow-origin')).toBe('https://casino.example');
    expectError(await http(s.url, url, { key: browser }), 403, 'ORIGIN_NOT_ALLOWED');
    expect(await laneAnswers()).toBe(before + 1);
    // A key past its burst: the lane takes nothing from the empty bucket and the pipeline answers 429.
    const small = (await s.keys.create({ name: 'lane-small', tier: 'enterprise', rpm: 60, burst: 2 })).key;
    // A key's first request is verified against the store by the pipeline; /usage is free (no token).
    expect((await http(s.url, '/usage', { key: small })).status).toBe(200);
    const remaining = [];
    for (let i = 0; i < 2; i++) remaining.push((await http(s.url, url, { key: small })).headers.get('x-ratelimit-remaining'));
    expect(remaining).toEqual(['1', '0']);
    expect(await laneAnswers()).toBe(before + 3);
    const denied = await http(s.url, url, { key: small });
    expectError(denied, 429, 'RATE_LIMITED');
    expect(denied.headers.get('retry-after')).toBe('1');
    s.clock.advance(1_000);
    const again = await http(s.url, url, { key: small });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await laneAnswers()).toBe(before + 4);
  });

  test('the hit lane leaves a client IP past its failed-authentication limit to the pipeline (429, even with a good key)', async () => {
    const guarded = await serve({ store, clock: new ManualClock(fixture.nowMs), syncLimiter: true, recordTtlMs: 5_000, options: { cache: { ttlMs: 5_000 }, authFailureLimits: { rpm: 6, burst: 3 } } });
    try {
      const k = (await guarded.keys.create({ name: 'guarded', tier: 'standard' })).key;
      for (let i = 0; i < 2; i++) expect((await http(guarded.url, '/stats', { key: k })).status).toBe(200);
      // The first is computed (and has the key verified against the store); the second is the lane's.
      expect(await laneAnswers(guarded)).toBe(1);
      for (let i = 0; i < 3; i++) expectError(await http(guarded.url, '/stats', { key: 'ef'.repeat(32) }), 401, 'UNAUTHORIZED');
      expectError(await http(guarded.url, '/stats', { key: k }), 429, 'RATE_LIMITED');
      expect(await laneAnswers(guarded)).toBe(1);
    } finally {
      await guarded.close();
    }
  });

  test('the hit lane logs a request as Fastify does at level info: the same two lines, the same fields, never the key', async () => {
    const lines: Record<string, unknown>[] = [];
    const logged = await serve({ store, clock: new ManualClock(fixture.nowMs), syncLimiter: true, recordTtlMs: 5_000, options: { cache: { ttlMs: 5_000 } }, logLines: lines });
    try {
      const k = (await logged.keys.create({ name: 'logged', tier: 'standard' })).key;
      const url = `/total?pool=${Object.values(fixture.pools)[0]}`;
      const full = await http(logged.url, url, { key: k });
      const hit = await http(logged.url, url, { key: k });
      expect(await laneAnswers(logged)).toBe(1);
      const of = (id: string | null) => lines.filter((l) => l.request_id === id);
      const [fullLines, hitLines] = [of(full.headers.get('x-request-id')), of(hit.headers.get('x-request-id'))];
      expect(hitLines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
      expect(fullLines.map((l) => l.msg)).toEqual(hitLines.map((l) => l.msg));
      for (let i = 0; i < 2; i++) expect(Object.keys(hitLines[i]!).sort()).toEqual(Object.keys(fullLines[i]!).sort());
      // The same fields and values; the port is the client socket's (fetch may open another).
      const req = (l: Record<string, unknown>) => l.req as Record<string, unknown>;
      expect(typeof req(hitLines[0]!).remotePort).toBe('number');
      expect({ ...req(hitLines[0]!), remotePort: 0 }).toEqual({ ...req(fullLines[0]!), remotePort: 0 });
      expect(hitLines[1]!.res).toEqual({ statusCode: 200 });
      expect(typeof hitLines[1]!.responseTime).toBe('number');
      expect(JSON.stringify(lines)).not.toContain(k);
    } finally {
      await logged.close();
    }
  });

  test('the hit lane is shut behind a trusted proxy (the client address needs the proxy rules)', async () => {
    const proxied = await serve({ store, clock: new ManualClock(fixture.nowMs), syncLimiter: true, recordTtlMs: 5_000, options: { cache: { ttlMs: 5_000 }, trustProxy: true } });
    try {
      const k = (await proxied.keys.create({ name: 'proxied', tier: 'standard' })).key;
      const [a, b] = [await http(proxied.url, '/stats', { key: k }), await http(proxied.url, '/stats', { key: k })];
      expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
      expect(await laneAnswers(proxied)).toBe(0);
    } finally {
      await proxied.close();
    }
  });

  test('concurrent misses of one answer: the others wait for the first and get its bytes', async () => {
    // As `serve` runs: a read-only store whose reads run on reader threads, so other requests
    // arrive while one computes (the read-write store of the other tests reads synchronously).
    const ro = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') }, access: 'readonly', readers: 2 });
    const api = await serve({ store: ro, clock: new ManualClock(fixture.nowMs), syncLimiter: true, recordTtlMs: 5_000, options: { cache: { ttlMs: 5_000 } } });
    const k = (await createKeyService({ store: store.keys, clock: api.clock }).create({ name: 'coalesced', tier: 'enterprise', rpm: 1_000, burst: 1_000 })).key;
    const coalesced = async () => (await api.common.metrics.cacheCoalesced.get()).values[0]?.value ?? 0;
    try {
      // Whether a request arrives while the first one computes depends on timing: a few fresh targets, until one does.
      for (let round = 0; round < 6 && (await coalesced()) === 0; round++) {
        const url = `/players?limit=${30 + round}&sortBy=usd_volume`;
        const answers = await Promise.all(Array.from({ length: 8 }, () => http(api.url, url, { key: k })));
        for (const a of answers) {
          expect(a.status).toBe(200);
          expect(a.text).toBe(answers[0]!.text);
          expect(a.headers.get('etag')).toBe(answers[0]!.headers.get('etag'));
        }
        expect(answers[0]!.body.results.length).toBeGreaterThan(0);
      }
      expect(await coalesced()).toBeGreaterThan(0);
    } finally {
      await api.close();
      await ro.close();
    }
  });

  test('per-key and process-state answers are never cached: /usage answers each key its own, under /v1 too', async () => {
    const other = (await s.keys.create({ name: 'cache-other', tier: 'standard' })).key;
    for (const path of ['/usage', '/v1/usage']) {
      const mine = await http(s.url, path, { key });
      const theirs = await http(s.url, path, { key: other });
      expect(mine.body.key.name).toBe('cache');
      expect(theirs.body.key.name).toBe('cache-other');
      expect(theirs.headers.get('etag')).toBeNull();
    }
    for (const path of ['/status', '/v1/status', '/sync/status', '/v1/sync/status']) {
      await http(s.url, path, { key });
      const again = await http(s.url, path, { key });
      expect(again.status).toBe(200);
      expect(again.headers.get('etag')).toBeNull();
      expect(again.headers.get('cache-control')).toBe('no-store');
    }
  });

  test('an invalid target stays a 400 whatever valid target is cached', async () => {
    const url = '/players?limit=4';
    expect((await http(s.url, url, { key })).status).toBe(200);
    expect((await http(s.url, url, { key })).status).toBe(200);
    for (const bad of ['/players?limit=4&limit=4', '/players?limit=04x', '/players?limit=4&sortBy=token_volume', '/players?limit=0x4']) {
      const r = await http(s.url, bad, { key });
      expectError(r, 400, 'INVALID_PARAMETER');
      expect(r.headers.get('etag')).toBeNull();
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
  });

  test('If-None-Match on a hit → 304 with the tag; HEAD answers carry the tag and no body', async () => {
    const url = '/players?limit=5';
    const full = await http(s.url, url, { key });
    const etag = full.headers.get('etag')!;
    const nm = await http(s.url, url, { key, headers: { 'if-none-match': etag } });
    expect(nm.status).toBe(304);
    expect(nm.text).toBe('');
    expect(nm.headers.get('etag')).toBe(etag);
    const head = await http(s.url, url, { key, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('etag')).toBe(etag);
    // The length GET would send for the same request (compressed when fetch accepts it: docs/design.md §11).
    expect(head.headers.get('content-length')).toBe(full.headers.get('content-length'));
    expect(head.headers.get('content-encoding')).toBe(full.headers.get('content-encoding'));
    // A HEAD that misses the cache (a new query) still gets its tag.
    const headMiss = await http(s.url, '/players?limit=6', { key, method: 'HEAD' });
    expect(headMiss.status).toBe(200);
    expect(headMiss.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(headMiss.headers.get('cache-control')).toBe('private, max-age=5');
  });
});

/** A settled game by a brand-new player, 10 s before the fixture's now. */
function newGame(n: number): LocatedEvent {
  const template = fixture.events.find((e) => e.name === 'GameSettled')!;
  if (template.name !== 'GameSettled') throw new Error('unreachable');
  const sig = template.signature.slice(0, -6) + String(100000 + n).slice(-6).replace(/0/g, 'z');
  return { ...template, signature: sig, slot: template.slot + 20_000_000 + n, blockTime: fixture.nowMs / 1000 - 10, eventIndex: 0, data: { ...template.data, user: fixture.edgeOutUser } };
}

describe('/status and /sync/status counters', () => {
  let cached: Served;
  let live: Served;
  let key: string;
  let liveKey: string;
  let n = 0;
  beforeAll(async () => {
    const clock = new ManualClock(fixture.nowMs);
    cached = await serve({ store, clock, syncLimiter: true, recordTtlMs: 5_000, options: { cache: { ttlMs: 5_000 } } });
    live = await serve({ store, clock, syncLimiter: true, recordTtlMs: 5_000 });
    key = (await cached.keys.create({ name: 'status', tier: 'enterprise', rpm: 1_000, burst: 1_000 })).key;
    liveKey = (await live.keys.create({ name: 'status-live', tier: 'enterprise', rpm: 1_000, burst: 1_000 })).key;
  });
  afterAll(async () => {
    await cached.close();
    await live.close();
  });

  const games = async (s: Served, k: string) => {
    const [a, b] = [await http(s.url, '/status', { key: k }), await http(s.url, '/sync/status', { key: k })];
    expect(a.status).toBe(200);
    expect(a.headers.get('etag')).toBeNull();
    expect(a.headers.get('cache-control')).toBe('no-store');
    expect(b.body.data.totalGames).toBe(a.body.totalGames);
    return a.body.totalGames as number;
  };

  test("another process's write shows within 1 s (at once without the response cache)", async () => {
    const before = await games(cached, key);
    expect(await games(live, liveKey)).toBe(before);
    const other = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
    const g = newGame(++n);
    await other.writeBatch({ events: [g], signatures: [{ signature: g.signature, slot: g.slot, blockTime: g.blockTime, failed: false }] });
    await other.close();
    expect(await games(live, liveKey), 'no response cache: live').toBe(before + 1);
    cached.clock.advance(999);
    expect(await games(cached, key), 'within 1 s').toBe(before);
    cached.clock.advance(1);
    expect(await games(cached, key), 'after 1 s').toBe(before + 1);
  });

  test('a write by this process shows at once', async () => {
    const before = await games(cached, key);
    const g = newGame(++n);
    await store.writeBatch({ events: [g], signatures: [{ signature: g.signature, slot: g.slot, blockTime: g.blockTime, failed: false }] });
    expect(await games(cached, key)).toBe(before + 1);
  });

  test("the latest coverage run follows the same rules: another process's within 1 s, this process's at once", async () => {
    const lastVerifiedAt = async (s: Served, k: string) => {
      const r = await http(s.url, '/status', { key: k });
      expect(r.status).toBe(200);
      return r.body.coverage.lastVerifiedAt as string | null;
    };
    // A verification run with no differences, finished at `atMs` (Unix ms).
    const run = (atMs: number, gaps: number): CoverageResult => ({
      run: { verifiedAtMs: atMs, sinceDay: 20_000, untilDay: 20_001, fromSlot: 1, toSlot: 2, daysVerified: 2, completeSinceDay: gaps === 0 ? 20_000 : null, completeThroughDay: gaps === 0 ? 20_001 : null, chainSignatures: 0, storeSignatures: 0, gaps, surpluses: 0, listed: 0, durationMs: 1 },
      days: [],
      diffs: [],
    });
    const before = await lastVerifiedAt(cached, key);
    const other = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
    const first = fixture.nowMs + 3_600_000 + ++n;
    await other.putCoverage(run(first, 2));
    await other.close();
    expect(await lastVerifiedAt(live, liveKey), 'no response cache: live').toBe(new Date(first).toISOString());
    cached.clock.advance(999);
    expect(await lastVerifiedAt(cached, key), 'within 1 s').toBe(before);
    cached.clock.advance(1);
    expect(await lastVerifiedAt(cached, key), 'after 1 s').toBe(new Date(first).toISOString());
    const second = first + 60_000;
    await store.putCoverage(run(second, 0));
    expect(await lastVerifiedAt(cached, key), 'this process').toBe(new Date(second).toISOString());
  });
});
