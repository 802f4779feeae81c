import type { Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * `ru_day_rev` (docs/design.md §7 "Part vectors"): one row per UTC day number with `rev`, a count
 * of the write transactions that changed that day's rollups (new games, re-pricing, a rebuild).
 * It only ever grows, and it is not a derived table: a rebuild bumps it like any other write
 * instead of clearing it. A reader that keeps a part's rows in memory (a 32-day block, an 8-day
 * segment or a day of ru_*_user) stamps them with the sum of the part's days' `rev` read before
 * the rows, and reads them again when that sum has moved. Created empty: a day without a row has
 * rev 0, and its next write makes it 1.
 */
export function migration0029(a: DialectAdapter) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('ru_day_rev')
        .addColumn('day', a.bigint, (c) => c.notNull().primaryKey())
        .addColumn('rev', a.bigint, (c) => c.notNull())
        .execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
