import { sql, type Kysely } from 'kysely';
import { hourFloor, joinHiLo, MS_PER_DAY, MS_PER_HOUR } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { DailyQuery, PlatformByPoolEntry, PoolDailyPoint, PoolTotal, RatioPoint, TokenEntry, TokensQuery } from '../types.js';
import { VOLUME_COLUMNS } from '../rollups/definitions.js';
import { seriesSums } from './charts.js';
import { big, dayRange, joinHiLoRow, num, poolToken, sumsOf } from './common.js';
import { keysetKinds, positionValues } from './keyset.js';

/** Σ of the volume columns (rollups/definitions.ts VOLUME_COLUMNS). */
const VOLUME_SUMS = sumsOf(VOLUME_COLUMNS);

/** GET /platforms-by-pool: all-time per creator for one pool from ru_ctp; volume desc, creator asc. */
export async function platformsByPool(db: Kysely<Database>, pool: string): Promise<PlatformByPoolEntry[]> {
  const res = await sql<Record<string, unknown>>`select creator, ${VOLUME_SUMS}
    from ru_ctp where pool = ${pool} group by creator`.execute(db);
  const rows = res.rows.map((r) => ({ creator: String(r.creator), volume: joinHiLoRow(r, 'wager'), usd_volume: num(r.usd_wager), plays: num(r.plays) }));
  return rows.sort((x, y) => (x.volume === y.volume ? (x.creator < y.creator ? -1 : 1) : x.volume > y.volume ? -1 : 1));
}

/**
 * GET /tokens: all-time per token (optionally one creator) from ru_ctp, with the mint's decimals; usd_volume desc, token asc;
 * at most `limit` rows after the keyset position [usd_volume, token] (docs/design.md §4).
 */
export async function tokens(db: Kysely<Database>, q: TokensQuery): Promise<TokenEntry[]> {
  const pos = q.after === undefined ? undefined : (positionValues(q.after, keysetKinds('tokens')) as [number, string]);
  const after = pos === undefined ? sql`` : sql`where usd_wager <= ${pos[0]} and (usd_wager < ${pos[0]} or token > ${pos[1]})`;
  const res = await sql<Record<string, unknown>>`select t.*, (select m.decimals from mints m where m.mint = t.token) as decimals from (select token, ${VOLUME_SUMS}
    from ru_ctp where 1=1 ${q.creator === undefined ? sql`` : sql`and creator = ${q.creator}`} group by token) t ${after}
    order by usd_wager desc, token asc ${q.limit === undefined ? sql`` : sql`limit ${q.limit}`}`.execute(db);
  return res.rows.map((r) => ({ token: String(r.token), plays: num(r.plays), volume: joinHiLoRow(r, 'wager'), usd_volume: num(r.usd_wager), decimals: r.decimals === null || r.decimals === undefined ? null : Number(r.decimals) }));
}

/** GET /total: all-time volume of one pool. An unknown pool answers zeros with token null. */
export async function total(db: Kysely<Database>, pool: string): Promise<PoolTotal> {
  const res = await sql<Record<string, unknown>>`select ${VOLUME_SUMS}
    from ru_ctp where pool = ${pool}`.execute(db);
  const row = res.rows[0] ?? {};
  return { pool, token: (await poolToken(db, pool)) ?? null, volume: joinHiLoRow(row, 'wager'), usd_volume: num(row.usd_wager), plays: num(row.plays) };
}

/** GET /daily: dense series of one pool (SeriesQuery: `days` dates ending today by default, or a window; day, hour or week buckets in tz). */
export async function daily(db: Kysely<Database>, a: DialectAdapter, q: DailyQuery): Promise<PoolDailyPoint[]> {
  // ru_pool_day (migration 0004) for whole UTC days, ru_hour_p (migration 0010) for whole hours, raw games for sub-hour edges.
  const rows = await seriesSums(db, a, q, { day: 'ru_pool_day', hour: 'ru_hour_p', filter: { pool: q.pool } }, ['plays', 'wager_hi', 'wager_lo', 'usd_wager']);
  return rows.map(({ bucket, sums }) => ({
    date: bucket.date,
    time: bucket.time,
    volume: joinHiLo((sums.wager_hi ?? 0n) as bigint, (sums.wager_lo ?? 0n) as bigint),
    volume_usd: num(sums.usd_wager),
    plays: num(sums.plays),
  }));
}

/** Window of /ratio: the last 30 days (docs/design.md §4). */
export const RATIO_WINDOW_MS = 30 * MS_PER_DAY;

/**
 * A pool's state before the UTC hour starting at `hourMs` (Unix ms), from `ru_pool_hour`: the last
 * liquidity and the last LP supply of earlier hours (smallest units; null before the pool's first
 * settle or pool change). The starting point of /ratio and /pool/lp-price (docs/design.md §10).
 */
export async function poolStateBefore(db: Kysely<Database>, pool: string, hourMs: number): Promise<{ liquidity: bigint | null; lpSupply: bigint | null }> {
  const prevLiq = await db.selectFrom('ru_pool_hour').select('liquidity').where('pool', '=', pool).where('hour_ms', '<', hourMs).orderBy('hour_ms', 'desc').limit(1).executeTakeFirst();
  const prevLp = await db
    .selectFrom('ru_pool_hour')
    .select('lp_supply')
    .where('pool', '=', pool)
    .where('hour_ms', '<', hourMs)
    .where('lp_supply', 'is not', null)
    .orderBy('hour_ms', 'desc')
    .limit(1)
    .executeTakeFirst();
  return { liquidity: prevLiq ? big(prevLiq.liquidity) : null, lpSupply: prevLp?.lp_supply != null ? big(prevLp.lp_supply) : null };
}

/**
 * GET /ratio: hourly points for each UTC hour from hourFloor(now − 30 d) to hourFloor(now):
 * the pool's liquidity and LP supply at the end of that hour (carried forward from the latest
 * event at or before it), ratio = liquidity / lp_supply (1 when lp_supply is 0, as the Gamba
 * explorer does). Hours before both values are known are omitted. Reads the window's rows of
 * ru_pool_hour plus two index seeks (the last LP supply before the window: partial index
 * ru_pool_hour_lp, migration 0004).
 */
export async function ratio(db: Kysely<Database>, q: { pool: string; now: number }): Promise<RatioPoint[]> {
  const start = hourFloor(q.now - RATIO_WINDOW_MS);
  const end = hourFloor(q.now);
  const rows = await db
    .selectFrom('ru_pool_hour')
    .selectAll()
    .where('pool', '=', q.pool)
    .where('hour_ms', '>=', start)
    .where('hour_ms', '<=', end)
    .orderBy('hour_ms')
    .execute();
  let { liquidity: liq, lpSupply: lp } = await poolStateBefore(db, q.pool, start);
  const byHour = new Map(rows.map((r) => [num(r.hour_ms), r]));
  const out: RatioPoint[] = [];
  for (let h = start; h <= end; h += MS_PER_HOUR) {
    const r = byHour.get(h);
    if (r) {
      liq = big(r.liquidity);
      if (r.lp_supply !== null) lp = big(r.lp_supply);
    }
    if (liq === null || lp === null) continue;
    out.push({ time: h, pool_liquidity: liq, lp_supply: lp, ratio: lp === 0n ? 1 : Number(liq) / Number(lp) });
  }
  return out;
}
