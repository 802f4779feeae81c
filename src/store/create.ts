import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { StoreConfig } from '../config/index.js';
import { AppError, type Common } from '../core/index.js';
import { postgresAdapter, sqliteAdapter, type DialectAdapter } from './dialect.js';
import { createApiKeyStore } from './keys.js';
import { migrateToLatest } from './migrate.js';
import { createQueries } from './queries/index.js';
import { cachingSqliteDatabase } from './statement-cache.js';
import type { Database } from './schema.js';
import type { Store } from './types.js';
import { putPrices, rebuildRollups, setStateIn, writeBatch } from './write.js';

export interface CreateStoreOptions {
  common: Common;
  config: StoreConfig;
  /** PostgreSQL only: schema to use (created if missing); tests isolate runs this way. */
  schema?: string;
  /** Apply migrations on open (default true). */
  migrate?: boolean;
  /**
   * SQLite only: how long a statement waits for another connection's lock, ms (default 5000).
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
}

function openSqlite(path: string, busyTimeoutMs: number, cacheMiB: number): Kysely<Database> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let database: BetterSqlite3.Database;
  try {
    database = new BetterSqlite3(path);
  } catch (err) {
    throw new AppError('STORE_UNAVAILABLE', `cannot open SQLite database at ${path}: ${(err as Error).message}`, { cause: err });
  }
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
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

function openPostgres(url: string, schema: string | undefined): Kysely<Database> {
  // search_path as a startup option, so every pooled connection sees the schema from its first query.
  const options = schema ? `-c search_path=${schema.replace(/[^A-Za-z0-9_]/g, '')}` : undefined;
  // A bounded connect wait turns an unreachable server into an error (→ 503) instead of a hung request.
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000, ...(options ? { options } : {}) });
  // An idle client whose server went away emits 'error' on the pool; unhandled, it would crash
  // the process. The next query gets a fresh connection (or fails → 503), so nothing to do here.
  pool.on('error', () => undefined);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * Opens the store (SQLite file by default, PostgreSQL for `postgres://` URLs; docs/design.md §1, §7)
 * and applies migrations. Throws AppError STORE_UNAVAILABLE / STORE_MIGRATION_FAILED.
 */
export async function createStore(opts: CreateStoreOptions): Promise<Store> {
  const { config } = opts;
  const adapter: DialectAdapter = config.kind === 'sqlite' ? sqliteAdapter : postgresAdapter;
  // The schema comes from the caller (tests) or from DATABASE_URL's `?schema=` (config).
  const schema = config.kind === 'postgres' ? (opts.schema ?? config.schema) : undefined;
  if (config.kind === 'postgres' && schema) {
    const admin = new pg.Client({ connectionString: config.url });
    try {
      await admin.connect();
      await admin.query(`create schema if not exists ${schema.replace(/[^A-Za-z0-9_]/g, '')}`);
    } catch (err) {
      throw new AppError('STORE_UNAVAILABLE', `cannot prepare PostgreSQL schema ${schema}: ${(err as Error).message}`, { cause: err });
    } finally {
      await admin.end().catch(() => undefined);
    }
  }
  const db = config.kind === 'sqlite' ? openSqlite(config.path, opts.busyTimeoutMs ?? 5000, opts.cacheMiB ?? 64) : openPostgres(config.url, schema);
  // DATABASE_READ_URL (docs/deployment.md): the API's queries go to a replica; writes, keys and state stay on the primary.
  const readDb = config.kind === 'postgres' && config.readUrl ? openPostgres(config.readUrl, schema) : undefined;
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
  const store: Store = {
    dialect: adapter.kind,
    async migrate() {
      await migrateToLatest(db, adapter, schema?.replace(/[^A-Za-z0-9_]/g, ''));
      await loadMints();
    },
    writeBatch: (batch) => bump(writeBatch(db, adapter, decimals, batch, knownPrices)),
    async getState(key) {
      const r = await db.selectFrom('sync_state').select('value').where('key', '=', key).executeTakeFirst();
      return r?.value;
    },
    setState: (entries) => setStateIn(db, entries),
    async knownSignatures(signatures) {
      const known = new Set<string>();
      for (let i = 0; i < signatures.length; i += 500) {
        const chunk = signatures.slice(i, i + 500);
        if (chunk.length === 0) continue;
        const rows = await db.selectFrom('signatures').select('signature').where('signature', 'in', chunk).execute();
        for (const r of rows) known.add(r.signature);
      }
      return known;
    },
    async getMints() {
      return [...decimals].map(([mint, d]) => ({ mint, decimals: d }));
    },
    async upsertMints(mints) {
      for (const m of mints) {
        await db
          .insertInto('mints')
          .values({ mint: m.mint, decimals: m.decimals })
          .onConflict((oc) => oc.column('mint').doUpdateSet({ decimals: m.decimals }))
          .execute();
        decimals.set(m.mint, m.decimals);
      }
    },
    putPrices: (prices) => bump(putPrices(db, adapter, decimals, prices)),
    async getPrices(mint, fromHourMs, toHourMs) {
      const rows = await db.selectFrom('prices').selectAll().where('mint', '=', mint).where('hour_ms', '>=', fromHourMs).where('hour_ms', '<=', toHourMs).orderBy('hour_ms').execute();
      return rows.map((r) => ({ mint: r.mint, hourMs: Number(r.hour_ms), usdPrice: Number(r.usd_price), source: r.source, publishTime: r.publish_time === null ? null : Number(r.publish_time) }));
    },
    async unpricedHours(limit) {
      // Games and pool changes both wait for their (mint, hour) price (docs/design.md §6).
      const res = await sql<{ token: string; hour_ms: unknown }>`select token, hour_ms from games where usd_per_unit is null
          union select token, hour_ms from pool_changes where usd_per_unit is null
        order by hour_ms, token limit ${limit}`.execute(db);
      return res.rows.map((r) => ({ mint: r.token, hourMs: Number(r.hour_ms) }));
    },
    rebuildRollups: () => bump(rebuildRollups(db, adapter)),
    generation: () => generation,
    keys: createApiKeyStore(db),
    queries: createQueries(readDb ?? db, adapter),
    async ping() {
      await sql`select 1`.execute(db);
      if (readDb) await sql`select 1`.execute(readDb);
    },
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
