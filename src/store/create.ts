import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { StoreConfig } from '../config/index.js';
import { AppError, type Common } from '../core/index.js';
import { postgresAdapter, sqliteAdapter, type DialectAdapter } from './dialect.js';
import { mappingErrors } from './driver-errors.js';
import { createApiKeyStore } from './keys.js';
import { migrateToLatest } from './migrate.js';
import { refreshPoolTvl } from './rollups/index.js';
import { createQueries, PART_VECTORS_MIB, warmQueries } from './queries/index.js';
import { openPostgres, POSTGRES_POOL_SIZE } from './postgres.js';
import { createReaderPool, type ReaderPool } from './readers/pool.js';
import { cachingSqliteDatabase } from './statement-cache.js';
import type { Database } from './schema.js';
import type { HourlyPrice, Store, WriteBatch } from './types.js';
import type { CoverageResult } from './types-coverage.js';
import { deferReadIndexes, putCoverage, putPrices, rebuildRollups, setStateIn, writeBatch } from './write/index.js';

/** How a store is opened (CreateStoreOptions.access): `readwrite` (the indexer, the CLI) or `readonly` (the API). */
export type StoreAccess = 'readwrite' | 'readonly';

/** Reader threads of a read-only SQLite store by default (docs/configuration.md `STORE_READERS`: sized for 2 cores). */
export const DEFAULT_STORE_READERS = 2;

/** Deadline of one read of a read-only store by default, ms (docs/configuration.md `STORE_TIMEOUT_MS`). */
export const DEFAULT_STORE_TIMEOUT_MS = 2000;

/** Part copies per reader thread (SQLite) or API process (PostgreSQL) by default, MiB (docs/configuration.md `STORE_COPIES_MIB`). */
const DEFAULT_STORE_COPIES_MIB = PART_VECTORS_MIB;

/** Page cache of one reader thread, MiB: readers share the OS page cache, so each keeps a small one. */
const READER_CACHE_MIB = 8;

/**
 * Lock wait of the read-only store's own connection (key lookups on the event loop), ms. Short:
 * the wait blocks the event loop; past it the lookup is STORE_UNAVAILABLE (503).
 */
const MAIN_READONLY_BUSY_TIMEOUT_MS = 250;

/** Options of createStore: the common bag, the store configuration, and per-process tuning. */
export interface CreateStoreOptions {
  common: Common;
  config: StoreConfig;
  /** PostgreSQL only: schema to use (created if missing); tests isolate runs this way. */
  schema?: string;
  /** Apply migrations on open (default true; never for a read-only store). */
  migrate?: boolean;
  /**
   * `readwrite` (default): the indexer's and the CLI's store. `readonly` (the API, docs/architecture.md
   * "Reader pool"): no migrations, every write method throws STORE_READ_ONLY; SQLite connections are
   * `query_only` and `store.queries` run on `readers` threads; every read answers within `timeoutMs`
   * or fails with STORE_UNAVAILABLE (docs/hardening.md "Store deadline").
   */
  access?: StoreAccess;
  /** Read-only SQLite: reader threads (default DEFAULT_STORE_READERS). */
  readers?: number;
  /** Read-only: deadline of one read, ms (default DEFAULT_STORE_TIMEOUT_MS). */
  timeoutMs?: number;
  /**
   * Read-only: the write generation of a read-write store of the same database in this process
   * (`serve` running its indexer in-process; tests), so response caches never hide its writes
   * (Store.generation). Default: 0 for ever (writes come from other processes, bounded by the cache TTL).
   */
  generation?: () => number;
  /**
   * SQLite only: how long a statement waits for another connection's lock, ms (default 5000; a
   * read-only store's readers wait up to the deadline instead).
   * better-sqlite3 waits on the event loop, so a process that also serves HTTP sets this low
   * and lets the indexer's retries absorb SQLITE_BUSY (`serve` uses 250).
   */
  busyTimeoutMs?: number;
  /**
   * SQLite only: the connection's page cache, MiB (default 64: the write path's rollup and index
   * B-trees stay cached during ingest). A process that only reads (`serve --no-indexer`, API
   * workers) sets it lower: the OS page cache keeps the file's hot pages outside the process's
   * RSS anyway (docs/benchmarks.md target "API RSS ≤ 250 MB").
   */
  cacheMiB?: number;
  /**
   * Read-only: part copies of the USD profit leaderboard kept in memory, MiB, per reader thread
   * (SQLite) or for the process (PostgreSQL); 0 = none (default DEFAULT_STORE_COPIES_MIB;
   * docs/design.md §7 "Part vectors").
   */
  copiesMiB?: number;
  /**
   * SQLite only, read-write only: open for a bulk load into a file nobody reads yet (the
   * benchmark's dataset builder, docs/benchmarks.md "Building a dataset"): the rollback journal
   * in memory and no syncs, so a commit writes each page once and never waits on the disk.
   * A crash or power loss mid-load can corrupt the file; the builder discards it then. Open the
   * file again without this option afterwards (that switches it back to WAL).
   */
  bulkLoad?: boolean;
}

