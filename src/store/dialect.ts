import { sql, type Compilable, type Expression, type Kysely, type RawBuilder } from 'kysely';

/**
 * Every difference between SQLite and PostgreSQL lives here (docs/architecture.md convention 7); queries are
 * written once against this adapter.
 */
export interface DialectAdapter {
  kind: 'sqlite' | 'postgres';
  /** Column type for 64-bit integers (ms timestamps, slots, hi/lo sums). */
  bigint: 'integer' | 'bigint';
  /** Column type for IEEE doubles (USD). PostgreSQL `real` would be float4. */
  double: 'real' | 'double precision';
  /**
   * Column type for text that is ordered or compared (addresses, signatures, order keys):
   * byte-wise order on both engines, so ties break the same way everywhere (PostgreSQL
   * would otherwise use the database's locale collation).
   */
  text: 'text' | Expression<unknown>;
  /** Scalar maximum / minimum of two expressions. */
  greatest(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<number>;
  least(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<number>;
  /**
   * Runs one keyset page (ORDER BY the key, LIMIT a page) as a walk of an index in the key's
   * order, whatever the planner estimates (docs/architecture.md "Bounded reads": keyset pages on
   * PostgreSQL). SQLite plans such pages so by itself; PostgreSQL turns bitmap scans and explicit
   * sorts off for this statement alone (`set_config(…, true)` = SET LOCAL in its own transaction),
   * which leaves the ordered index scans, with an incremental sort of ties.
   */
  orderedPage<R>(db: Kysely<any>, query: Compilable<R>): Promise<R[]>;
  /**
   * The first statement of a write-path transaction, or null: it makes write transactions take
   * turns. The write path reads what earlier batches stored (a game's neighbours for the fairness
   * audit, a player's active days) and writes from it, so two batches committing side by side
   * could each miss the other's rows. SQLite has one writer at a time already; PostgreSQL takes a
   * transaction-level advisory lock (released at commit or rollback).
   */
  writeTurn: RawBuilder<unknown> | null;
}

/** SQLite's column types and scalar max/min (better-sqlite3). */
export const sqliteAdapter: DialectAdapter = {
  kind: 'sqlite',
  bigint: 'integer',
  double: 'real',
  text: 'text',
  greatest: (a, b) => sql<number>`max(${a}, ${b})`,
  least: (a, b) => sql<number>`min(${a}, ${b})`,
  orderedPage: async (db, query) => (await db.executeQuery(query.compile())).rows,
  writeTurn: null,
};

/** PostgreSQL's column types (byte-wise `collate "C"` for ordered text) and greatest/least. */
export const postgresAdapter: DialectAdapter = {
  kind: 'postgres',
  bigint: 'bigint',
  double: 'double precision',
  text: sql`text collate "C"`,
  greatest: (a, b) => sql<number>`greatest(${a}, ${b})`,
  least: (a, b) => sql<number>`least(${a}, ${b})`,
  orderedPage: (db, query) =>
    db.transaction().execute(async (trx) => {
      await sql`select set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`.execute(trx);
      return (await trx.executeQuery(query.compile())).rows;
    }),
  writeTurn: sql`select pg_advisory_xact_lock(hashtextextended('gamba-analytics write path', 0))`,
};
