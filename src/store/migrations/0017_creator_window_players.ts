import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * Per-player rollups of one creator by UTC day and by 32-day block, for the early-stopping top-N
 * of `/players` windows with a `creator`, and USD profit lists for it without one (docs/design.md
 * §7 "Top-N over a window's parts"):
 * - ru_day_user_c: per UTC day × creator × player (ru_daily without token and pool);
 * - ru_block_user_c: per 32-day block × creator × player (ru_block_daily without token and pool).
 * Each row is a player's whole day or block with the creator, so a day's or block's rows sorted by
 * a sum bound every player's share of it, which ru_daily's per token × pool rows do not. Sort
 * indexes (unit, creator, usd_wager desc, player) and (unit, creator, usd_profit desc, player) are
 * the lists the top-N reads; random access uses the primary keys. Without a creator the lists are
 * ru_block_user / ru_day_user, whose USD volume indexes migration 0014 made: here (block,
 * usd_profit desc, player) and (day, usd_profit desc, player) join them. Every game rollup column
 * (GameSums of schema.ts), filled here from ru_daily and ru_block_daily by plain SQL (frozen with
 * this migration, docs/architecture.md convention 12).
 */
export function migration0017(a: DialectAdapter) {
  const dbl = a.double;
  const big = a.bigint;
  const BIGINT_SUMS = ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo', 'wins', 'expected_hi', 'expected_lo'];
  const DOUBLE_SUMS = ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net'];
  const VALUES = [...BIGINT_SUMS, ...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit', 'first_ms', 'last_ms'];
  const aggregate = [...BIGINT_SUMS, ...DOUBLE_SUMS].map((c) => `sum(${c})`).concat(['max(max_usd_profit)', 'min(min_usd_profit)', 'min(first_ms)', 'max(last_ms)']).join(', ');

  const table = async (db: Kysely<any>, name: string, unit: 'day' | 'block'): Promise<void> => {
    let t = db.schema.createTable(name).addColumn(unit, big, (c) => c.notNull());
    for (const k of ['creator', 'player']) t = t.addColumn(k, a.text, (c) => c.notNull());
    for (const c of BIGINT_SUMS) t = t.addColumn(c, big, (col) => col.notNull());
    for (const c of [...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit']) t = t.addColumn(c, dbl, (col) => col.notNull());
    for (const c of ['first_ms', 'last_ms']) t = t.addColumn(c, big, (col) => col.notNull());
    await t.addPrimaryKeyConstraint(`${name}_pk`, [unit, 'creator', 'player'] as never).execute();
    await db.schema.createIndex(`${name}_volume`).on(name).columns([unit, 'creator', 'usd_wager desc', 'player']).execute();
    await db.schema.createIndex(`${name}_profit`).on(name).columns([unit, 'creator', 'usd_profit desc', 'player']).execute();
  };

  return {
    async up(db: Kysely<any>): Promise<void> {
      await table(db, 'ru_day_user_c', 'day');
      await table(db, 'ru_block_user_c', 'block');
      await db.schema.createIndex('ru_block_user_profit').on('ru_block_user').columns(['block', 'usd_profit desc', 'player']).execute();
      await db.schema.createIndex('ru_day_user_profit').on('ru_day_user').columns(['day', 'usd_profit desc', 'player']).execute();
      const cols = VALUES.join(', ');
      await sql.raw(`insert into ru_day_user_c (day, creator, player, ${cols})
        select day, creator, player, ${aggregate} from ru_daily group by day, creator, player`).execute(db);
      await sql.raw(`insert into ru_block_user_c (block, creator, player, ${cols})
        select block, creator, player, ${aggregate} from ru_block_daily group by block, creator, player`).execute(db);
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
