import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import { SORT_KEYS, type LeaderboardSort } from '../sort-keys.js';
import { rebuildRollupsIn } from '../write.js';

/**
 * docs/benchmarks.md: answers bounded by their own size at any history size (docs/design.md §7).
 * - All-time leaderboards with filters read limit + offset rows of an index: one player rollup
 *   per filter shape — per (player, creator), (player, token), (player, token, pool) and
 *   (player, creator, token); ru_user_ctp serves creator + pool — each indexed on
 *   (filter columns, sort key desc, player) for every `sortBy` the filter allows (token_* need
 *   one token, docs/design.md §4). Their totals are counters ('players:<shape>:…') kept by the write path.
 * - Per-day series without the creator × token × pool fan-out: ru_day (charts), ru_day_c (charts
 *   and windowed sums per creator: /stats, /platforms) and ru_pool_day (/daily). ru_day_ctp,
 *   read by nothing any more, is dropped.
 * - Unfiltered `startTime` leaderboards read ru_block_user (per player × 32-day block) and
 *   ru_day_user (per player × day) instead of the creator × token × pool fan-out of ru_daily.
 * - A partial index on the hours of a pool where the LP supply changed (/ratio's carry-forward).
 * Existing data is re-rolled-up from raw events in the same migration.
 */
export function migration0004(a: DialectAdapter) {
  // GameSums columns (schema.ts), as in migrations 0001/0002.
  const BIGINT_SUMS = ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo'];
  const DOUBLE_SUMS = ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net', 'max_usd_profit', 'min_usd_profit'];
  const rollup = async (db: Kysely<any>, name: string, keys: { name: string; int?: boolean }[]) => {
    let t = db.schema.createTable(name);
    for (const k of keys) t = t.addColumn(k.name, k.int ? a.bigint : a.text, (c) => c.notNull());
    for (const c of BIGINT_SUMS) t = t.addColumn(c, a.bigint, (col) => col.notNull());
    for (const c of DOUBLE_SUMS) t = t.addColumn(c, a.double, (col) => col.notNull());
    for (const c of ['first_ms', 'last_ms']) t = t.addColumn(c, a.bigint, (col) => col.notNull());
    await t.addPrimaryKeyConstraint(`${name}_pk`, keys.map((k) => k.name) as never).execute();
  };
  const sortIndexes = async (db: Kysely<any>, table: string, prefix: string[], sorts: LeaderboardSort[]) => {
    for (const s of sorts) {
      const cols = [...prefix, `${SORT_KEYS[s]} desc`, 'player'].join(', ');
      await sql.raw(`create index ${table}_${prefix.map((p) => p[0]).join('')}_${s} on ${table} (${cols})`).execute(db);
    }
  };
  const ALL: LeaderboardSort[] = ['usd_profit', 'usd_volume', 'token_volume', 'token_profit'];
  const USD: LeaderboardSort[] = ['usd_profit', 'usd_volume'];
  return {
    async up(db: Kysely<any>): Promise<void> {
      await rollup(db, 'ru_user_c', [{ name: 'player' }, { name: 'creator' }]);
      await rollup(db, 'ru_user_t', [{ name: 'player' }, { name: 'token' }]);
      await rollup(db, 'ru_user_tp', [{ name: 'player' }, { name: 'token' }, { name: 'pool' }]);
      await rollup(db, 'ru_user_ct', [{ name: 'player' }, { name: 'creator' }, { name: 'token' }]);
      await sortIndexes(db, 'ru_user_c', ['creator'], USD);
      await sortIndexes(db, 'ru_user_t', ['token'], ALL);
      await sortIndexes(db, 'ru_user_tp', ['pool'], ALL);
      await sortIndexes(db, 'ru_user_ct', ['creator', 'token'], ALL);
      await sortIndexes(db, 'ru_user_ctp', ['creator', 'pool'], ALL);
      // Players active in a window (last play ≥ its start; migration 0003's reasoning): one row
      // per player (and creator), so counts need no DISTINCT.
      await db.schema.createIndex('ru_user_last').on('ru_user').columns(['last_ms']).execute();
      await db.schema.createIndex('ru_user_c_last').on('ru_user_c').columns(['last_ms', 'creator']).execute();
      await db.schema.createIndex('ru_user_c_creator_last').on('ru_user_c').columns(['creator', 'last_ms']).execute();
      // Served by the tables above, the counters and ru_user_ctp_creator_last (migration 0003).
      // (ru_user_ctp_last / _creator_last of 0003 gave way to ru_user_last / ru_user_c_last.)
      for (const i of ['ru_user_ctp_creator', 'ru_user_ctp_token', 'ru_user_ctp_pool', 'ru_user_ctp_last', 'ru_user_ctp_creator_last']) await db.schema.dropIndex(i).execute();

      await rollup(db, 'ru_day', [{ name: 'day', int: true }]);
      await rollup(db, 'ru_day_c', [{ name: 'day', int: true }, { name: 'creator' }]);
      await db.schema.createIndex('ru_day_c_creator').on('ru_day_c').columns(['creator', 'day']).execute();
      await rollup(db, 'ru_pool_day', [{ name: 'pool' }, { name: 'day', int: true }, { name: 'token' }]);
      await db.schema.dropTable('ru_day_ctp').execute();
      // Unfiltered startTime leaderboards: per player and day, and per player and 32-day block.
      await rollup(db, 'ru_day_user', [{ name: 'day', int: true }, { name: 'player' }]);
      await rollup(db, 'ru_block_user', [{ name: 'block', int: true }, { name: 'player' }]);

      await db.schema.createIndex('ru_pool_hour_lp').on('ru_pool_hour').columns(['pool', 'hour_ms']).where(sql.ref('lp_supply'), 'is not', null).execute();

      await rebuildRollupsIn(db, a);
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
