import { sql, type Kysely } from 'kysely';
import { MS_PER_DAY, MS_PER_HOUR } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { LpPricePoint, LpPriceQuery, LpState, PoolReturns, PoolReturnsQuery } from '../types-house.js';
import { big, num } from './common.js';
import { pool } from './pool-entries.js';
import { poolStateBefore } from './pools.js';

/**
 * GET /pool/lp-price and GET /pool/returns (docs/design.md §10). LP price = liquidity / LP supply
 * (docs/design.md §3 `lp_price`; docs/protocol.md "Meanings"): liquidity from the latest
 * GameSettled.poolLiquidity or PoolChange.postLiquidity, LP supply from the latest
 * PoolChange.lpSupply, "latest" in (time, slot, signature, event index) order.
 */

/** Milliseconds per bucket of each interval. */
export const LP_INTERVAL_MS = { hour: MS_PER_HOUR, day: MS_PER_DAY } as const;

function stateOf(liquidity: bigint, lp: bigint): LpState {
  return { liquidity, lp_supply: lp, lp_price: lp === 0n ? 1 : Number(liquidity) / Number(lp) };
}

/**
 * Dense LP price points, one per UTC hour or day from the bucket holding startTime to the last
 * bucket starting before endTime; each is the state after every event of the pool with
 * time < the bucket's end. Buckets before the first LP supply are omitted. Hours: reads the window's rows of
 * ru_pool_hour (pool × hour: its last liquidity and LP supply); days: lpPriceCoarse. Then two index
 * seeks for the state carried in from before the window, as /ratio does.
 */
export async function lpPrice(db: Kysely<Database>, q: LpPriceQuery): Promise<LpPricePoint[]> {
  const step = LP_INTERVAL_MS[q.interval];
  const first = Math.floor(q.startTime / step) * step;
  if (first >= q.endTime) return [];
  const lastEnd = Math.floor((q.endTime - 1) / step) * step + step;
  if (step > MS_PER_HOUR) return lpPriceCoarse(db, q.pool, step, first, lastEnd);
  const rows = await db
    .selectFrom('ru_pool_hour')
    .select(['hour_ms', 'liquidity', 'lp_supply'])
    .where('pool', '=', q.pool)
    .where('hour_ms', '>=', first)
    .where('hour_ms', '<', lastEnd)
    .orderBy('hour_ms')
    .execute();
  let { liquidity: liq, lpSupply: lp } = await poolStateBefore(db, q.pool, first);
  const out: LpPricePoint[] = [];
  let i = 0;
  for (let t = first; t < lastEnd; t += step) {
    for (; i < rows.length && num(rows[i]!.hour_ms) < t + step; i++) {
      liq = big(rows[i]!.liquidity);
      if (rows[i]!.lp_supply !== null) lp = big(rows[i]!.lp_supply);
    }
    if (liq === null || lp === null) continue;
    out.push({ time: t, ...stateOf(liq, lp) });
  }
  return out;
}

/**
 * lpPrice for buckets of several hours (a UTC day): each bucket's liquidity and LP supply are
 * those of its last ru_pool_hour row (its last row with an LP supply, for the supply), or carried
 * from the bucket before when it has none: the same points as the hour-by-hour walk. One
 * statement: the bucket starts from a recursive CTE, each bucket's two values a backward seek of
 * the primary key (pool, hour_ms) within it, so a year of days reads ≈ 730 index entries,
 * however many hours of the year hold a row (a grouped scan of every hour row took 5 ms at 1M
 * games: docs/benchmarks.md "LP price days by seeks").
 */
async function lpPriceCoarse(db: Kysely<Database>, poolAddress: string, step: number, first: number, lastEnd: number): Promise<LpPricePoint[]> {
  // Bucket starts cast to integers: a bound JS number is a double in SQLite.
  const rows = await sql<{ t: unknown; liquidity: string | null; lp_supply: string | null }>`with recursive b(t) as (
      select cast(${first} as bigint) union all select t + ${sql.lit(step)} from b where t + ${sql.lit(step)} < ${lastEnd}
    )
    select t,
      (select liquidity from ru_pool_hour h where h.pool = ${poolAddress} and h.hour_ms >= b.t and h.hour_ms < b.t + ${sql.lit(step)} order by h.hour_ms desc limit 1) as liquidity,
      (select lp_supply from ru_pool_hour h where h.pool = ${poolAddress} and h.hour_ms >= b.t and h.hour_ms < b.t + ${sql.lit(step)} and h.lp_supply is not null order by h.hour_ms desc limit 1) as lp_supply
    from b order by t`.execute(db);
  let { liquidity: liq, lpSupply: lp } = await poolStateBefore(db, poolAddress, first);
  const out: LpPricePoint[] = [];
  for (const r of rows.rows) {
    if (r.liquidity !== null) liq = big(r.liquidity);
    if (r.lp_supply !== null) lp = big(r.lp_supply);
    if (liq === null || lp === null) continue;
    out.push({ time: num(r.t), ...stateOf(liq, lp) });
  }
  return out;
}

/**
 * The pool's LP state after its last event with time < t (ms): the last pool change's LP supply
 * and the last game's or pool change's liquidity; null before its first pool change. Index seeks
 * on (pool, time_ms) of games and pool_changes.
 */
async function stateBefore(db: Kysely<Database>, poolAddress: string, t: number): Promise<LpState | null> {
  const change = await sql<{ time_ms: unknown; slot: unknown; signature: string; event_index: unknown; post_liquidity: string; lp_supply: string }>`
    select time_ms, slot, signature, event_index, post_liquidity, lp_supply from pool_changes
    where pool = ${poolAddress} and time_ms < ${t} order by time_ms desc, slot desc, signature desc, event_index desc limit 1`.execute(db);
  const c = change.rows[0];
  if (!c) return null;
  const game = await sql<{ time_ms: unknown; slot: unknown; signature: string; event_index: unknown; pool_liquidity: string }>`
    select time_ms, slot, signature, event_index, pool_liquidity from games
    where pool = ${poolAddress} and time_ms < ${t} order by time_ms desc, slot desc, signature desc, event_index desc limit 1`.execute(db);
  const g = game.rows[0];
  const gameIsLater =
    g !== undefined &&
    (num(g.time_ms) !== num(c.time_ms) ? num(g.time_ms) > num(c.time_ms)
      : num(g.slot) !== num(c.slot) ? num(g.slot) > num(c.slot)
        : g.signature !== c.signature ? g.signature > c.signature
          : num(g.event_index) > num(c.event_index));
  return stateOf(gameIsLater ? big(g.pool_liquidity) : big(c.post_liquidity), big(c.lp_supply));
}

/**
 * GET /pool/returns: the LP state before startTime and before endTime, and the window's game
 * figures (GET /pool's window: plays, volume, pool fees, house PnL); undefined for a pool never seen.
 */
export async function poolReturns(db: Kysely<Database>, a: DialectAdapter, q: PoolReturnsQuery): Promise<PoolReturns | undefined> {
  const entry = await pool(db, a, q);
  if (!entry) return undefined;
  return {
    pool: entry.pool,
    token: entry.token,
    start: await stateBefore(db, q.pool, q.startTime),
    end: await stateBefore(db, q.pool, q.endTime),
    plays: entry.plays,
    volume: entry.volume,
    usd_volume: entry.usd_volume,
    pool_fees: entry.pool_fees,
    pool_fees_usd: entry.pool_fees_usd,
    house_pnl: entry.house_pnl,
    house_pnl_usd: entry.house_pnl_usd,
  };
}
