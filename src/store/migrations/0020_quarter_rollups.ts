import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';
import { timeGrainRollupSql } from './0010_hour_rollups.js';

/**
 * Quarter-hour game rollups (docs/design.md §7 "Bounded windows", docs/architecture.md "Storage"):
 * the hour rollups of migration 0010 at a 15-minute grain, so a range whose ends fall on a
 * quarter hour reads no raw game. Every offset of a time zone is a multiple of 15 minutes, so the
 * hour and day buckets of half-hour and 45-minute zones (`Asia/Kolkata`, `Asia/Kathmandu`,
 * `Australia/Adelaide`) are read from rollups; a window's cut ends read at most 15 minutes of
 * raw games each instead of an hour.
 * - ru_quarter: per UTC quarter hour (quarter_ms = its start, Unix ms, a multiple of 900,000);
 * - ru_quarter_c: per creator × quarter hour (with an index by quarter hour, for every creator of a range);
 * - ru_quarter_p: per pool × quarter hour (token = the pool's), with the pool sums.
 * Same columns as the hour rollups, filled here from the raw games by plain SQL (frozen with
 * this migration, docs/architecture.md convention 12), as the write path keeps them incrementally.
 */
export function migration0020(a: DialectAdapter) {
  const { SUM_NAMES, sums, feeHi, feeLo, usdPoolFee, usdHousePnl, table } = timeGrainRollupSql(a);
  const quarter = '(time_ms - time_ms % 900000)';
  const fill = async (db: Kysely<any>): Promise<void> => {
    await sql.raw(`insert into ru_quarter (quarter_ms, ${SUM_NAMES}) select ${quarter}, ${sums} from games group by ${quarter}`).execute(db);
    await sql.raw(`insert into ru_quarter_c (creator, quarter_ms, ${SUM_NAMES}) select creator, ${quarter}, ${sums} from games group by creator, ${quarter}`).execute(db);
    await sql.raw(`insert into ru_quarter_p (pool, quarter_ms, token, ${SUM_NAMES}, pool_fee_hi, pool_fee_lo, usd_pool_fee, usd_house_pnl)
      select pool, ${quarter}, token, ${sums}, sum(${feeHi}), sum(${feeLo}), sum(${usdPoolFee}), sum(${usdHousePnl})
      from games group by pool, ${quarter}, token`).execute(db);
  };
  return {
    async up(db: Kysely<any>): Promise<void> {
      await table(db, 'ru_quarter', [{ name: 'quarter_ms', int: true }], false);
      await table(db, 'ru_quarter_c', [{ name: 'creator' }, { name: 'quarter_ms', int: true }], false);
      await db.schema.createIndex('ru_quarter_c_quarter').on('ru_quarter_c').columns(['quarter_ms', 'creator']).execute();
      await table(db, 'ru_quarter_p', [{ name: 'pool' }, { name: 'quarter_ms', int: true }, { name: 'token' }], true);
      if (db.isTransaction) await fill(db);
      else await db.transaction().execute((trx) => fill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
