import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * `ru_fair_dg` (docs/design.md "Fairness audit"): games per UTC day × creator × token × pool ×
 * fairness × rule (rule '' when verified) — ru_fair_day without the player. A window's counts
 * overall or by creator or pool (no player) read a few rows per day from it instead of one row
 * per player and day (ru_fair_day grows with the players; this table does not). Filled here
 * from ru_fair_day by plain SQL.
 * Plain schema calls only: a migration imports nothing from live code (docs/architecture.md convention 12).
 */
export function migration0015(a: DialectAdapter) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('ru_fair_dg')
        .addColumn('day', 'integer', (c) => c.notNull())
        .addColumn('creator', a.text, (c) => c.notNull())
        .addColumn('token', a.text, (c) => c.notNull())
        .addColumn('pool', a.text, (c) => c.notNull())
        .addColumn('fairness', a.text, (c) => c.notNull())
        .addColumn('rule', a.text, (c) => c.notNull())
        .addColumn('games', a.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ru_fair_dg_pk', ['day', 'creator', 'token', 'pool', 'fairness', 'rule'])
        .execute();
      await sql`insert into ru_fair_dg (day, creator, token, pool, fairness, rule, games)
        select day, creator, token, pool, fairness, rule, sum(games) from ru_fair_day
        group by day, creator, token, pool, fairness, rule`.execute(db);
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
