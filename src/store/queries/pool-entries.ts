import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { MS_PER_DAY } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database, RuPoolTable } from '../schema.js';
import type { PoolEntry, PoolQuery, PoolsQuery, PoolsResult, PoolSortBy } from '../types.js';
import { POOL_TOTAL_SUMS, type PoolTotalSum } from '../rollups/definitions.js';
import { big, joinHiLoRow, num, sumsOf, u64TextHalves } from './common.js';
import { keysetKinds, positionValues } from './keyset.js';

/**
 * GET /pools and GET /pool (docs/design.md §3–§4) from the per-pool rollup ru_pool (migration
 * 0006): a page reads `limit + 1` entries of the (sort key desc, pool) index, or the
 * (token, sort key desc, pool) one with a token filter. A window of GET /pool adds whole UTC
 * days from ru_pool_day and the raw games of its partial first and last days (bounded reads,
 * docs/architecture.md).
 */
const SORT_COLUMN: Record<PoolSortBy, 'tvl_usd' | 'usd_wager' | 'plays' | 'usd_pool_fee' | 'created_ms'> = {
  tvl_usd: 'tvl_usd',
  usd_volume: 'usd_wager',
  plays: 'plays',
  pool_fees_usd: 'usd_pool_fee',
  created_time: 'created_ms',
};

/** Game figures of a pool over some span (all time, or a window). */
interface GameFigures {
  plays: number;
  volume: bigint;
  usd_volume: number;
  pool_fees: bigint;
  pool_fees_usd: number;
  house_pnl: bigint;
  house_pnl_usd: number;
}

function figuresOf(r: Record<string, unknown>): GameFigures {
  const volume = joinHiLoRow(r, 'wager');
  return {
    plays: num(r.plays),
    volume,
    usd_volume: num(r.usd_wager),
    pool_fees: joinHiLoRow(r, 'pool_fee'),
    pool_fees_usd: num(r.usd_pool_fee),
    house_pnl: volume - joinHiLoRow(r, 'payout'),
    house_pnl_usd: num(r.usd_house_pnl),
  };
}

function entryOf(r: Selectable<RuPoolTable>, figures: GameFigures): PoolEntry {
  const liquidity = r.liquidity === null ? 0n : big(r.liquidity);
  const lp = r.lp_supply === null ? null : big(r.lp_supply);
  const created = num(r.created_ms);
  return {
    pool: r.pool,
    token: r.token,
    authority: r.authority,
    created_time: created < 0 ? null : created,
    liquidity,
    lp_supply: lp,
    // An empty pool mints LP 1:1 (docs/simulator.md, the Gamba explorer shows 1), like /ratio.
    lp_price: lp === null ? null : lp === 0n ? 1 : Number(liquidity) / Number(lp),
    tvl_usd: num(r.tvl_usd),
    ...figures,
    last_activity: num(r.last_ms),
  };
}

/** GET /pools: every pool, ordered by `sortBy` desc then pool asc; keyset position (`after`, `next`) over (key, pool). */
export async function pools(db: Kysely<Database>, q: PoolsQuery): Promise<PoolsResult> {
  const col = SORT_COLUMN[q.sortBy];
  let list = db.selectFrom('ru_pool').selectAll();
  if (q.token !== undefined) list = list.where('token', '=', q.token);
  if (q.after !== undefined) {
    const [value, pool] = positionValues(q.after, keysetKinds('pools')) as [number, string];
    // The leading key's bound lets both engines seek the index; the OR resumes inside a tie.
    list = list.where(col, '<=', value).where((eb) => eb.or([eb(col, '<', value), eb('pool', '>', pool)]));
  }
  const rows = await list.orderBy(col, 'desc').orderBy('pool', 'asc').limit(q.limit + 1).execute();
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    results: page.map((r) => entryOf(r, figuresOf(r as unknown as Record<string, unknown>))),
    next: rows.length > q.limit && last ? { values: [num(last[col]), last.pool] } : null,
  };
}

/**
 * GET /pool: one pool (undefined when never seen). With a window [startTime, endTime) the game
 * figures are the window's: ru_pool_day rows of the UTC days wholly inside it, plus the raw games
 * of the days it cuts (each bounded by a day of the pool's games).
 */
