import { sql, type Kysely, type RawBuilder } from 'kysely';
import { dayOf, joinHiLo, MS_PER_DAY } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import { BLOCK_DAYS, blockOf, PLAYER_COUNTERS } from '../rollups.js';

/** Driver values → JS: SQLite (safe integers) gives bigint, pg gives strings for bigint/numeric. */
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
export const big = (v: unknown): bigint => (v === null || v === undefined ? 0n : BigInt(v as string));

export interface GameFilter {
  creator?: string | undefined;
  token?: string | undefined;
  pool?: string | undefined;
  player?: string | undefined;
}

/** ` and col = ?` for each set filter (bound parameters; column names are constants). */
export function filterSql(f: GameFilter, alias = ''): RawBuilder<unknown> {
  const p = alias ? `${alias}.` : '';
  const parts: RawBuilder<unknown>[] = [];
  if (f.creator !== undefined) parts.push(sql`and ${sql.raw(p + 'creator')} = ${f.creator}`);
  if (f.token !== undefined) parts.push(sql`and ${sql.raw(p + 'token')} = ${f.token}`);
  if (f.pool !== undefined) parts.push(sql`and ${sql.raw(p + 'pool')} = ${f.pool}`);
  if (f.player !== undefined) parts.push(sql`and ${sql.raw(p + 'player')} = ${f.player}`);
  return parts.length ? sql.join(parts, sql` `) : sql``;
}

const SUMS = 'plays, jackpots, wager_hi, wager_lo, payout_hi, payout_lo, jackpot_hi, jackpot_lo, usd_wager, usd_profit, usd_creator_fee, usd_gamba_fee, usd_net, max_usd_profit, min_usd_profit, first_ms, last_ms';

/**
 * Rows of game sums per player (`player` + the GameSums columns of schema.ts) for games with
 * time ≥ startTime (ms) matching `f`, to be grouped by player. Cost grows with the window, not
 * with history (docs/design.md §7):
 * - with a creator/token/pool filter: ru_daily rows of whole days after the start day;
 * - without: ru_block_user rows of whole 32-day blocks after the start day's block, plus
 *   ru_day_user rows of that block's remaining days (migration 0004) — a year is ≤ 12 rows
 *   per player instead of one per player, day, creator, token and pool;
 * - plus, either way, the raw games of the (partial) start day. That part is bounded on both
 *   sides of `time_ms`: with only `time_ms >= startTime` SQLite's time index would walk every
 *   game from the start to now and filter `day` afterwards.
 */
export function windowSource(a: DialectAdapter, f: GameFilter, startTime: number): RawBuilder<unknown> {
  const d = dayOf(startTime);
  const filtered = f.creator !== undefined || f.token !== undefined || f.pool !== undefined || f.player !== undefined;
  const sums = sql.raw(SUMS);
  const days = filtered
    ? sql`select player, ${sums} from ru_daily where day > ${d} ${filterSql(f)}`
    : sql`select player, ${sums} from ru_block_user where block > ${blockOf(d)}
      union all
      select player, ${sums} from ru_day_user where day > ${d} and day < ${(blockOf(d) + 1) * BLOCK_DAYS}`;
  return sql`${days}
    union all
    select player, 1 as plays, is_jackpot as jackpots, wager_hi, wager_lo, payout_hi, payout_lo, jackpot_hi, jackpot_lo,
      usd_wager, usd_profit, usd_creator_fee, usd_gamba_fee, usd_net,
      ${a.greatest(sql`0.0`, sql.raw('usd_profit'))} as max_usd_profit, ${a.least(sql`0.0`, sql.raw('usd_profit'))} as min_usd_profit,
      time_ms as first_ms, time_ms as last_ms
    from games where day = ${d} and time_ms >= ${startTime} and time_ms < ${(d + 1) * MS_PER_DAY} ${filterSql(f)}`;
}

/** Exact token sums from summed 32-bit halves (core/u64.ts). */
export function tokenSums(r: Record<string, unknown>): { volume: bigint; profit: bigint } {
  const wager = joinHiLo(r.wager_hi as string, r.wager_lo as string);
  const payout = joinHiLo(r.payout_hi as string, r.payout_lo as string);
  const jackpot = joinHiLo(r.jackpot_hi as string, r.jackpot_lo as string);
  return { volume: wager, profit: payout + jackpot - wager };
}

/** SELECT list aggregating GameSums columns of a source. */
export const AGG_SUMS = sql.raw(`sum(plays) as plays, sum(wager_hi) as wager_hi, sum(wager_lo) as wager_lo,
  sum(payout_hi) as payout_hi, sum(payout_lo) as payout_lo, sum(jackpot_hi) as jackpot_hi, sum(jackpot_lo) as jackpot_lo,
  sum(usd_wager) as usd_wager, sum(usd_profit) as usd_profit, sum(usd_creator_fee) as usd_creator_fee,
  sum(usd_gamba_fee) as usd_gamba_fee, sum(usd_net) as usd_net, max(max_usd_profit) as max_usd_profit,
  min(min_usd_profit) as min_usd_profit, min(first_ms) as first_ms, max(last_ms) as last_ms`);

/** Approximate (double) order of exact token sums, for ORDER BY only; values are read exactly. */
export const TOKEN_VOLUME_ORDER = sql.raw(`(sum(wager_hi) * 4294967296.0 + sum(wager_lo))`);
export const TOKEN_PROFIT_ORDER = sql.raw(
  `((sum(payout_hi) + sum(jackpot_hi) - sum(wager_hi)) * 4294967296.0 + (sum(payout_lo) + sum(jackpot_lo) - sum(wager_lo)))`,
);