function openSqlite(path: string, busyTimeoutMs: number, cacheMiB: number, bulkLoad = false): Kysely<Database> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let database: BetterSqlite3.Database;
  try {
    database = new BetterSqlite3(path);
  } catch (err) {
    throw new AppError('STORE_UNAVAILABLE', `cannot open SQLite database at ${path}: ${(err as Error).message}`, { cause: err });
  }
  database.pragma(bulkLoad ? 'journal_mode = MEMORY' : 'journal_mode = WAL');
  database.pragma(bulkLoad ? 'synchronous = OFF' : 'synchronous = NORMAL');
  // Checkpoint every ~40 MB of WAL instead of 4 MB: a write batch dirties pages of ~20 indexes,
  // and frequent checkpoints re-copied them (docs/benchmarks.md write-path profile); temp b-trees in memory.
  database.pragma('wal_autocheckpoint = 10000');
  database.pragma('temp_store = MEMORY');
  database.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  // Page cache in KiB (negative = size, not pages): see CreateStoreOptions.cacheMiB.
  database.pragma(`cache_size = -${Math.max(1, Math.floor(cacheMiB)) * 1024}`);
  // u64 halves summed over many rows exceed 2^53: read integers as BigInt (core/u64.ts).
  database.defaultSafeIntegers(true);
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingSqliteDatabase(database) }) });
}

/**
 * A read-only connection on the event loop (key lookups, the first half of ping): never creates
 * the file, cannot write it, waits briefly for locks.
 */
function openSqliteReadonly(path: string, busyTimeoutMs: number): Kysely<Database> {
  let database: BetterSqlite3.Database;
  try {
    database = new BetterSqlite3(path, { fileMustExist: true });
  } catch (err) {
    throw new AppError('STORE_UNAVAILABLE', `cannot open SQLite database at ${path}: ${(err as Error).message}`, { cause: err, retryable: true });
  }
  database.pragma('query_only = ON');
  database.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  database.pragma('cache_size = -2048');
  database.defaultSafeIntegers(true);
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingSqliteDatabase(database) }) });
}

/**
 * Opens the store (SQLite file by default, PostgreSQL for `postgres://` URLs; docs/design.md §1, §7)
 * and applies migrations (read-write only). Errors of every method (reads, writes, `keys`,
 * `ping`) are AppError STORE_UNAVAILABLE (retryable) when the store cannot answer now
 * (src/store/driver-errors.ts); others pass unchanged.
 * Throws AppError STORE_UNAVAILABLE / STORE_MIGRATION_FAILED / CONFIG_INVALID (read-only `:memory:`).
 */
export async function createStore(opts: CreateStoreOptions): Promise<Store> {
  return (opts.access ?? 'readwrite') === 'readonly' ? openReadonly(opts) : openReadwrite(opts);
}

