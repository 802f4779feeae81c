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
 * lpPrice for buckets of several hours (a UTC day): each bucket's liquidity is that of its last
 * ru_pool_hour row (one row per bucket: a grouped max over the primary key, then a search each),
 * and the LP supply comes from the window's pool changes (the rows that set ru_pool_hour's
 * lp_supply), in (time, slot, signature, event index) order. A year of days reads ≈ 365 hour
 * rows instead of ≈ 8,760. The same points as the hour-by-hour walk.
 */
async function lpPriceCoarse(db: Kysely<Database>, poolAddress: string, step: number, first: number, lastEnd: number): Promise<LpPricePoint[]> {
  // The bucket length inlined: a bound JS number is a double in SQLite, and hour_ms / 86400000.0 would not group by day.
  const hours = await sql<{ hour_ms: unknown; liquidity: string }>`select hour_ms, liquidity from ru_pool_hour where pool = ${poolAddress} and hour_ms in (
      select max(hour_ms) from ru_pool_hour where pool = ${poolAddress} and hour_ms >= ${first} and hour_ms < ${lastEnd} group by hour_ms / ${sql.lit(step)}
    ) order by hour_ms`.execute(db);
  const changes = await sql<{ time_ms: unknown; lp_supply: string }>`select time_ms, lp_supply from pool_changes
    where pool = ${poolAddress} and time_ms >= ${first} and time_ms < ${lastEnd} order by time_ms, slot, signature, event_index`.execute(db);
  let { liquidity: liq, lpSupply: lp } = await poolStateBefore(db, poolAddress, first);
  const out: LpPricePoint[] = [];
  let i = 0;
  let j = 0;
  for (let t = first; t < lastEnd; t += step) {
    for (; i < hours.rows.length && num(hours.rows[i]!.hour_ms) < t + step; i++) liq = big(hours.rows[i]!.liquidity);
    for (; j < changes.rows.length && num(changes.rows[j]!.time_ms) < t + step; j++) lp = big(changes.rows[j]!.lp_supply);
    if (liq === null || lp === null) continue;
    out.push({ time: t, ...stateOf(liq, lp) });
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
