import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * `ru_day_user_t`: per UTC day × player × token (ru_block_user_t's day grain, migration 0013), so
 * `/house-edge?groupBy=player` over a window sums the days at its blocks' edges for the page's
 * players by primary key — (day, player) seeks — instead of reading those players' raw games
 * (docs/design.md §10 "House edge by player over a window"). Every game rollup column (GameSums
 * of schema.ts), filled here from ru_daily by plain SQL (frozen with this migration,
 * docs/architecture.md convention 12).
 */
export function migration0019(a: DialectAdapter) {
  const BIGINT_SUMS = ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo', 'wins', 'expected_hi', 'expected_lo'];
  const DOUBLE_SUMS = ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net'];
  const VALUES = [...BIGINT_SUMS, ...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit', 'first_ms', 'last_ms'];
  const aggregate = [...BIGINT_SUMS, ...DOUBLE_SUMS].map((c) => `sum(${c})`).concat(['max(max_usd_profit)', 'min(min_usd_profit)', 'min(first_ms)', 'max(last_ms)']).join(', ');
  return {
    async up(db: Kysely<any>): Promise<void> {
      let t = db.schema.createTable('ru_day_user_t').addColumn('day', a.bigint, (c) => c.notNull());
      for (const k of ['player', 'token']) t = t.addColumn(k, a.text, (c) => c.notNull());
      for (const c of BIGINT_SUMS) t = t.addColumn(c, a.bigint, (col) => col.notNull());
      for (const c of [...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit']) t = t.addColumn(c, a.double, (col) => col.notNull());
      for (const c of ['first_ms', 'last_ms']) t = t.addColumn(c, a.bigint, (col) => col.notNull());
      await t.addPrimaryKeyConstraint('ru_day_user_t_pk', ['day', 'player', 'token'] as never).execute();
      const cols = VALUES.join(', ');
      await sql.raw(`insert into ru_day_user_t (day, player, token, ${cols})
        select day, player, token, ${aggregate} from ru_daily group by day, player, token`).execute(db);
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
