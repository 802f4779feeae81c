import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * The SQL of a time-grain game rollup (this migration's hour tables, migration 0020's quarter-hour
 * tables): the table with every game rollup column, and the aggregate of raw games it is filled
 * with (`sums`, naming `SUM_NAMES`; the pool sums from `feeHi`, `feeLo`, `usdPoolFee`, `usdHousePnl`).
 * Frozen with the migrations that use it (docs/architecture.md convention 12).
 */
export function timeGrainRollupSql(a: DialectAdapter) {
  const dbl = a.double;
  const big = a.bigint;
  const BIGINT_SUMS = ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo', 'wins', 'expected_hi', 'expected_lo'];
  /** A win: payout > wager, compared on the u64 halves (as migration 0008). */
  const WIN = '(case when payout_hi > wager_hi or (payout_hi = wager_hi and payout_lo > wager_lo) then 1 else 0 end)';
  const DOUBLE_SUMS = ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net', 'max_usd_profit', 'min_usd_profit'];
  /** 32-bit halves of a u64 held as decimal text, exact on both engines (as migration 0006). */
  const hiLo = (col: string): [string, string] => {
    const A = `(case when length(${col}) > 9 then cast(substr(${col}, 1, length(${col}) - 9) as ${big}) else 0 end)`;
    const B = `cast(case when length(${col}) > 9 then substr(${col}, length(${col}) - 8) else ${col} end as ${big})`;
    const t = `((${A} % 4294967296) * 1000000000 + ${B})`;
    return [`((${A} / 4294967296) * 1000000000 + ${t} / 4294967296)`, `(${t} % 4294967296)`];
  };
  const [feeHi, feeLo] = hiLo('pool_fee');
  const usdPoolFee = `coalesce(cast(pool_fee as ${dbl}) * usd_per_unit, 0)`;
  const usdHousePnl = `coalesce((cast(wager as ${dbl}) - cast(payout as ${dbl})) * usd_per_unit, 0)`;
  const SUM_NAMES = [...BIGINT_SUMS, ...DOUBLE_SUMS, 'first_ms', 'last_ms'].join(', ');
  const sums = `count(*), sum(is_jackpot), sum(wager_hi), sum(wager_lo), sum(payout_hi), sum(payout_lo), sum(jackpot_hi), sum(jackpot_lo),
      sum(${WIN}), sum(expected_hi), sum(expected_lo),
      sum(usd_wager), sum(usd_profit), sum(usd_creator_fee), sum(usd_gamba_fee), sum(usd_net),
      case when max(usd_profit) > 0 then max(usd_profit) else 0 end, case when min(usd_profit) < 0 then min(usd_profit) else 0 end,
      min(time_ms), max(time_ms)`;

  const table = async (db: Kysely<any>, name: string, keys: { name: string; int?: boolean }[], poolSums: boolean): Promise<void> => {
    let t = db.schema.createTable(name);
    for (const k of keys) t = t.addColumn(k.name, k.int ? big : a.text, (c) => c.notNull());
    for (const c of BIGINT_SUMS) t = t.addColumn(c, big, (col) => col.notNull());
    for (const c of DOUBLE_SUMS) t = t.addColumn(c, dbl, (col) => col.notNull());
    for (const c of ['first_ms', 'last_ms']) t = t.addColumn(c, big, (col) => col.notNull());
    if (poolSums) {
      for (const c of ['pool_fee_hi', 'pool_fee_lo']) t = t.addColumn(c, big, (col) => col.notNull());
      for (const c of ['usd_pool_fee', 'usd_house_pnl']) t = t.addColumn(c, dbl, (col) => col.notNull());
    }
    await t.addPrimaryKeyConstraint(`${name}_pk`, keys.map((k) => k.name) as never).execute();
  };

  return { SUM_NAMES, sums, feeHi, feeLo, usdPoolFee, usdHousePnl, table };
}

/**
 * Hour-grain game rollups (docs/design.md §4 "Windows", docs/architecture.md "Storage"), so hour
 * intervals, day buckets in any time zone and the partial first and last day of a window read
 * hours instead of raw games:
 * - ru_hour: per UTC hour (hour_ms = start of the hour, Unix ms) — charts without a creator, /stats;
 * - ru_hour_c: per creator × hour — charts of a creator, /stats of a creator, /platforms windows;
 * - ru_hour_p: per pool × hour (token = the pool's), with the pool-side sums — /daily.
 * Each carries every game rollup column (GameSums of schema.ts: counts, u64 halves, USD sums,
 * best win / worst loss, first / last play, and migration 0008's `wins` and Σ expected payout
 * halves) and ru_hour_p the pool sums of migration 0006, and is
 * filled here from the raw games by plain SQL (frozen with this migration, docs/architecture.md
 * convention 12), as the write path keeps them incrementally.
 */
export function migration0010(a: DialectAdapter) {
  const { SUM_NAMES, sums, feeHi, feeLo, usdPoolFee, usdHousePnl, table } = timeGrainRollupSql(a);
  const fill = async (db: Kysely<any>): Promise<void> => {
    await sql.raw(`insert into ru_hour (hour_ms, ${SUM_NAMES}) select hour_ms, ${sums} from games group by hour_ms`).execute(db);
    await sql.raw(`insert into ru_hour_c (creator, hour_ms, ${SUM_NAMES}) select creator, hour_ms, ${sums} from games group by creator, hour_ms`).execute(db);
    await sql.raw(`insert into ru_hour_p (pool, hour_ms, token, ${SUM_NAMES}, pool_fee_hi, pool_fee_lo, usd_pool_fee, usd_house_pnl)
      select pool, hour_ms, token, ${sums}, sum(${feeHi}), sum(${feeLo}), sum(${usdPoolFee}), sum(${usdHousePnl})
      from games group by pool, hour_ms, token`).execute(db);
  };

  return {
    async up(db: Kysely<any>): Promise<void> {
      await table(db, 'ru_hour', [{ name: 'hour_ms', int: true }], false);
      await table(db, 'ru_hour_c', [{ name: 'creator' }, { name: 'hour_ms', int: true }], false);
      // /platforms windows read every creator's hours of a range.
      await db.schema.createIndex('ru_hour_c_hour').on('ru_hour_c').columns(['hour_ms', 'creator']).execute();
      await table(db, 'ru_hour_p', [{ name: 'pool' }, { name: 'hour_ms', int: true }, { name: 'token' }], true);
      if (db.isTransaction) await fill(db);
      else await db.transaction().execute((trx) => fill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