/** UTC day numbers of the dense series of `days` dates ending with today (docs/design.md §4). */
export function dayRange(days: number, now: number): { first: number; last: number } {
  const last = dayOf(now);
  return { first: last - days + 1, last };
}

/** Exact sum of a `<name>_hi` / `<name>_lo` column pair of a result row. */
export function joinHiLoRow(r: Record<string, unknown>, name: string): bigint {
  return joinHiLo(r[`${name}_hi`] as string, r[`${name}_lo`] as string);
}

/**
 * Rows a direct count of "players active since t" may read before the complement is cheaper
 * (activePlayers). Long windows hold most players; short ones few.
 */
const ACTIVE_COUNT_CAP = 2000;

/**
 * Players (per creator with `byCreator`) whose all-time last play is ≥ `since` (ms): every window
 * of the API is open towards now, so these are exactly the players of the window (migration
 * 0003's reasoning). One row per player in ru_user, per player and creator in ru_user_c (indexes
 * on last_ms, migration 0004). Reads at most ACTIVE_COUNT_CAP rows of the window's side; past
 * that, the answer is the write path's player counter minus the players whose last play is
 * before `since`, read from the same index. Returns creator → count ('' without byCreator).
 * `cap` is for tests of both paths.
 */
export async function activePlayers(
  db: Kysely<Database>,
  since: number,
  f: { creator?: string | undefined; byCreator?: boolean },
  cap = ACTIVE_COUNT_CAP,
): Promise<Map<string, number>> {
  const table = sql.raw(f.creator !== undefined || f.byCreator ? 'ru_user_c' : 'ru_user');
  const cf = f.creator === undefined ? sql`` : sql`and creator = ${f.creator}`;
  const group = f.byCreator ? sql`creator` : sql`''`;
  // The upper bound on last_ms changes no answer; it tells SQLite's planner (no table statistics)
  // that the range is narrow, so it searches the last_ms index instead of scanning the table.
  const probe = await sql<{ n: unknown }>`select count(*) as n from (select 1 from ${table}
    where last_ms >= ${since} and last_ms <= ${Number.MAX_SAFE_INTEGER} ${cf} limit ${cap}) w`.execute(db);
  const out = new Map<string, number>();
  if (num(probe.rows[0]?.n) < cap) {
    const rows = await sql<{ k: unknown; n: unknown }>`select ${group} as k, count(*) as n from ${table}
      where last_ms >= ${since} and last_ms <= ${Number.MAX_SAFE_INTEGER} ${cf} group by k`.execute(db);
    for (const r of rows.rows) out.set(String(r.k), num(r.n));
    return out;
  }
  // The write path's player counters (rollups.ts PLAYER_COUNTERS): all, one creator, or every creator.
  if (!f.byCreator) out.set('', await counter(db, f.creator === undefined ? PLAYER_COUNTERS.ru_user!({}) : PLAYER_COUNTERS.ru_user_c!({ creator: f.creator })));
  else {
    const prefix = PLAYER_COUNTERS.ru_user_c!({ creator: '' });
    // ';' is the character after ':': the range is exactly the names starting with the prefix.
    const rows = await sql<{ name: string; n: unknown }>`select name, n from ru_counter where name >= ${prefix} and name < ${`${prefix.slice(0, -1)};`}`.execute(db);
    for (const r of rows.rows) out.set(r.name.slice(prefix.length), num(r.n));
  }
  const before = await sql<{ k: unknown; n: unknown }>`select ${group} as k, count(*) as n from ${table} where last_ms < ${since} ${cf} group by k`.execute(db);
  for (const r of before.rows) out.set(String(r.k), (out.get(String(r.k)) ?? 0) - num(r.n));
  return out;
}

/** The token of a pool as its events recorded it (table pools), or undefined for a pool never seen. */
export async function poolToken(db: Kysely<Database>, pool: string): Promise<string | undefined> {
  return (await db.selectFrom('pools').select('token').where('pool', '=', pool).executeTakeFirst())?.token;
}

/** A named counter kept by the write path (table ru_counter; 0 when never incremented). */
export async function counter(db: Kysely<Database>, name: string): Promise<number> {
  const r = await db.selectFrom('ru_counter').select('n').where('name', '=', name).executeTakeFirst();
  return num(r?.n);
}

/**
 * SQL for the 32-bit halves of a u64 column held as decimal text (games.pool_fee …), exact on
 * both engines (an SQLite cast saturates at 2^63): text = A·10^9 + B (B its last 9 digits),
 * A = q·2^32 + r, hi = q·10^9 + (r·10^9 + B) div 2^32, lo = (r·10^9 + B) mod 2^32; every
 * intermediate stays below 2^63. For sums over a bounded set of raw rows (joinHiLoRow reads them).
 */
export function u64TextHalves(a: DialectAdapter, col: string): { hi: RawBuilder<unknown>; lo: RawBuilder<unknown> } {
  const A = `(case when length(${col}) > 9 then cast(substr(${col}, 1, length(${col}) - 9) as ${a.bigint}) else 0 end)`;
  const B = `cast(case when length(${col}) > 9 then substr(${col}, length(${col}) - 8) else ${col} end as ${a.bigint})`;
  const t = `((${A} % 4294967296) * 1000000000 + ${B})`;
  return { hi: sql.raw(`((${A} / 4294967296) * 1000000000 + ${t} / 4294967296)`), lo: sql.raw(`(${t} % 4294967296)`) };
}
