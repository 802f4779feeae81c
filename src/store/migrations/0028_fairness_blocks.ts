import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * `ru_fair_bg` (docs/design.md "Fairness audit"): ru_fair_dg per 32-day block — games per block
 * (the UTC day number divided by 32, rounded down: rollups/definitions.ts BLOCK_DAYS) × creator ×
 * token × pool × fairness verdict × rule — so `/audit/fairness` over a window without a player
 * reads its whole blocks as one row per key each and only the days at their edges from ru_fair_dg,
 * instead of every day's rows (about a hundred a day, whatever the games: a half-year window read
 * some 19,000 rows). Filled here from ru_fair_dg by plain SQL (frozen with this migration,
 * docs/architecture.md convention 12), as the write path keeps it (a verdict change moves a count
 * between its rows like ru_fair_dg's). On SQLite the table is `WITHOUT ROWID` (docs/architecture.md
 * "Clustered rollups"). One transaction: a failure leaves the store as it was.
 */
export function migration0028(a: DialectAdapter) {
  const run = async (db: Kysely<any>): Promise<void> => {
    let t = db.schema.createTable('ru_fair_bg').addColumn('block', a.bigint, (c) => c.notNull());
    for (const c of ['creator', 'token', 'pool', 'fairness', 'rule']) t = t.addColumn(c, a.text, (col) => col.notNull());
    t = t.addColumn('games', a.bigint, (c) => c.notNull()).addPrimaryKeyConstraint('ru_fair_bg_pk', ['block', 'creator', 'token', 'pool', 'fairness', 'rule'] as never);
    await (a.kind === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t).execute();
    await sql`insert into ru_fair_bg (block, creator, token, pool, fairness, rule, games)
      select day / 32, creator, token, pool, fairness, rule, sum(games) from ru_fair_dg
      group by day / 32, creator, token, pool, fairness, rule order by day / 32, creator, token, pool, fairness, rule`.execute(db);
  };
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (db.isTransaction) await run(db);
      else await db.transaction().execute((trx) => run(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
