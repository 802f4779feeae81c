import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * `ru_fair_hg` (docs/design.md "Fairness audit"): ru_fair_dg per UTC hour — games per hour
 * (hour_ms, its start in Unix ms) × creator × token × pool × fairness verdict × rule — so
 * `/audit/fairness` over a window without a player reads the days it cuts as whole hours plus
 * under an hour of raw games at each end, instead of up to a day of raw games. Filled here from
 * the raw games by plain SQL (frozen with this migration, docs/architecture.md convention 12), as
 * the write path keeps it (its verdict changes move counts between rows like ru_fair_dg's).
 */
export function migration0023(a: DialectAdapter) {
  const fill = async (db: Kysely<any>): Promise<void> => {
    await sql`insert into ru_fair_hg (hour_ms, creator, token, pool, fairness, rule, games)
      select hour_ms, creator, token, pool, fairness, coalesce(fairness_rule, ''), count(*) from games
      group by hour_ms, creator, token, pool, fairness, coalesce(fairness_rule, '')`.execute(db);
  };
  return {
    async up(db: Kysely<any>): Promise<void> {
      let t = db.schema.createTable('ru_fair_hg').addColumn('hour_ms', a.bigint, (c) => c.notNull());
      for (const c of ['creator', 'token', 'pool', 'fairness', 'rule']) t = t.addColumn(c, a.text, (col) => col.notNull());
      await t
        .addColumn('games', a.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ru_fair_hg_pk', ['hour_ms', 'creator', 'token', 'pool', 'fairness', 'rule'] as never)
        .execute();
      if (db.isTransaction) await fill(db);
      else await db.transaction().execute((trx) => fill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
