/**
 * A reader thread (docs/architecture.md "Reader pool"): one read-only better-sqlite3 connection
 * running the store's query module (src/store/queries) off the API's event loop. Loaded by
 * piscina from `dist/store/readers/worker.js` in production and from this file (through tsx)
 * under vitest; the connection (its pragmas: connection.ts) opens on the first task and lives as
 * long as the thread.
 */
import { Kysely, sql, SqliteDialect } from 'kysely';
import { workerData } from 'piscina';
import { sqliteAdapter } from '../dialect.js';
import { toStoreError } from '../driver-errors.js';
import { createQueries, warmQueries } from '../queries/index.js';
import type { Database } from '../schema.js';
import { cachingSqliteDatabase } from '../statement-cache.js';
import type { Queries } from '../types.js';
import { openReaderDatabase } from './connection.js';
import { type ReaderAnswer, type ReaderSettings, type ReaderTask, serializeError } from './protocol.js';

const settings = workerData as ReaderSettings;

let opened: { db: Kysely<Database>; queries: Queries } | undefined;

function open(): { db: Kysely<Database>; queries: Queries } {
  if (opened) return opened;
  const database = openReaderDatabase(settings);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingSqliteDatabase(database) }) });
  opened = { db, queries: createQueries(db, sqliteAdapter) };
  warmQueries(db, settings.copiesMiB);
  return opened;
}

/** The reader thread's task handler (piscina): opens its connection once, runs the query, answers driver errors mapped by toStoreError as data. */
export default async function run(task: ReaderTask): Promise<ReaderAnswer> {
  try {
    const { db, queries } = open();
    if (task.method === 'ping') {
      // Reads the schema page: needs the same shared lock as any query (a plain `select 1` would not).
      await sql`select 1 from sqlite_master limit 1`.execute(db);
      return { ok: true, value: undefined };
    }
    const fn = queries[task.method] as (...args: unknown[]) => Promise<unknown>;
    return { ok: true, value: await fn(...task.args) };
  } catch (err) {
    return { ok: false, error: serializeError(toStoreError(err)) };
  }
}
