import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Kysely, type QueryResult, type SqliteDatabase } from 'kysely';

/**
 * better-sqlite3 behind Kysely with a bounded cache of prepared statements, keyed by SQL text.
 * Kysely's SQLite driver prepares every query afresh; re-preparing the same text was ~12% of
 * the write path's CPU (node --cpu-prof, docs/benchmarks.md). Safe because Kysely runs one query at a time
 * on SQLite's single connection (its driver holds a mutex), so a statement is never re-entered.
 */
export function cachingSqliteDatabase(db: BetterSqlite3.Database, max = 500): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => db.close(),
    prepare(sqlText: string) {
      let stmt = cache.get(sqlText);
      if (stmt) {
        // Map order is insertion order: re-insert to mark as most recently used.
        cache.delete(sqlText);
      } else {
        stmt = db.prepare(sqlText);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
      }
      cache.set(sqlText, stmt);
      return stmt as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}

/**
 * Splits `rows` into slices of a few fixed sizes (largest first), so multi-row statements have
 * a handful of distinct SQL texts and hit the statement cache.
 */
export function fixedChunks<T>(rows: readonly T[], sizes: readonly number[] = [256, 32, 4, 1]): T[][] {
  const out: T[][] = [];
  let i = 0;
  for (const size of sizes) {
    while (rows.length - i >= size) {
      out.push(rows.slice(i, i + size));
      i += size;
    }
  }
  return out;
}

const compiledTexts = new Map<string, string>();

/**
 * Runs a bulk statement whose SQL text depends only on `key` (table, row count, dialect), with
 * fresh parameters: the text is compiled by Kysely once (`build`), later calls skip Kysely's
 * query building and compilation (~10% of the write path's CPU for 35-column × 256-row inserts).
 * `params` must be in the order `build`'s query binds them (row by row, column by column).
 */
export async function runPrecompiled<R>(db: Kysely<any>, key: string, build: () => { sql: string }, params: readonly unknown[]): Promise<QueryResult<R>> {
  let text = compiledTexts.get(key);
  if (text === undefined) {
    text = build().sql;
    compiledTexts.set(key, text);
  }
  return db.executeQuery<R>(CompiledQuery.raw(text, [...params]));
}
