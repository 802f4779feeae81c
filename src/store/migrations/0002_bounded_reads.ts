import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * docs/benchmarks.md (docs/design.md §7: no request reads history): slimmer listing indexes that cover every
 * filter × orderBy of /events/settledGames, an all-time per (player, creator, token, pool)
 * rollup replacing per (player, creator, token), a `jackpots` count in every game rollup, and
 * named counters for totals that were COUNT(*) over history. Existing data is re-rolled-up
 * from raw events by migration 0004.
 */
export function migration0002(a: DialectAdapter) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Listing indexes. Ties of the order key beyond time_ms (signature, event_index) are few
      // (games of one second), so both engines sort just those (SQLite "temp b-tree for right
      // part of order by", PostgreSQL incremental sort) instead of carrying the 88-byte
      // signature in every index entry.
      for (const name of ['games_time', 'games_player_time', 'games_creator_time', 'games_token_time', 'games_pool_time', 'games_jackpot_time', 'games_multiplier', 'games_usd_profit', 'games_unpriced']) {
        await db.schema.dropIndex(name).execute();
      }
      const orders: [string, string[]][] = [
        ['time', ['time_ms']],
        ['mult', ['multiplier_bps', 'time_ms']],
        ['profit', ['usd_profit', 'time_ms']],
      ];
      for (const [o, cols] of orders) {
        await db.schema.createIndex(`g_${o}`).on('games').columns(cols).execute();
        for (const f of ['player', 'creator', 'token', 'pool']) {
          await db.schema.createIndex(`g_${f}_${o}`).on('games').columns([f, ...cols]).execute();
        }
        // Jackpots are rare: partial indexes stay tiny (queries spell `is_jackpot = 1` literally).
        await db.schema.createIndex(`g_jackpot_${o}`).on('games').columns(cols).where(sql.ref('is_jackpot'), '=', sql.lit(1)).execute();
      }
      await db.schema.createIndex('g_unpriced').on('games').columns(['token', 'hour_ms']).where(sql.ref('usd_per_unit'), 'is', null).execute();
      await db.schema.dropIndex('pool_changes_unpriced').execute();
      await db.schema.createIndex('pc_unpriced').on('pool_changes').columns(['token', 'hour_ms']).where(sql.ref('usd_per_unit'), 'is', null).execute();

      for (const t of ['ru_daily', 'ru_day_ctp', 'ru_ctp', 'ru_user']) {
        await db.schema.alterTable(t).addColumn('jackpots', a.bigint, (c) => c.notNull().defaultTo(0)).execute();
      }
      await db.schema.dropTable('ru_user_ct').execute();
      let t = db.schema
        .createTable('ru_user_ctp')
        .addColumn('player', a.text, (c) => c.notNull())
        .addColumn('creator', a.text, (c) => c.notNull())
        .addColumn('token', a.text, (c) => c.notNull())
        .addColumn('pool', a.text, (c) => c.notNull())
        .addColumn('plays', a.bigint, (c) => c.notNull())
        .addColumn('jackpots', a.bigint, (c) => c.notNull());
      for (const c of ['wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo']) t = t.addColumn(c, a.bigint, (col) => col.notNull());
      for (const c of ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net', 'max_usd_profit', 'min_usd_profit']) t = t.addColumn(c, a.double, (col) => col.notNull());
      t = t.addColumn('first_ms', a.bigint, (c) => c.notNull()).addColumn('last_ms', a.bigint, (c) => c.notNull());
      await t.addPrimaryKeyConstraint('ru_user_ctp_pk', ['player', 'creator', 'token', 'pool']).execute();
      for (const f of ['creator', 'token', 'pool']) await db.schema.createIndex(`ru_user_ctp_${f}`).on('ru_user_ctp').columns([f, 'player']).execute();

      // The unfiltered leaderboard reads the top N straight from these (ORDER BY key DESC, player ASC).
      await db.schema.dropIndex('ru_user_usd_profit').execute();
      await db.schema.dropIndex('ru_user_usd_wager').execute();
      await db.schema.createIndex('ru_user_by_profit').on('ru_user').columns(['usd_profit desc', 'player']).execute();
      await db.schema.createIndex('ru_user_by_volume').on('ru_user').columns(['usd_wager desc', 'player']).execute();

      await db.schema
        .createTable('ru_counter')
        .addColumn('name', a.text, (c) => c.primaryKey())
        .addColumn('n', a.bigint, (c) => c.notNull())
        .execute();

      // Re-rolling up existing data happens once, in the last migration that changes rollups
      // (0004): the rebuild is today's code and writes today's tables, which don't exist yet here.
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
