import type { Kysely, Selectable } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import type { Database, RuPoolTable } from '../schema.js';
import type { PoolEntry, PoolQuery, PoolsQuery, PoolsResult, PoolSortBy } from '../types.js';
import { POOL_TOTAL_SUMS } from '../rollups/definitions.js';
import { big, joinHiLoRow, num } from './common.js';
import { keysetKinds, positionValues } from './keyset.js';
import { rangeSums } from './series.js';

/**
 * GET /pools and GET /pool (docs/design.md §3–§4) from the per-pool rollup ru_pool (migration
 * 0006): a page reads `limit + 1` entries of the (sort key desc, pool) index, or the
 * (token, sort key desc, pool) one with a token filter. A window of GET /pool reads whole UTC
 * days from ru_pool_day, whole hours and quarter hours from ru_hour_p / ru_quarter_p and the raw
 * games of the sub-quarter edges (bounded reads, docs/architecture.md).
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
 * figures are the window's, read as bounded reads (queries/series.ts rangeSums): ru_pool_day rows
 * of the UTC days wholly inside it, ru_hour_p and ru_quarter_p rows of the whole hours and
 * quarter hours of the days it cuts, and the raw games of the sub-quarter edges. An open side is
 * bounded by the history: the epoch, or just after the pool's last event (ru_pool.last_ms).
 */
export async function pool(db: Kysely<Database>, a: DialectAdapter, q: PoolQuery): Promise<PoolEntry | undefined> {
  const row = await db.selectFrom('ru_pool').selectAll().where('pool', '=', q.pool).executeTakeFirst();
  if (!row) return undefined;
  if (q.startTime === undefined && q.endTime === undefined) return entryOf(row, figuresOf(row as unknown as Record<string, unknown>));
  const range = { from: q.startTime ?? 0, to: q.endTime ?? num(row.last_ms) + 1 };
  const [sums] = await rangeSums(db, a, { day: 'ru_pool_day', hour: 'ru_hour_p', filter: { pool: q.pool } }, [range], POOL_TOTAL_SUMS);
  return entryOf(row, figuresOf(sums!.get('') ?? {}));
}