function safeSchema(schema: string | undefined): string | undefined {
  return schema?.replace(/[^A-Za-z0-9_]/g, '');
}

async function prepareSchema(url: string, schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
    await admin.query(`create schema if not exists ${safeSchema(schema)}`);
  } catch (err) {
    throw new AppError('STORE_UNAVAILABLE', `cannot prepare PostgreSQL schema ${schema}: ${(err as Error).message}`, { cause: err, retryable: true });
  } finally {
    await admin.end().catch(() => undefined);
  }
}

async function openReadwrite(opts: CreateStoreOptions): Promise<Store> {
  const { config } = opts;
  const adapter: DialectAdapter = config.kind === 'sqlite' ? sqliteAdapter : postgresAdapter;
  // The schema comes from the caller (tests) or from DATABASE_URL's `?schema=` (config).
  const schema = config.kind === 'postgres' ? (opts.schema ?? config.schema) : undefined;
  if (config.kind === 'postgres' && schema) await prepareSchema(config.url, schema);
  const db = config.kind === 'sqlite' ? openSqlite(config.path, opts.busyTimeoutMs ?? 5000, opts.cacheMiB ?? 64, opts.bulkLoad) : openPostgres({ url: config.url, schema });
  // DATABASE_READ_URL (docs/deployment.md): the API's queries go to a replica; writes, keys and state stay on the primary.
  const readDb = config.kind === 'postgres' && config.readUrl ? openPostgres({ url: config.readUrl, schema }) : undefined;
  const decimals = new Map<string, number>();
  // Stored prices never change (docs/design.md §6): read once per (mint, hour), kept for every later batch.
  const knownPrices = new Map<string, number>();
  const loadMints = async () => {
    for (const m of await db.selectFrom('mints').selectAll().execute()) decimals.set(m.mint, Number(m.decimals));
  };
  let closed = false;
  // Write generation (Store.generation): bumped when a write settles, committed or not (harmless).
  let generation = 0;
  const bump = <T>(p: Promise<T>): Promise<T> => p.finally(() => void generation++);
  // The store owns its drivers' errors on the write path too (docs/architecture.md convention 5):
  // "cannot answer now" (SQLITE_BUSY, a lost PostgreSQL connection …) becomes a retryable
  // STORE_UNAVAILABLE; any other error passes unchanged (driver-errors.ts toStoreError).
  const writes = mappingErrors({
    async migrate() {
      await migrateToLatest(db, adapter, safeSchema(schema));
      await loadMints();
    },
    writeBatch: (batch: WriteBatch) => bump(writeBatch(db, adapter, decimals, batch, knownPrices)),
    async getState(key: string) {
      const r = await db.selectFrom('sync_state').select('value').where('key', '=', key).executeTakeFirst();
      return r?.value;
    },
    setState: (entries: Record<string, string>) => setStateIn(db, entries),
    knownSignatures: (signatures: string[]) => knownSignatures(db, signatures),
    async getMints() {
      return [...decimals].map(([mint, d]) => ({ mint, decimals: d }));
    },
    async upsertMints(mints: { mint: string; decimals: number }[]) {
      for (const m of mints) {
        await db
          .insertInto('mints')
          .values({ mint: m.mint, decimals: m.decimals })
          .onConflict((oc) => oc.column('mint').doUpdateSet({ decimals: m.decimals }))
          .execute();
        decimals.set(m.mint, m.decimals);
      }
      // Pool TVL needs the token's decimals (rollups/pool.ts): pools seen before their mint get it now.
      if (mints.length > 0) await refreshPoolTvl(db, { tokens: mints.map((m) => m.mint) });
    },
    putPrices: (prices: HourlyPrice[]) => bump(putPrices(db, adapter, decimals, prices)),
    getPrices: (mint: string, fromHourMs: number, toHourMs: number) => getPrices(db, mint, fromHourMs, toHourMs),
    unpricedHours: (limit: number) => unpricedHours(db, limit),
    rebuildRollups: () => bump(rebuildRollups(db, adapter)),
    putCoverage: (result: CoverageResult) => bump(putCoverage(db, result)),
    deferReadIndexes: () => deferReadIndexes(db, adapter),
  });
  const store: Store = {
    dialect: adapter.kind,
    access: 'readwrite',
    // SQLite: one connection on the event loop runs one query at a time.
    slots: config.kind === 'sqlite' ? 1 : POSTGRES_POOL_SIZE,
    ...writes,
    generation: () => generation,
    keys: mappingErrors(createApiKeyStore(db)),
    queries: mappingErrors(createQueries(readDb ?? db, adapter)),
    ping: mappingErrors({
      async ping() {
        await sql`select 1`.execute(db);
        if (readDb) await sql`select 1`.execute(readDb);
      },
    }).ping,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([db.destroy(), readDb?.destroy()]);
    },
  };
  if (opts.migrate ?? true) await store.migrate();
  opts.common.shutdown.register('store', () => store.close());
  return store;
}

