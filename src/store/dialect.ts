import { sql, type Expression, type RawBuilder } from 'kysely';

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
}

/** SQLite's column types and scalar max/min (better-sqlite3). */
export const sqliteAdapter: DialectAdapter = {
  kind: 'sqlite',
  bigint: 'integer',
  double: 'real',
  text: 'text',
  greatest: (a, b) => sql<number>`max(${a}, ${b})`,
  least: (a, b) => sql<number>`min(${a}, ${b})`,
};

/** PostgreSQL's column types (byte-wise `collate "C"` for ordered text) and greatest/least. */
export const postgresAdapter: DialectAdapter = {
  kind: 'postgres',
  bigint: 'bigint',
  double: 'double precision',
  text: sql`text collate "C"`,
  greatest: (a, b) => sql<number>`greatest(${a}, ${b})`,
  least: (a, b) => sql<number>`least(${a}, ${b})`,
};
