import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import { DERIVED_TABLES } from '../rollups/index.js';
import type { Database } from '../schema.js';

/**
 * Indexes the write path itself reads, so they are never deferred: the fairness audit finds a
 * player's neighbouring settles through `g_player_order` (fairness.ts), and re-pricing finds
 * un-priced games through `g_unpriced` (reprice.ts). The derived tables' reads in the write path
 * (ru_active_day in returns.ts) go by their primary keys, or read tables of one row per pool
 * (ru_pool in rollups/pool.ts).
 */
const WRITE_PATH_INDEXES = new Set(['g_player_order', 'g_unpriced']);

/** One deferred index: its name and the statement that created it, as the database stored it. */
interface IndexDef {
  name: string;
  sql: string;
}

/**
 * Bulk load (docs/benchmarks.md "Building a dataset"): drops the indexes no write reads and
 * returns a function that recreates each from the definition the database stored for it (SQLite
 * `sqlite_master.sql`, PostgreSQL `pg_indexes.indexdef`), so the schema afterwards is the
 * migrations' exactly. Deferred: the list indexes of `games` (the `g_*` filter × order indexes
 * the API's settled-game lists read) and every non-unique index of the derived tables
 * (rollups/definitions.ts DERIVED_TABLES: the leaderboards' sort indexes, the per-filter time
 * indexes). Unique indexes stay (the upserts' conflict targets), and so do the indexes the write
 * path reads. Building an index once over sorted keys costs far less than keeping it up to date
 * through millions of single-row writes: a game moves about 35 sort-index entries of its
 * player's rollup rows.
 *
 * Only for a store nobody reads while it loads (the benchmark's dataset builder): until the
 * returned function has run, those reads fall back to scans, and a crash in between leaves the
 * store without those indexes (the builder discards such a file).
 */
export async function deferReadIndexes(db: Kysely<Database>, a: DialectAdapter): Promise<() => Promise<void>> {
  const derived = sql.join(DERIVED_TABLES.map((t) => sql.lit(t)));
  const found =
    a.kind === 'sqlite'
      ? await sql<IndexDef>`select name, sql from sqlite_master
          where type = 'index' and sql is not null and sql not like 'create unique%'
            and ((tbl_name = 'games' and name like 'g\\_%' escape '\\') or tbl_name in (${derived}))
          order by tbl_name, name`.execute(db)
      : await sql<IndexDef>`select indexname as name, indexdef as sql from pg_indexes
          where schemaname = current_schema() and indexdef not like 'CREATE UNIQUE%'
            and ((tablename = 'games' and indexname like 'g\\_%' escape '\\') or tablename in (${derived}))
          order by tablename, indexname`.execute(db);
  const deferred = found.rows.filter((d) => !WRITE_PATH_INDEXES.has(d.name));
  for (const d of deferred) await sql`drop index ${sql.id(d.name)}`.execute(db);
  let restored = false;
  return async () => {
    if (restored) return;
    restored = true;
    for (const d of deferred) await sql.raw(d.sql).execute(db);
  };
}
