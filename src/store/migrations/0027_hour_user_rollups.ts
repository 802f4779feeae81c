import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * `ru_hour_user_t`: per UTC day × player × token × UTC hour (hour_ms, the start of the hour in
 * Unix ms), so the rows a window's page needs from its cut days — the page's players of the
 * `/players` top-N and of `/house-edge?groupBy=player` — are read as the whole hours of the cut
 * part from this table and at most an hour of raw games at each end, instead of up to a day of raw
 * games (docs/design.md §7 "Hours of the cut days"). Keyed (day, player, token, hour_ms): one
 * player's hours of a day are adjacent, so a page's players are a key search each. Every game
 * rollup column (GameSums of schema.ts), filled here from the raw games by plain SQL (frozen with
 * this migration, docs/architecture.md convention 12), as the write path keeps it incrementally.
 * On SQLite the table is `WITHOUT ROWID` (docs/architecture.md "Clustered rollups"). One
 * transaction: a failure leaves the store as it was.
 */
export function migration0027(a: DialectAdapter) {
  const BIGINT_SUMS = ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo', 'wins', 'expected_hi', 'expected_lo'];
  const DOUBLE_SUMS = ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net'];
  const VALUES = [...BIGINT_SUMS, ...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit', 'first_ms', 'last_ms'];
  /** What one game adds to each column (the write path's per-game values, rollups/definitions.ts as of this migration). */
  const OF_GAME: Record<string, string> = {
    plays: '1',
    jackpots: 'is_jackpot',
    wins: '(case when payout_hi > wager_hi or (payout_hi = wager_hi and payout_lo > wager_lo) then 1 else 0 end)',
  };
  const sums = [...BIGINT_SUMS, ...DOUBLE_SUMS].map((c) => sql.raw(`sum(${OF_GAME[c] ?? c})`));
  const extremes = [
    sql`max(${a.greatest(sql.raw('0.0'), sql.raw('usd_profit'))})`,
    sql`min(${a.least(sql.raw('0.0'), sql.raw('usd_profit'))})`,
    sql.raw('min(time_ms)'),
    sql.raw('max(time_ms)'),
  ];

  const run = async (db: Kysely<any>): Promise<void> => {
    let c = db.schema.createTable('ru_hour_user_t').addColumn('day', a.bigint, (col) => col.notNull());
    for (const k of ['player', 'token']) c = c.addColumn(k, a.text, (col) => col.notNull());
    c = c.addColumn('hour_ms', a.bigint, (col) => col.notNull());
    for (const v of BIGINT_SUMS) c = c.addColumn(v, a.bigint, (col) => col.notNull());
    for (const v of [...DOUBLE_SUMS, 'max_usd_profit', 'min_usd_profit']) c = c.addColumn(v, a.double, (col) => col.notNull());
    for (const v of ['first_ms', 'last_ms']) c = c.addColumn(v, a.bigint, (col) => col.notNull());
    c = c.addPrimaryKeyConstraint('ru_hour_user_t_pk', ['day', 'player', 'token', 'hour_ms'] as never);
    await (a.kind === 'sqlite' ? c.modifyEnd(sql`without rowid`) : c).execute();
    await sql`insert into ru_hour_user_t (day, player, token, hour_ms, ${sql.raw(VALUES.join(', '))})
      select day, player, token, hour_ms, ${sql.join([...sums, ...extremes])} from games
      group by day, player, token, hour_ms order by day, player, token, hour_ms`.execute(db);
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