export async function pool(db: Kysely<Database>, a: DialectAdapter, q: PoolQuery): Promise<PoolEntry | undefined> {
  const row = await db.selectFrom('ru_pool').selectAll().where('pool', '=', q.pool).executeTakeFirst();
  if (!row) return undefined;
  if (q.startTime === undefined && q.endTime === undefined) return entryOf(row, figuresOf(row as unknown as Record<string, unknown>));
  return entryOf(row, await windowFigures(db, a, q.pool, q.startTime, q.endTime));
}

/**
 * Each ru_pool sum (rollups/definitions.ts POOL_TOTALS) aggregated over raw games rows: the
 * pool fee's halves from its decimal text (u64TextHalves), its USD and the house PnL in USD
 * from the stored price per smallest unit (0 while un-priced).
 */
function poolTotalsOfGames(a: DialectAdapter): Record<PoolTotalSum, RawBuilder<unknown>> {
  const fee = u64TextHalves(a, 'pool_fee');
  const double = sql.raw(a.double);
  return {
    plays: sql`count(*)`,
    wager_hi: sql`sum(wager_hi)`,
    wager_lo: sql`sum(wager_lo)`,
    payout_hi: sql`sum(payout_hi)`,
    payout_lo: sql`sum(payout_lo)`,
    pool_fee_hi: sql`sum(${fee.hi})`,
    pool_fee_lo: sql`sum(${fee.lo})`,
    usd_wager: sql`sum(usd_wager)`,
    usd_pool_fee: sql`sum(coalesce(cast(pool_fee as ${double}) * usd_per_unit, 0))`,
    usd_house_pnl: sql`sum(coalesce((cast(wager as ${double}) - cast(payout as ${double})) * usd_per_unit, 0))`,
  };
}

async function windowFigures(db: Kysely<Database>, a: DialectAdapter, pool: string, start: number | undefined, end: number | undefined): Promise<GameFigures> {
  // Whole days: [firstDay, endDay) with firstDay·DAY ≥ start and endDay·DAY ≤ end.
  const firstDay = start === undefined ? undefined : Math.ceil(start / MS_PER_DAY);
  const endDay = end === undefined ? undefined : Math.floor(end / MS_PER_DAY);
  const parts: Record<string, unknown>[] = [];
  const raw: [number, number][] = [];
  if (firstDay === undefined || endDay === undefined || firstDay < endDay) {
    const res = await sql<Record<string, unknown>>`select ${sumsOf(POOL_TOTAL_SUMS)}
      from ru_pool_day where pool = ${pool}
        ${firstDay === undefined ? sql`` : sql`and day >= ${firstDay}`} ${endDay === undefined ? sql`` : sql`and day < ${endDay}`}`.execute(db);
    parts.push(res.rows[0] ?? {});
    if (start !== undefined && firstDay !== undefined && start < firstDay * MS_PER_DAY) raw.push([start, firstDay * MS_PER_DAY]);
    if (end !== undefined && endDay !== undefined && end > endDay * MS_PER_DAY) raw.push([endDay * MS_PER_DAY, end]);
  } else if (start !== undefined && end !== undefined && start < end) {
    // Shorter than two days and holding no whole day: raw games only.
    raw.push([start, end]);
  }
  const ofGames = poolTotalsOfGames(a);
  const select = sql.join(POOL_TOTAL_SUMS.map((c) => sql`${ofGames[c]} as ${sql.raw(c)}`));
  for (const [from, to] of raw) {
    // A range of less than two days on the (pool, time_ms) index (migration 0002 g_pool_time).
    const res = await sql<Record<string, unknown>>`select ${select}
      from games where pool = ${pool} and time_ms >= ${from} and time_ms < ${to}`.execute(db);
    parts.push(res.rows[0] ?? {});
  }
  const total: GameFigures = { plays: 0, volume: 0n, usd_volume: 0, pool_fees: 0n, pool_fees_usd: 0, house_pnl: 0n, house_pnl_usd: 0 };
  for (const p of parts) {
    const f = figuresOf(p);
    total.plays += f.plays;
    total.volume += f.volume;
    total.usd_volume += f.usd_volume;
    total.pool_fees += f.pool_fees;
    total.pool_fees_usd += f.pool_fees_usd;
    total.house_pnl += f.house_pnl;
    total.house_pnl_usd += f.house_pnl_usd;
  }
  return total;
}
