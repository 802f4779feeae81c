import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';

/**
 * Indexes of `games` the write path itself reads, so they are never deferred: the fairness audit
 * finds a player's neighbouring settles through `g_player_order` (fairness.ts), and re-pricing
 * finds un-priced games through `g_unpriced` (reprice.ts).
 */
const WRITE_PATH_GAME_INDEXES = new Set(['g_player_order', 'g_unpriced']);

/** One deferred index: its name and the statement that created it, as the database stored it. */
interface IndexDef {
  name: string;
  sql: string;
}

/**
 * Bulk load (docs/benchmarks.md "Building a dataset"): drops the list indexes of `games` (the
 * `g_*` filter × order indexes the API's settled-game lists read, which no write reads) and
 * returns a function that recreates each from the definition the database stored for it
 * (SQLite `sqlite_master.sql`, PostgreSQL `pg_indexes.indexdef`), so the schema afterwards is the
 * migrations' exactly. Building an index once over sorted keys costs far less than keeping 20 of
 * them up to date through millions of single-row inserts.
 *
 * Only for a store nobody reads while it loads (the benchmark's dataset builder): until the
 * returned function has run, list queries fall back to scans, and a crash in between leaves the
 * store without those indexes (the builder discards such a file).
 */
export async function deferListIndexes(db: Kysely<Database>, a: DialectAdapter): Promise<() => Promise<void>> {
  const found =
    a.kind === 'sqlite'
      ? await sql<IndexDef>`select name, sql from sqlite_master
          where type = 'index' and tbl_name = 'games' and sql is not null and name like 'g\\_%' escape '\\' order by name`.execute(db)
      : await sql<IndexDef>`select indexname as name, indexdef as sql from pg_indexes
          where tablename = 'games' and schemaname = current_schema() and indexname like 'g\\_%' escape '\\' order by indexname`.execute(db);
  const deferred = found.rows.filter((d) => !WRITE_PATH_GAME_INDEXES.has(d.name));
  for (const d of deferred) await sql`drop index ${sql.id(d.name)}`.execute(db);
  let restored = false;
  return async () => {
    if (restored) return;
    restored = true;
    for (const d of deferred) await sql.raw(d.sql).execute(db);
  };
}
