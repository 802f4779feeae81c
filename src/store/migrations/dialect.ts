import type { Expression, RawBuilder } from 'kysely';

/**
 * The dialect facts the migrations use, frozen with them (docs/architecture.md convention 12: a
 * migration imports nothing from live code). The live adapter (src/store/dialect.ts) satisfies
 * this shape and is what migrate.ts passes in; changing the live one never changes a migration.
 */
export interface MigrationDialect {
  kind: 'sqlite' | 'postgres';
  /** Column type for 64-bit integers (ms timestamps, slots, hi/lo sums). */
  bigint: 'integer' | 'bigint';
  /** Column type for IEEE doubles (USD). */
  double: 'real' | 'double precision';
  /** Column type for ordered text: byte-wise order on both engines (PostgreSQL `collate "C"`). */
  text: 'text' | Expression<unknown>;
  /** Scalar maximum of two expressions. */
  greatest(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<number>;
  /** Scalar minimum of two expressions. */
  least(a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<number>;
}
