import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type ApiOptions, buildApp, startServer } from '../../src/api/index.js';
import { type Clock, ManualClock, createCommon, createLogger } from '../../src/core/index.js';
import { type IndexerEvents, type SyncController, createIdleSyncController } from '../../src/ingest/index.js';
import { type KeyService, createKeyService } from '../../src/keys/index.js';
import { type RateLimiter, createMemoryRateLimiter } from '../../src/ratelimit/index.js';
import { type Store, type Tier } from '../../src/store/index.js';
import { openWriterStore, readonlyTwin } from './store.js';

export interface TestApp<C extends Clock = ManualClock> {
  /** e.g. http://127.0.0.1:41234 — a real socket. */
  baseUrl: string;
  app: FastifyInstance;
  /** The writer store (fixtures, keys): the one given, or this helper's own. */
  store: Store;
  /** The store the API reads: `store`'s read-only twin (reader pool), or `store` itself when it has none. */
  apiStore: Store;
  clock: C;
  keys: KeyService;
  limiter: RateLimiter;
  /** An enterprise key with rpm/burst 1 000 000, so contract tests are never throttled. */
  key: string;
  /** Issues another key; returns the key text. */
  createKey(opts: { tier: Tier; rpm?: number; burst?: number; expiresAt?: number; name?: string }): Promise<string>;
  /** Closes the server (and the store when this helper created it). */
  close(): Promise<void>;
}

export interface TestAppOptions<C extends Clock> {
  /**
   * The writer store. Defaults to a fresh migrated SQLite store in a temp dir, closed and deleted
   * by close(). The API reads it through its read-only twin (test/helpers/store.ts readonlyTwin),
   * as `serve` does, when the store was opened by the helpers; a wrapped store is used as it is.
   */
  store?: Store;
  /** Read-only twin settings: reader threads, store deadline (ms). `false`: the API reads `store` directly. */
  readers?: { readers?: number; timeoutMs?: number } | false;
  /** A store the API reads instead of `store`'s twin (e.g. one behind a TCP proxy); the caller closes it. */
  apiStore?: Store;
  /** KeyService record reuse of the API, ms (default 0: every request looks its key up, as before). */
  keyRecordTtlMs?: number;
  /** Defaults to a ManualClock at the current wall time (tests move it; nothing moves it alone). */
  clock?: C;
  sync?: SyncController;
  /** The indexer's commits as another process announces them (ApiDeps.events). */
  events?: IndexerEvents;
  limiter?: RateLimiter;
  options?: ApiOptions;
}

/**
 * The API on a real HTTP socket (127.0.0.1, ephemeral port) over a real store. Logs are
 * silent unless TEST_LOG_LEVEL is set.
 */
export async function buildTestApp<C extends Clock = ManualClock>(opts: TestAppOptions<C> = {}): Promise<TestApp<C>> {
  const clock = (opts.clock ?? new ManualClock(Date.now())) as C;
  const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const common = createCommon({ clock, logger });
  let ownStore: { dir: string } | undefined;
  let store = opts.store;
  if (!store) {
    const dir = mkdtempSync(join(tmpdir(), 'gamba-api-'));
    store = await openWriterStore({ kind: 'sqlite', path: join(dir, 'gamba.db') }, common);
    ownStore = { dir };
  }
  const twin = opts.apiStore || opts.readers === false ? undefined : await readonlyTwin(store, { common, ...opts.readers });
  const apiStore = opts.apiStore ?? twin ?? store;
  // Keys are issued through the writer and verified by the API through its own store.
  const keys = createKeyService({ store: store.keys, clock });
  const apiKeys = apiStore !== store || opts.keyRecordTtlMs ? createKeyService({ store: apiStore.keys, clock, recordTtlMs: opts.keyRecordTtlMs }) : keys;
  const limiter = opts.limiter ?? createMemoryRateLimiter({ clock });
  const sync = opts.sync ?? createIdleSyncController(clock);
  const app = await buildApp({ common, store: apiStore, keys: apiKeys, limiter, sync, events: opts.events, options: opts.options });
  const server = await startServer({ app, host: '127.0.0.1', port: 0 });
  const createKey: TestApp<C>['createKey'] = async (o) =>
    (await keys.create({ name: o.name ?? `test-${o.tier}`, tier: o.tier, rpm: o.rpm, burst: o.burst, expiresAt: o.expiresAt })).key;
  const key = await createKey({ tier: 'enterprise', rpm: 1_000_000, burst: 1_000_000, name: 'contract-tests' });
  const finalStore = store;
  return {
    baseUrl: server.url,
    app,
    store: finalStore,
    apiStore,
    clock,
    keys,
    limiter,
    key,
    createKey,
    async close() {
      await server.close();
      await twin?.close();
      if (!opts.limiter) await limiter.close();
      if (ownStore) {
        await finalStore.close();
        rmSync(ownStore.dir, { recursive: true, force: true });
      }
    },
  };
}
