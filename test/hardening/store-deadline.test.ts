/**
 * A store that stops answering (docs/hardening.md "Store deadline"), with the API built as `serve`
 * builds it (read-only store: reader threads on SQLite, a deadline-bound pool on PostgreSQL):
 * - PostgreSQL behind a TCP proxy that keeps connections open but forwards nothing;
 * - SQLite readers kept out by another connection's exclusive lock.
 * Requests answer 503 STORE_UNAVAILABLE within the deadline (+ generous slack), `/ready` 503,
 * `/health` 200 meanwhile; once the store answers again, so does the API, by itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, startServer } from '../../src/api/index.js';
import { createCommon } from '../../src/core/index.js';
import { createIdleSyncController } from '../../src/ingest/index.js';
import { createKeyService } from '../../src/keys/index.js';
import { createMemoryRateLimiter } from '../../src/ratelimit/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import type { StoreConfig } from '../../src/config/index.js';
import { generateFixture, loadFixture } from '../helpers/fixture.js';
import { startTcpProxy } from '../helpers/proxy.js';
import { holdExclusiveLock, useRollbackJournal } from '../helpers/sqlite-lock.js';
import { createTestDatabase, openWriterStore, testStore } from '../helpers/store.js';

const dialect = testStore();
/** The store deadline of these tests, ms (STORE_TIMEOUT_MS; 2000 by default). */
const DEADLINE_MS = 500;
/** Slack on top of the deadline for a loaded 2-core machine: the bound is what matters, not speed. */
const SLACK_MS = 3000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A fixture written by a writer store, two keys issued, then the API over a read-only store on
 * `apiConfig` (the same database, maybe through a proxy). Key records are reused for a minute,
 * so a request with `key` reaches the query; `otherKey` is looked up on its first use.
 */
async function world(prepare?: (config: StoreConfig) => Promise<StoreConfig>) {
  const db = createTestDatabase(dialect);
  cleanups.push(() => db.drop());
  const writer = await openWriterStore(db.config);
  const fixture = generateFixture({ seed: 11, games: 200, poolChanges: 20 });
  await loadFixture(writer, fixture);
  const issuer = createKeyService({ store: writer.keys, clock: createCommon().clock });
  const key = (await issuer.create({ name: 'a', tier: 'enterprise', rpm: 1_000_000, burst: 1_000_000 })).key;
  const otherKey = (await issuer.create({ name: 'b', tier: 'enterprise', rpm: 1_000_000, burst: 1_000_000 })).key;
  await writer.close();
  const apiConfig = prepare ? await prepare(db.config) : db.config;
  const common = createCommon();
  const store: Store = await createStore({ common, config: apiConfig, access: 'readonly', timeoutMs: DEADLINE_MS, readers: 2 });
  cleanups.push(() => store.close());
  const keys = createKeyService({ store: store.keys, clock: common.clock, recordTtlMs: 60_000 });
  const limiter = createMemoryRateLimiter({ clock: common.clock });
  const app = await buildApp({ common, store, keys, limiter, sync: createIdleSyncController(common.clock) });
  const server = await startServer({ app, host: '127.0.0.1', port: 0 });
  cleanups.push(async () => {
    await server.close();
    await limiter.close();
  });
  const get = async (path: string, k?: string) => {
    const started = Date.now();
    const res = await fetch(`${server.url}${path}`, { headers: k ? { 'X-API-Key': k } : {} });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) as any, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started, at: Date.now() };
  };
  return { db, fixture, key, otherKey, get };
}

function expectStoreUnavailable(res: { status: number; body: any; retryAfter: string | null; ms: number }) {
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ error: 'Store temporarily unavailable', code: 'STORE_UNAVAILABLE', timestamp: expect.any(String) });
  expect(res.retryAfter).toBe('1');
  expect(res.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 40_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.runIf(dialect === 'postgres')('PostgreSQL stalled (connections open, no bytes)', () => {
  it('answers 503 STORE_UNAVAILABLE within the deadline, /ready 503, /health 200; recovers when PostgreSQL answers again', async () => {
    let proxy!: Awaited<ReturnType<typeof startTcpProxy>>;
    const w = await world(async (config) => {
      const c = config as Extract<StoreConfig, { kind: 'postgres' }>;
      proxy = await startTcpProxy(c.url);
      cleanups.push(() => proxy.close());
      return { ...c, url: proxy.url };
    });
    const { get, key, otherKey, fixture } = w;
    const creator = fixture.creators[0]!;
    expect((await get('/stats', key)).status).toBe(200);
    expect((await get('/ready')).status).toBe(200);

    proxy.stall();
    // Pooled connections (already open) and new ones alike: a query, a key lookup, readiness.
    expectStoreUnavailable(await get(`/stats?creator=${creator}`, key));
    expectStoreUnavailable(await get(`/tokens`, key));
    expectStoreUnavailable(await get('/stats', otherKey));
    expectStoreUnavailable(await get('/ready'));
    expect((await get('/health')).status).toBe(200);
    // Still stalled a while later: every request keeps its bound (no connection left stuck for ever).
    for (let i = 0; i < 3; i++) expectStoreUnavailable(await get(`/players?limit=${i + 1}`, key));

    proxy.forward();
    await eventually(async () => (await get(`/stats?creator=${creator}`, key)).status === 200, 'queries to succeed again');
    await eventually(async () => (await get('/ready')).status === 200, '/ready to answer 200 again');
    expect((await get('/stats', otherKey)).status).toBe(200);
  });
});

describe.runIf(dialect === 'sqlite')('SQLite readers locked out (another connection\'s exclusive lock)', () => {
  it('answers 503 STORE_UNAVAILABLE within the deadline while the event loop keeps serving; recovers when the lock ends', async () => {
    let path = '';
    const w = await world(async (config) => {
      path = (config as Extract<StoreConfig, { kind: 'sqlite' }>).path;
      useRollbackJournal(path);
      return config;
    });
    const { get, key, otherKey, fixture } = w;
    const creator = fixture.creators[0]!;
    expect((await get('/stats', key)).status).toBe(200);
    expect((await get('/ready')).status).toBe(200);

    const lock = holdExclusiveLock(path);
    try {
      // A query waits on a reader thread: meanwhile the event loop answers /health at once.
      const waiting = get(`/stats?creator=${creator}`, key);
      const health = await get('/health');
      expect(health.status).toBe(200);
      const stats = await waiting;
      expectStoreUnavailable(stats);
      expect(health.at).toBeLessThanOrEqual(stats.at);
      expectStoreUnavailable(await get('/tokens', key));
      // Key lookups (this thread's connection) and readiness are bounded too.
      expectStoreUnavailable(await get('/stats', otherKey));
      expectStoreUnavailable(await get('/ready'));
    } finally {
      lock.release();
    }
    await eventually(async () => (await get(`/stats?creator=${creator}`, key)).status === 200, 'queries to succeed again');
    expect((await get('/ready')).status).toBe(200);
    expect((await get('/stats', otherKey)).status).toBe(200);
  });
});
