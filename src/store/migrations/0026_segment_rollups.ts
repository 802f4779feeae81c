import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * 8-day segment rollups between the UTC days and the 32-day blocks (docs/design.md §7 "Segments at
 * the block edges"), so the days a window holds at each edge of its whole blocks — up to 31 a
 * side — are read as at most 3 whole segments and 7 days instead of one row per day:
 * - ru_seg_user: per segment × player (the segment grain of ru_day_user and ru_block_user) — the
 *   top-N of `/players` windows by USD volume or profit; sort indexes (seg, usd_wager desc, player)
 *   and (seg, usd_profit desc, player) are its lists, the primary key its random access;
 * - ru_seg_user_c: per segment × creator × player (of ru_day_user_c and ru_block_user_c) — the same
 *   with a creator; sort indexes (seg, creator, usd_wager desc, player) and
 *   (seg, creator, usd_profit desc, player);
 * - ru_seg_user_t: per segment × player × token (of ru_day_user_t and ru_block_user_t) —
 *   `/house-edge?groupBy=player` over a window, by primary key.
 * A segment is the UTC day number divided by 8, rounded down (rollups/definitions.ts SEG_DAYS). Each
 * carries every game rollup column (GameSums of schema.ts), filled here from the day rollups by
 * plain SQL (frozen with this migration, docs/architecture.md convention 12), as the write path
 * keeps them incrementally. On SQLite the tables are `WITHOUT ROWID` from the start: their indexes
 * hold every key column, the rule of migration 0025 (docs/architecture.md "Clustered rollups").
 */
export function migration0026(a: DialectAdapter) {
  const BIGINT_SUMS = ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo', 'wins', 'expected_hi', 'expected_lo'];
  const DOUBLE_SUMS = ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net'];
  const VALUES = [...BIGINT_SUMS, ...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit', 'first_ms', 'last_ms'];
  const aggregate = [...BIGINT_SUMS, ...DOUBLE_SUMS].map((c) => `sum(${c})`).concat(['max(max_usd_profit)', 'min(min_usd_profit)', 'min(first_ms)', 'max(last_ms)']).join(', ');
  const TABLES = [
    { name: 'ru_seg_user', keys: ['player'], from: 'ru_day_user', sorted: true },
    { name: 'ru_seg_user_c', keys: ['creator', 'player'], from: 'ru_day_user_c', sorted: true },
    { name: 'ru_seg_user_t', keys: ['player', 'token'], from: 'ru_day_user_t', sorted: false },
  ] as const;

  const run = async (db: Kysely<any>): Promise<void> => {
    for (const t of TABLES) {
      let c = db.schema.createTable(t.name).addColumn('seg', a.bigint, (col) => col.notNull());
      for (const k of t.keys) c = c.addColumn(k, a.text, (col) => col.notNull());
      for (const v of BIGINT_SUMS) c = c.addColumn(v, a.bigint, (col) => col.notNull());
      for (const v of [...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit']) c = c.addColumn(v, a.double, (col) => col.notNull());
      for (const v of ['first_ms', 'last_ms']) c = c.addColumn(v, a.bigint, (col) => col.notNull());
      c = c.addPrimaryKeyConstraint(`${t.name}_pk`, ['seg', ...t.keys] as never);
      await (a.kind === 'sqlite' ? c.modifyEnd(sql`without rowid`) : c).execute();
      // The lists of the top-N: a segment's players (of one creator) best first by each sort key.
      const unit = t.name === 'ru_seg_user_c' ? ['seg', 'creator'] : ['seg'];
      if (t.sorted) {
        await db.schema.createIndex(`${t.name}_volume`).on(t.name).columns([...unit, 'usd_wager desc', 'player']).execute();
        await db.schema.createIndex(`${t.name}_profit`).on(t.name).columns([...unit, 'usd_profit desc', 'player']).execute();
      }
      const keys = t.keys.join(', ');
      const cols = VALUES.join(', ');
      await sql.raw(`insert into ${t.name} (seg, ${keys}, ${cols})
        select day / 8, ${keys}, ${aggregate} from ${t.from} group by day / 8, ${keys} order by day / 8, ${keys}`).execute(db);
    }
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
