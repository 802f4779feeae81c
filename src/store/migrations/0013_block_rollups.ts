import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * 32-day block rollups (docs/design.md §7 "Bounded windows", docs/architecture.md "Storage"), so a
 * long window reads its whole blocks, then days at its edges, then hours or raw games, instead of
 * one row per day:
 * - ru_block_daily: per block × creator × token × pool × player (the block grain of ru_daily) —
 *   windowed /players with a creator, token or pool, /house-edge grouped by or filtered on a
 *   player, the distinct players of a closed /platforms window;
 * - ru_block_game: per block × game kind × creator × token × pool (the block grain of
 *   ru_day_game) — /house-edge windows without a player;
 * - ru_block_user_t: per block × player × token — /house-edge windows grouped by or filtered on
 *   a player without a creator or pool filter (a seventh of ru_block_daily's rows or fewer).
 * A block is the UTC day number divided by 32, rounded down (as ru_block_user, migration 0004).
 * Each carries every game rollup column (GameSums of schema.ts), filled here from the day rollups
 * by plain SQL (frozen with this migration, docs/architecture.md convention 12), as the write path
 * keeps them incrementally.
 */
export function migration0013(a: DialectAdapter) {
  const dbl = a.double;
  const big = a.bigint;
  const BIGINT_SUMS = ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo', 'wins', 'expected_hi', 'expected_lo'];
  const DOUBLE_SUMS = ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net'];
  const VALUES = [...BIGINT_SUMS, ...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit', 'first_ms', 'last_ms'];
  const aggregate = [...BIGINT_SUMS, ...DOUBLE_SUMS].map((c) => `sum(${c})`).concat(['max(max_usd_profit)', 'min(min_usd_profit)', 'min(first_ms)', 'max(last_ms)']).join(', ');

  const table = async (db: Kysely<any>, name: string, keys: string[]): Promise<void> => {
    let t = db.schema.createTable(name).addColumn('block', big, (c) => c.notNull());
    for (const k of keys) t = t.addColumn(k, a.text, (c) => c.notNull());
    for (const c of BIGINT_SUMS) t = t.addColumn(c, big, (col) => col.notNull());
    for (const c of [...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit']) t = t.addColumn(c, dbl, (col) => col.notNull());
    for (const c of ['first_ms', 'last_ms']) t = t.addColumn(c, big, (col) => col.notNull());
    await t.addPrimaryKeyConstraint(`${name}_pk`, ['block', ...keys] as never).execute();
  };

  const fill = async (db: Kysely<any>): Promise<void> => {
    const cols = VALUES.join(', ');
    await sql.raw(`insert into ru_block_daily (block, creator, token, pool, player, ${cols})
      select day / 32, creator, token, pool, player, ${aggregate} from ru_daily group by day / 32, creator, token, pool, player`).execute(db);
    await sql.raw(`insert into ru_block_game (block, game_kind, creator, token, pool, ${cols})
      select day / 32, game_kind, creator, token, pool, ${aggregate} from ru_day_game group by day / 32, game_kind, creator, token, pool`).execute(db);
    await sql.raw(`insert into ru_block_user_t (block, player, token, ${cols})
      select day / 32, player, token, ${aggregate} from ru_daily group by day / 32, player, token`).execute(db);
  };

  return {
    async up(db: Kysely<any>): Promise<void> {
      await table(db, 'ru_block_daily', ['creator', 'token', 'pool', 'player']);
      // Windows filtered on a pool or a token read that filter's blocks (as ru_daily's indexes, migration 0001).
      await db.schema.createIndex('ru_block_daily_pool').on('ru_block_daily').columns(['pool', 'block']).execute();
      await db.schema.createIndex('ru_block_daily_token').on('ru_block_daily').columns(['token', 'block']).execute();
      await table(db, 'ru_block_game', ['game_kind', 'creator', 'token', 'pool']);
      await table(db, 'ru_block_user_t', ['player', 'token']);
      if (db.isTransaction) await fill(db);
      else await db.transaction().execute((trx) => fill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
