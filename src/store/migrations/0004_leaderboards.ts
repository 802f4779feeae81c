import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

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
 * Existing data is re-rolled-up from raw events in the same migration, by the plain SQL below
 * (frozen as of this migration, docs/architecture.md convention 12: it imports no live code, so
 * later changes to the write path or to the set of derived tables cannot change what it does).
 */
export function migration0004(a: DialectAdapter) {
  // GameSums columns (schema.ts), as in migrations 0001/0002.
  const BIGINT_SUMS = ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo'];
  const DOUBLE_SUMS = ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net', 'max_usd_profit', 'min_usd_profit'];
  // Every game rollup as of this migration, with its key columns.
  const GAME_ROLLUPS: [string, string[]][] = [
    ['ru_daily', ['day', 'creator', 'token', 'pool', 'player']],
    ['ru_day', ['day']],
    ['ru_day_c', ['day', 'creator']],
    ['ru_pool_day', ['pool', 'day', 'token']],
    ['ru_ctp', ['creator', 'token', 'pool']],
    ['ru_user_ctp', ['player', 'creator', 'token', 'pool']],
    ['ru_user', ['player']],
    ['ru_user_c', ['player', 'creator']],
    ['ru_user_t', ['player', 'token']],
    ['ru_user_tp', ['player', 'token', 'pool']],
    ['ru_user_ct', ['player', 'creator', 'token']],
    ['ru_day_user', ['day', 'player']],
    ['ru_block_user', ['block', 'player']],
  ];
  /**
   * Fills every derived table from the raw events (games, pool_changes, signatures) with
   * `insert … select … group by`, producing what the write path keeps incrementally:
   * - GameSums: counts and sums per key; max_usd_profit = max(0, max usd_profit), min_usd_profit =
   *   min(0, min usd_profit); first_ms/last_ms = min/max time_ms; `block` = day / 32 (32-day blocks).
   * - ru_pool_hour: per pool and UTC hour, the liquidity of the hour's last game or pool change and
   *   the LP supply of its last pool change, in chain order (slot, signature, event index), each
   *   with its order key (fixed-width text: slot padded to 12 digits, event index to 4).
   * - ru_counter: player counts per filter shape, signatures, pool changes (all and per pool),
   *   un-priced games.
   */
  const refill = async (db: Kysely<any>): Promise<void> => {
    for (const [t] of GAME_ROLLUPS) await sql.raw(`delete from ${t}`).execute(db);
    await sql.raw('delete from ru_pool_hour').execute(db);
    await sql.raw('delete from ru_counter').execute(db);
    const sums = `count(*), sum(is_jackpot), sum(wager_hi), sum(wager_lo), sum(payout_hi), sum(payout_lo), sum(jackpot_hi), sum(jackpot_lo),
      sum(usd_wager), sum(usd_profit), sum(usd_creator_fee), sum(usd_gamba_fee), sum(usd_net),
      case when max(usd_profit) > 0 then max(usd_profit) else 0 end, case when min(usd_profit) < 0 then min(usd_profit) else 0 end,
      min(time_ms), max(time_ms)`;
    for (const [t, keys] of GAME_ROLLUPS) {
      const exprs = keys.map((k) => (k === 'block' ? 'day / 32' : k)).join(', ');
      await sql.raw(`insert into ${t} (${keys.join(', ')}, ${[...BIGINT_SUMS, ...DOUBLE_SUMS, 'first_ms', 'last_ms'].join(', ')})
        select ${exprs}, ${sums} from games group by ${exprs}`).execute(db);
    }
    const key = (slot: string, sig: string, idx: string) =>
      `substr('000000000000' || ${slot}, length('000000000000' || ${slot}) - 11) || ' ' || ${sig} || ' ' || substr('0000' || ${idx}, length('0000' || ${idx}) - 3)`;
    const latest = 'row_number() over (partition by pool, hour_ms order by slot desc, signature desc, event_index desc)';
    await sql.raw(`insert into ru_pool_hour (pool, hour_ms, liq_key, liquidity, lp_key, lp_supply)
      select l.pool, l.hour_ms, l.k, l.liquidity, c.k, c.lp_supply
      from (select pool, hour_ms, ${key('slot', 'signature', 'event_index')} as k, liquidity, ${latest} as rn
            from (select pool, hour_ms, slot, signature, event_index, pool_liquidity as liquidity from games
                  union all
                  select pool, hour_ms, slot, signature, event_index, post_liquidity as liquidity from pool_changes) ev) l
      left join (select pool, hour_ms, ${key('slot', 'signature', 'event_index')} as k, lp_supply, ${latest} as rn from pool_changes) c
        on c.pool = l.pool and c.hour_ms = l.hour_ms and c.rn = 1
      where l.rn = 1`).execute(db);
    const counters = [
      `select 'players', count(*) from ru_user`,
      `select 'players:c:' || creator, count(*) from ru_user_c group by creator`,
      `select 'players:t:' || token, count(*) from ru_user_t group by token`,
      `select 'players:p:' || pool, count(*) from ru_user_tp group by pool`,
      `select 'players:ct:' || creator || ':' || token, count(*) from ru_user_ct group by creator, token`,
      `select 'players:cp:' || creator || ':' || pool, count(*) from ru_user_ctp group by creator, pool`,
      `select 'signatures', count(*) from signatures`,
      `select 'pool_changes', count(*) from pool_changes`,
      `select 'unpriced_games', count(*) from games where usd_per_unit is null`,
      `select 'pool_changes:' || pool, count(*) from pool_changes group by pool`,
    ];
    for (const c of counters) await sql.raw(`insert into ru_counter (name, n) ${c}`).execute(db);
  };

  const rollup = async (db: Kysely<any>, name: string, keys: { name: string; int?: boolean }[]) => {
    let t = db.schema.createTable(name);
    for (const k of keys) t = t.addColumn(k.name, k.int ? a.bigint : a.text, (c) => c.notNull());
    for (const c of BIGINT_SUMS) t = t.addColumn(c, a.bigint, (col) => col.notNull());
    for (const c of DOUBLE_SUMS) t = t.addColumn(c, a.double, (col) => col.notNull());
    for (const c of ['first_ms', 'last_ms']) t = t.addColumn(c, a.bigint, (col) => col.notNull());
    await t.addPrimaryKeyConstraint(`${name}_pk`, keys.map((k) => k.name) as never).execute();
  };
  // Leaderboard sort keys (GET /players sortBy) as the SQL expressions these indexes are built on;
  // queries must ORDER BY the same text (src/store/rollups/definitions.ts SORT_KEYS holds today's copy).
  const SORT_KEYS = {
    usd_profit: 'usd_profit',
    usd_volume: 'usd_wager',
    token_volume: '(wager_hi * 4294967296.0 + wager_lo)',
    token_profit: '((payout_hi + jackpot_hi - wager_hi) * 4294967296.0 + (payout_lo + jackpot_lo - wager_lo))',
  } as const;
  type LeaderboardSort = keyof typeof SORT_KEYS;
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

      // Re-roll-up existing data (0002 added `jackpots` and deferred this to here), atomically.
      if (db.isTransaction) await refill(db);
      else await db.transaction().execute((trx) => refill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