async function knownSignatures(db: Kysely<Database>, signatures: string[]): Promise<Set<string>> {
  const known = new Set<string>();
  for (let i = 0; i < signatures.length; i += 500) {
    const chunk = signatures.slice(i, i + 500);
    const rows = await db.selectFrom('signatures').select('signature').where('signature', 'in', chunk).execute();
    for (const r of rows) known.add(r.signature);
  }
  return known;
}

async function getPrices(db: Kysely<Database>, mint: string, fromHourMs: number, toHourMs: number): Promise<HourlyPrice[]> {
  const rows = await db.selectFrom('prices').selectAll().where('mint', '=', mint).where('hour_ms', '>=', fromHourMs).where('hour_ms', '<=', toHourMs).orderBy('hour_ms').execute();
  return rows.map((r) => ({ mint: r.mint, hourMs: Number(r.hour_ms), usdPrice: Number(r.usd_price), source: r.source, publishTime: r.publish_time === null ? null : Number(r.publish_time) }));
}

async function unpricedHours(db: Kysely<Database>, limit: number): Promise<{ mint: string; hourMs: number }[]> {
  // Games and pool changes both wait for their (mint, hour) price (docs/design.md §6).
  const res = await sql<{ token: string; hour_ms: unknown }>`select token, hour_ms from games where usd_per_unit is null
      union select token, hour_ms from pool_changes where usd_per_unit is null
    order by hour_ms, token limit ${limit}`.execute(db);
  return res.rows.map((r) => ({ mint: r.token, hourMs: Number(r.hour_ms) }));
}

/**
 * The API's store (docs/architecture.md "Reader pool"): reads only, each within the deadline.
 * SQLite: queries on reader threads, key lookups on a `query_only` connection of this thread.
 * PostgreSQL: a pool whose connections carry the deadline as statement_timeout (and query_timeout).
 */
