import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import type { StoreConfig } from '../../src/config/index.js';
import { createCommon } from '../../src/core/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { DEFAULT_TEST_DATABASE_URL } from './services.js';

export type TestDialect = 'sqlite' | 'postgres';

/** The machine's PostgreSQL for tests: TEST_DATABASE_URL, else the local `postgres` database (test/helpers/services.ts). */
export function testDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;
}

/**
 * The dialect this test run targets: vitest.config.ts runs the suite once per backend and sets
 * TEST_STORE (`sqlite` | `postgres`) in each project; outside a project, SQLite.
 */
export function testStore(): TestDialect {
  return process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
}

/**
 * Dialects the store tests run on. Inside a vitest project, just its TEST_STORE; otherwise
 * SQLite always and PostgreSQL when TEST_DATABASE_URL is set. `TEST_DIALECTS=sqlite` narrows
 * the list (docs/architecture.md convention 7).
 */
export function testDialects(): TestDialect[] {
  const all: TestDialect[] = process.env.TEST_STORE ? [testStore()] : process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const only = process.env.TEST_DIALECTS?.split(',').map((s) => s.trim());
  return only ? all.filter((d) => only.includes(d)) : all;
}

/**
 * A fresh, empty place for a store that other processes can open too: a temp SQLite file or
 * a new PostgreSQL schema. `databaseUrl` is the DATABASE_URL to give a child process
 * (`postgres://…?schema=NAME` for PostgreSQL). `drop()` deletes it (registered by setupStore).
 */
export interface TestDatabase {
  dialect: TestDialect;
  config: StoreConfig;
  databaseUrl: string;
  drop(): Promise<void>;
}

export function createTestDatabase(dialect: TestDialect = testStore()): TestDatabase {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gamba-store-'));
    const path = join(dir, 'gamba.db');
    return { dialect, config: { kind: 'sqlite', path }, databaseUrl: `sqlite:${path}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = testDatabaseUrl();
  const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  return {
    dialect,
    config: { kind: 'postgres', url, schema },
    databaseUrl: u.toString(),
    async drop() {
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * A fresh, migrated store in its own temp SQLite file (or its own PostgreSQL schema),
 * closed and deleted after the test (or the file's tests). The dialect defaults to TEST_STORE.
 */
export async function setupStore(dialect: TestDialect = testStore()): Promise<Store> {
  const { store } = await setupTestDatabase(dialect);
  return store;
}

/** setupStore that also returns the database, for tests that start child processes on it. */
export async function setupTestDatabase(dialect: TestDialect = testStore()): Promise<{ store: Store; db: TestDatabase }> {
  const db = createTestDatabase(dialect);
  let store: Store;
  try {
    store = await openWriterStore(db.config);
  } catch (err) {
    await db.drop().catch(() => undefined);
    throw err;
  }
  registerCleanup(async () => {
    await store.close();
    await db.drop();
  });
  return { store, db };
}

/** Runs `fn` after the current test when called inside one, else after the file's tests. */
export function registerCleanup(fn: () => Promise<void>): void {
  try {
    onTestFinished(fn);
  } catch {
    afterAll(fn);
  }
}

/** Where each writer store opened by these helpers lives, so the API can be built over its read-only twin. */
const configs = new WeakMap<Store, StoreConfig>();

/** A read-write (migrated) store on `config`, remembered so that readonlyTwin() can open the same database. */
export async function openWriterStore(config: StoreConfig, common = createCommon()): Promise<Store> {
  const store = await createStore({ common, config });
  configs.set(store, config);
  return store;
}

/**
 * The API's view of `writer`'s database, opened the way `serve` opens it (docs/architecture.md
 * "Reader pool"): read-only, queries on reader threads (SQLite) or a deadline-bound pool
 * (PostgreSQL), following `writer`'s write generation so response caches see its writes at once.
 * undefined when `writer` was not opened by these helpers (a wrapped store: use it as it is).
 */
export async function readonlyTwin(writer: Store, opts: { common?: ReturnType<typeof createCommon>; readers?: number; timeoutMs?: number } = {}): Promise<Store | undefined> {
  const config = configs.get(writer);
  if (!config) return undefined;
  return createStore({ common: opts.common ?? createCommon(), config, access: 'readonly', readers: opts.readers, timeoutMs: opts.timeoutMs, generation: () => writer.generation() });
}
