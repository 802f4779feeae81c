import type { Kysely, CreateTableBuilder } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * Initial schema: raw events (the truth), reference data, sync state, API keys and rollups
 * (derived; docs/design.md §7). Append-only: a released migration is never edited (docs/architecture.md convention 12).
 */
export function migration0001(a: DialectAdapter) {
  const sumColumns = (t: CreateTableBuilder<any, any>): CreateTableBuilder<any, any> =>
    t
      .addColumn('plays', a.bigint, (c) => c.notNull())
      .addColumn('wager_hi', a.bigint, (c) => c.notNull())
      .addColumn('wager_lo', a.bigint, (c) => c.notNull())
      .addColumn('payout_hi', a.bigint, (c) => c.notNull())
      .addColumn('payout_lo', a.bigint, (c) => c.notNull())
      .addColumn('jackpot_hi', a.bigint, (c) => c.notNull())
      .addColumn('jackpot_lo', a.bigint, (c) => c.notNull())
      .addColumn('usd_wager', a.double, (c) => c.notNull())
      .addColumn('usd_profit', a.double, (c) => c.notNull())
      .addColumn('usd_creator_fee', a.double, (c) => c.notNull())
      .addColumn('usd_gamba_fee', a.double, (c) => c.notNull())
      .addColumn('usd_net', a.double, (c) => c.notNull())
      .addColumn('max_usd_profit', a.double, (c) => c.notNull())
      .addColumn('min_usd_profit', a.double, (c) => c.notNull())
      .addColumn('first_ms', a.bigint, (c) => c.notNull())
      .addColumn('last_ms', a.bigint, (c) => c.notNull());

  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('games')
        .addColumn('signature', a.text, (c) => c.notNull())
        .addColumn('event_index', 'integer', (c) => c.notNull())
        .addColumn('slot', a.bigint, (c) => c.notNull())
        .addColumn('block_time', a.bigint, (c) => c.notNull())
        .addColumn('time_ms', a.bigint, (c) => c.notNull())
        .addColumn('day', 'integer', (c) => c.notNull())
        .addColumn('hour_ms', a.bigint, (c) => c.notNull())
        .addColumn('player', a.text, (c) => c.notNull())
        .addColumn('creator', a.text, (c) => c.notNull())
        .addColumn('token', a.text, (c) => c.notNull())
        .addColumn('pool', a.text, (c) => c.notNull())
        .addColumn('wager', a.text, (c) => c.notNull())
        .addColumn('payout', a.text, (c) => c.notNull())
        .addColumn('jackpot', a.text, (c) => c.notNull())
        .addColumn('wager_hi', a.bigint, (c) => c.notNull())
        .addColumn('wager_lo', a.bigint, (c) => c.notNull())
        .addColumn('payout_hi', a.bigint, (c) => c.notNull())
        .addColumn('payout_lo', a.bigint, (c) => c.notNull())
        .addColumn('jackpot_hi', a.bigint, (c) => c.notNull())
        .addColumn('jackpot_lo', a.bigint, (c) => c.notNull())
        .addColumn('creator_fee', a.text, (c) => c.notNull())
        .addColumn('gamba_fee', a.text, (c) => c.notNull())
        .addColumn('pool_fee', a.text, (c) => c.notNull())
        .addColumn('jackpot_fee', a.text, (c) => c.notNull())
        .addColumn('multiplier_bps', a.bigint, (c) => c.notNull())
        .addColumn('is_jackpot', 'integer', (c) => c.notNull())
        .addColumn('pool_liquidity', a.text, (c) => c.notNull())
        .addColumn('usd_per_unit', a.double)
        .addColumn('usd_wager', a.double, (c) => c.notNull())
        .addColumn('usd_profit', a.double, (c) => c.notNull())
        .addColumn('usd_creator_fee', a.double, (c) => c.notNull())
        .addColumn('usd_gamba_fee', a.double, (c) => c.notNull())
        .addColumn('usd_net', a.double, (c) => c.notNull())
        .addColumn('data', a.text, (c) => c.notNull())
        .addPrimaryKeyConstraint('games_pk', ['signature', 'event_index'])
        .execute();
      // Listing indexes: (filter, order key, tie-breakers) so keyset pages read from an index.
      const gameIndexes: [string, string[]][] = [
        ['games_time', ['time_ms', 'signature', 'event_index']],
        ['games_player_time', ['player', 'time_ms', 'signature', 'event_index']],
        ['games_creator_time', ['creator', 'time_ms', 'signature', 'event_index']],
        ['games_token_time', ['token', 'time_ms', 'signature', 'event_index']],
        ['games_pool_time', ['pool', 'time_ms', 'signature', 'event_index']],
        ['games_jackpot_time', ['is_jackpot', 'time_ms', 'signature', 'event_index']],
        ['games_multiplier', ['multiplier_bps', 'time_ms', 'signature', 'event_index']],
        ['games_usd_profit', ['usd_profit', 'time_ms', 'signature', 'event_index']],
        ['games_unpriced', ['token', 'hour_ms', 'usd_per_unit']],
      ];
      for (const [name, cols] of gameIndexes) await db.schema.createIndex(name).on('games').columns(cols).execute();

      await db.schema
        .createTable('pool_changes')
        .addColumn('signature', a.text, (c) => c.notNull())
        .addColumn('event_index', 'integer', (c) => c.notNull())
        .addColumn('slot', a.bigint, (c) => c.notNull())
        .addColumn('block_time', a.bigint, (c) => c.notNull())
        .addColumn('time_ms', a.bigint, (c) => c.notNull())
        .addColumn('hour_ms', a.bigint, (c) => c.notNull())
        .addColumn('player', a.text, (c) => c.notNull())
        .addColumn('pool', a.text, (c) => c.notNull())
        .addColumn('token', a.text, (c) => c.notNull())
        .addColumn('action', a.text, (c) => c.notNull())
        .addColumn('amount', a.text, (c) => c.notNull())
        .addColumn('post_liquidity', a.text, (c) => c.notNull())
        .addColumn('lp_supply', a.text, (c) => c.notNull())
        .addColumn('usd_per_unit', a.double)
        .addColumn('usd_amount', a.double, (c) => c.notNull())
        .addPrimaryKeyConstraint('pool_changes_pk', ['signature', 'event_index'])
        .execute();
      await db.schema.createIndex('pool_changes_pool_time').on('pool_changes').columns(['pool', 'time_ms', 'signature', 'event_index']).execute();
      await db.schema.createIndex('pool_changes_unpriced').on('pool_changes').columns(['token', 'hour_ms', 'usd_per_unit']).execute();

      await db.schema
        .createTable('pools')
        .addColumn('pool', a.text, (c) => c.primaryKey())
        .addColumn('token', a.text, (c) => c.notNull())
        .addColumn('authority', a.text)
        .addColumn('created_signature', a.text)
        .addColumn('created_event_index', 'integer')
        .addColumn('created_time_ms', a.bigint)
        .execute();
      await db.schema
        .createTable('mints')
        .addColumn('mint', a.text, (c) => c.primaryKey())
        .addColumn('decimals', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('prices')
        .addColumn('mint', a.text, (c) => c.notNull())
        .addColumn('hour_ms', a.bigint, (c) => c.notNull())
        .addColumn('usd_price', a.double, (c) => c.notNull())
        .addColumn('source', a.text, (c) => c.notNull())
        .addColumn('publish_time', a.bigint)
        .addPrimaryKeyConstraint('prices_pk', ['mint', 'hour_ms'])
        .execute();
      await db.schema
        .createTable('signatures')
        .addColumn('signature', a.text, (c) => c.primaryKey())
        .addColumn('slot', a.bigint, (c) => c.notNull())
        .addColumn('block_time', a.bigint, (c) => c.notNull())
        .addColumn('failed', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('signatures_slot').on('signatures').columns(['slot']).execute();
      await db.schema
        .createTable('sync_state')
        .addColumn('key', a.text, (c) => c.primaryKey())
        .addColumn('value', a.text, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', a.text, (c) => c.primaryKey())
        .addColumn('name', a.text, (c) => c.notNull())
        .addColumn('tier', a.text, (c) => c.notNull())
        .addColumn('rpm', 'integer', (c) => c.notNull())
        .addColumn('burst', 'integer', (c) => c.notNull())
        .addColumn('key_hash', a.text, (c) => c.notNull().unique())
        .addColumn('created_at', a.bigint, (c) => c.notNull())
        .addColumn('expires_at', a.bigint)
        .addColumn('revoked_at', a.bigint)
        .execute();

      // Rollups (derived; `gamba-analytics rollups rebuild` recomputes them from raw events).
      await sumColumns(
        db.schema
          .createTable('ru_daily')
          .addColumn('day', 'integer', (c) => c.notNull())
          .addColumn('creator', a.text, (c) => c.notNull())
          .addColumn('token', a.text, (c) => c.notNull())
          .addColumn('pool', a.text, (c) => c.notNull())
          .addColumn('player', a.text, (c) => c.notNull()),
      )
        .addPrimaryKeyConstraint('ru_daily_pk', ['day', 'creator', 'token', 'pool', 'player'])
        .execute();
      await db.schema.createIndex('ru_daily_player').on('ru_daily').columns(['player', 'day']).execute();
      await db.schema.createIndex('ru_daily_pool').on('ru_daily').columns(['pool', 'day']).execute();
      await db.schema.createIndex('ru_daily_token').on('ru_daily').columns(['token', 'day']).execute();
      await sumColumns(
        db.schema
          .createTable('ru_day_ctp')
          .addColumn('day', 'integer', (c) => c.notNull())
          .addColumn('creator', a.text, (c) => c.notNull())
          .addColumn('token', a.text, (c) => c.notNull())
          .addColumn('pool', a.text, (c) => c.notNull()),
      )
        .addPrimaryKeyConstraint('ru_day_ctp_pk', ['day', 'creator', 'token', 'pool'])
        .execute();
      await db.schema.createIndex('ru_day_ctp_creator').on('ru_day_ctp').columns(['creator', 'day']).execute();
      await db.schema.createIndex('ru_day_ctp_pool').on('ru_day_ctp').columns(['pool', 'day']).execute();
      await sumColumns(
        db.schema
          .createTable('ru_ctp')
          .addColumn('creator', a.text, (c) => c.notNull())
          .addColumn('token', a.text, (c) => c.notNull())
          .addColumn('pool', a.text, (c) => c.notNull()),
      )
        .addPrimaryKeyConstraint('ru_ctp_pk', ['creator', 'token', 'pool'])
        .execute();
      await db.schema.createIndex('ru_ctp_pool').on('ru_ctp').columns(['pool']).execute();
      await db.schema.createIndex('ru_ctp_token').on('ru_ctp').columns(['token']).execute();
      await sumColumns(
        db.schema
          .createTable('ru_user_ct')
          .addColumn('player', a.text, (c) => c.notNull())
          .addColumn('creator', a.text, (c) => c.notNull())
          .addColumn('token', a.text, (c) => c.notNull()),
      )
        .addPrimaryKeyConstraint('ru_user_ct_pk', ['player', 'creator', 'token'])
        .execute();
      await db.schema.createIndex('ru_user_ct_creator').on('ru_user_ct').columns(['creator', 'player']).execute();
      await db.schema.createIndex('ru_user_ct_token').on('ru_user_ct').columns(['token', 'player']).execute();
      await sumColumns(db.schema.createTable('ru_user').addColumn('player', a.text, (c) => c.primaryKey())).execute();
      await db.schema.createIndex('ru_user_usd_profit').on('ru_user').columns(['usd_profit', 'player']).execute();
      await db.schema.createIndex('ru_user_usd_wager').on('ru_user').columns(['usd_wager', 'player']).execute();
      await db.schema
        .createTable('ru_pool_hour')
        .addColumn('pool', a.text, (c) => c.notNull())
        .addColumn('hour_ms', a.bigint, (c) => c.notNull())
        .addColumn('liq_key', a.text, (c) => c.notNull())
        .addColumn('liquidity', a.text, (c) => c.notNull())
        .addColumn('lp_key', a.text)
        .addColumn('lp_supply', a.text)
        .addPrimaryKeyConstraint('ru_pool_hour_pk', ['pool', 'hour_ms'])
        .execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