async function openReadonly(opts: CreateStoreOptions): Promise<Store> {
  const { config, common } = opts;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const copiesMiB = opts.copiesMiB ?? DEFAULT_STORE_COPIES_MIB;
  const adapter: DialectAdapter = config.kind === 'sqlite' ? sqliteAdapter : postgresAdapter;
  let db: Kysely<Database>;
  let readDb: Kysely<Database> | undefined;
  let readers: ReaderPool | undefined;
  if (config.kind === 'sqlite') {
    if (config.path === ':memory:') throw new AppError('CONFIG_INVALID', 'a read-only store needs a database file: reader threads cannot share an in-memory database');
    db = openSqliteReadonly(config.path, Math.min(opts.busyTimeoutMs ?? MAIN_READONLY_BUSY_TIMEOUT_MS, timeoutMs));
    // Kysely initialises its driver on first use and ignores destroy() before that: use it once,
    // so close() really closes the connection.
    await sql`select 1`.execute(db);
    readers = createReaderPool({
      path: config.path,
      readers: Math.max(1, Math.floor(opts.readers ?? DEFAULT_STORE_READERS)),
      timeoutMs,
      // At least the deadline, so the deadline decides; a reader still waiting after it was abandoned stops soon after.
      busyTimeoutMs: opts.busyTimeoutMs ?? timeoutMs,
      cacheMiB: opts.cacheMiB ?? READER_CACHE_MIB,
      copiesMiB,
      logger: common.logger,
    });
    await readers.warm;
  } else {
    const schema = opts.schema ?? config.schema;
    db = openPostgres({ url: config.url, schema, timeoutMs, readonly: true });
    readDb = config.readUrl ? openPostgres({ url: config.readUrl, schema, timeoutMs, readonly: true }) : undefined;
  }
  // The store must be readable now (migrated by a read-write open): a missing table is an unusable store, not a 500 per request later.
  try {
    await db.selectFrom('mints').select('mint').limit(1).execute();
  } catch (err) {
    await Promise.all([readers?.close(), db.destroy(), readDb?.destroy()]).catch(() => undefined);
    throw new AppError('STORE_UNAVAILABLE', `cannot read the store: ${(err as Error).message}`, { cause: err, retryable: true });
  }
  // PostgreSQL: this process's part copies start warming now (SQLite: each reader thread's, when it opens).
  if (!readers) warmQueries(readDb ?? db, copiesMiB);
  const readonlyError = (what: string) => async (): Promise<never> => {
    throw new AppError('STORE_READ_ONLY', `${what} needs a read-write store; this one was opened read-only`);
  };
  const generation = opts.generation ?? (() => 0);
  // SQLite: no deadline timer on the event loop's own connection (its statements are synchronous; busy_timeout bounds them).
  const mainDeadline = config.kind === 'sqlite' ? undefined : timeoutMs;
  let closed = false;
  const isClosed = () => closed;
  const keys = mappingErrors(createApiKeyStore(db), mainDeadline, isClosed);
  const reads = mappingErrors(
    {
      async getState(key: string) {
        const r = await db.selectFrom('sync_state').select('value').where('key', '=', key).executeTakeFirst();
        return r?.value;
      },
      knownSignatures: (signatures: string[]) => knownSignatures(db, signatures),
      async getMints() {
        return (await db.selectFrom('mints').selectAll().execute()).map((m) => ({ mint: m.mint, decimals: Number(m.decimals) }));
      },
      getPrices: (mint: string, fromHourMs: number, toHourMs: number) => getPrices(db, mint, fromHourMs, toHourMs),
      unpricedHours: (limit: number) => unpricedHours(db, limit),
    },
    mainDeadline,
    isClosed,
  );
  const store: Store = {
    dialect: adapter.kind,
    access: 'readonly',
    slots: readers?.slots ?? POSTGRES_POOL_SIZE,
    migrate: readonlyError('migrate'),
    writeBatch: readonlyError('writeBatch'),
    setState: readonlyError('setState'),
    upsertMints: readonlyError('upsertMints'),
    putPrices: readonlyError('putPrices'),
    rebuildRollups: readonlyError('rebuildRollups'),
    putCoverage: readonlyError('putCoverage'),
    deferReadIndexes: readonlyError('deferReadIndexes'),
    ...reads,
    generation,
    keys: { ...keys, insert: readonlyError('keys.insert'), revoke: readonlyError('keys.revoke') },
    queries: readers ? readers.queries : mappingErrors(createQueries(readDb ?? db, adapter), timeoutMs, isClosed),
    ping: mappingErrors(
      {
        async ping() {
          if (readers) {
            // This thread's connection (key lookups) and a reader thread (queries) must both answer.
            await sql`select 1 from sqlite_master limit 1`.execute(db);
            await readers.ping();
            return;
          }
          await Promise.all([sql`select 1`.execute(db), readDb ? sql`select 1`.execute(readDb) : undefined]);
        },
      },
      mainDeadline,
      isClosed,
    ).ping,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([readers?.close(), db.destroy(), readDb?.destroy()]);
    },
  };
  common.shutdown.register('store', () => store.close());
  return store;
}
