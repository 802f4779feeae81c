import { sql, type Kysely, type RawBuilder } from 'kysely';
import { dayOf, MS_PER_DAY } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import { ALL_CREATORS, BLOCK_DAYS, blockOf, GAME_ROLLUP_COLUMNS, SEG_DAYS } from '../rollups/definitions.js';
import { AGG_SUMS, cutDayParts, hourSpan, keysetList, num, rawDayPart, segmentsOf, type SortedList } from './common.js';
import { COPY_ERROR, COPY_TINY, partVectorsOf, type PartRef } from './part-vectors.js';
import { activePlayers, windowPlayers } from './window-players.js';

export type { SortedList };

/**
 * Deepest position (offset + limit) the early-stopping top-N serves; deeper pages read the
 * summing path (docs/design.md §7 "Top-N over a window's parts").
 */
export const TOPN_MAX_DEPTH = 1000;

/** Rows read by sorted access (all lists together) before the top-N gives up for the summing path. */
const READ_BUDGET = 50_000;

/** Players asked per random-access query (bound parameters stay far below both engines' limits). */
const RANDOM_CHUNK = 500;

/** Most players of a random-access query read by primary-key searches rather than a scan of the lists' sort indexes (sortValues). */
const KEY_SEARCH_MAX = 64;

/** Relative slack on the threshold: sums of doubles added in another order differ by a few ulps. */
const SLACK = 1e-9;

/**
 * Rows of the all-time list read (sorted access) before topWindow gives it up for the window's own
 * lists: the all-time bound is tight for windows of weeks or more and loose for a few days
 * (docs/design.md §7 "Top-N over a window's parts").
 */
const ALLTIME_BUDGET = 512;

/**
 * Fewest whole blocks and stored edge days (counted before the edge days are taken as segments) a
 * window has before topWindow tries the all-time list first.
 */
const ALLTIME_MIN_LISTS = 8;

/**
 * Most rows the `scan` method of topWindow groups (every list row of one creator's window) before it
 * leaves the window to the threshold algorithm. The database groups them and returns the first
 * `depth` players only, so the bound is on the time of the read, not on memory.
 */
const SCAN_MAX_ROWS = 1_000_000;

/**
 * When topWindow ranks every player's window by USD profit with the `scan` method rather than the
 * threshold algorithm (docs/benchmarks.md "The profit leaderboard at 10M"). USD profit has no
 * all-time bound, so the threshold over a window's ~20 lists falls slowly and its reads grow with
 * the depth, while the scan reads every part row once whatever the depth:
 * - the window's players × its parts (an upper bound of its part rows) at most
 *   PROFIT_SCAN_MAX_ROWS: every window at 1M games, where the scan was 25–40 % faster from 30 days
 *   up at the default depth of 11;
 * - or a depth above PROFIT_SCAN_MIN_DEPTH: at 10M games (up to ~800,000 part rows) the threshold
 *   algorithm took 44 / 60 ms at p50 over medium / long windows at depth 11 against the scan's
 *   79 / 133, 99 / 115 against 85 / 130 at depth 51, and 135 / 204 against 94 / 148 at depth 101.
 */
const PROFIT_SCAN_MAX_ROWS = 100_000;
const PROFIT_SCAN_MIN_DEPTH = 50;

/**
 * A window of a leaderboard: its whole 32-day blocks, the whole 8-day segments and days at their
 * edges (migration 0026, common.ts segmentsOf), and its raw cut days.
 */
interface WindowParts {
  blocks: number[];
  segs: number[];
  days: number[];
  /** Whole blocks plus edge days up to the newest stored day, before segmentsOf: the window's length in lists of the day grain. */
  dayLists: number;
  raw: { day: number; from: number; to: number }[];
}

/**
 * The leaderboard a top-N ranks: every player's, or one creator's (lists from ru_block_user_c /
 * ru_day_user_c, migration 0017), by USD volume or USD profit.
 */
export interface TopSpec {
  creator?: string | undefined;
  sortBy: 'usd_volume' | 'usd_profit';
}

/** The tables, filter and column of a spec's lists. */
function source(spec: TopSpec) {
  const c = spec.creator;
  return {
    block: c === undefined ? 'ru_block_user' : 'ru_block_user_c',
    seg: c === undefined ? 'ru_seg_user' : 'ru_seg_user_c',
    day: c === undefined ? 'ru_day_user' : 'ru_day_user_c',
    where: c === undefined ? sql`` : sql`and creator = ${c}`,
    column: spec.sortBy === 'usd_volume' ? 'usd_wager' : 'usd_profit',
  } as const;
}

/** How many parts (lists of the day grain and cut days) a window reads: each holds at most one row per player. */
const partCount = (w: WindowParts): number => w.blocks.length + w.segs.length + w.days.length + w.raw.length;

/**
 * The first and last stored 32-day blocks of the per-player lists (undefined when none: only blocks
 * holding games are lists) and the last stored day (-1 when none: days after it hold no rows, such
 * as an open window's rest of the block); three seeks on primary keys.
 */
async function storedRange(db: Kysely<Database>): Promise<{ lo?: number; hi?: number; lastDay: number }> {
  const r = await sql<{ lo: unknown; hi: unknown; last: unknown }>`select (select min(block) from ru_block_user) as lo, (select max(block) from ru_block_user) as hi,
    (select max(day) from ru_day_user) as last`.execute(db);
  const row = r.rows[0];
  const at = (x: unknown): number | undefined => (x === null || x === undefined ? undefined : num(x));
  const lo = at(row?.lo), hi = at(row?.hi);
  return { ...(lo !== undefined && hi !== undefined ? { lo, hi } : {}), lastDay: at(row?.last) ?? -1 };
}

/** The parts windowSource reads for an unfiltered window, or undefined when the window lies in one UTC day. */
async function windowParts(db: Kysely<Database>, startTime: number | undefined, endTime: number | undefined): Promise<WindowParts | undefined> {
  const d = startTime === undefined ? -1 : dayOf(startTime);
  const e = endTime === undefined ? undefined : dayOf(endTime);
  if (e !== undefined && startTime !== undefined && e <= d) return undefined;
  const b0 = blockOf(d);
  const b1 = e === undefined ? undefined : blockOf(e);
  const { lo, hi, lastDay } = await storedRange(db);
  const blocks: number[] = [];
  if (lo !== undefined && hi !== undefined) {
    const end = Math.min(b1 ?? Infinity, hi + 1);
    for (let b = Math.max(b0 + 1, lo); b < end; b++) blocks.push(b);
  }
  const days: number[] = [];
  const startBlockEnd = (b0 + 1) * BLOCK_DAYS;
  for (let day = Math.max(d + 1, 0); day < Math.min(e === undefined ? startBlockEnd : Math.min(startBlockEnd, e), lastDay + 1); day++) days.push(day);
  if (e !== undefined && b1 !== undefined && b1 > b0) for (let day = b1 * BLOCK_DAYS; day < Math.min(e, lastDay + 1); day++) days.push(day);
  const raw: WindowParts['raw'] = [];
  if (startTime !== undefined) raw.push({ day: d, from: startTime, to: (d + 1) * MS_PER_DAY });
  if (endTime !== undefined && e !== undefined) raw.push({ day: e, from: e * MS_PER_DAY, to: endTime });
  // The edge days as whole 8-day segments where they fill one: at most 3 segments and 7 days a side.
  return { blocks, ...segmentsOf(days, lastDay, e), dayLists: blocks.length + days.length, raw };
}

/** `(a, b, …)` of bound values. */
const list = (xs: readonly (string | number)[]): RawBuilder<unknown> => sql`(${sql.join(xs.map((x) => sql`${x}`))})`;

/**
 * The window's grouped rows (player, every game rollup column) of the given players only:
 * the same parts and grouping as the summing path (common.ts windowSource), restricted by the
 * primary keys (block, player) / (seg, player) / (day, player). A cut day is read as its whole
 * hours from ru_hour_user_t (migration 0027: (day, player) key searches, every token of a player
 * adjacent) and the raw games of under an hour at each end; with a creator (no such column there),
 * as the cut part's raw games.
 */
async function randomAccess(db: Kysely<Database>, a: DialectAdapter, w: WindowParts, players: string[], spec: TopSpec): Promise<Record<string, unknown>[]> {
  const sums = sql.raw(GAME_ROLLUP_COLUMNS.join(', '));
  const src = source(spec);
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < players.length; i += RANDOM_CHUNK) {
    const ps = list(players.slice(i, i + RANDOM_CHUNK));
    // Raw games of these players in a part of a cut day: on SQLite the player term takes no part in
    // the index choice (unary +), so the part is read in time order through g_time (time_ms,
    // creator, player), or g_creator_time for one creator, the players kept there, and the kept
    // games' rows fetched in rowid order, which is about time order. Through g_player_time each
    // player's games were fetched in turn, going over the part's table pages again in random order
    // (docs/benchmarks.md "The page's rows at 10M").
    const cutPlayers = a.kind === 'sqlite' ? sql`+player in ${ps}` : sql`player in ${ps}`;
    const rawPart = (day: number, from: number, to: number) =>
      sql`select * from (${rawDayPart(a, { creator: spec.creator }, day, from, to)}) g where ${cutPlayers}`;
    const parts: RawBuilder<unknown>[] = [];
    if (w.blocks.length) parts.push(sql`select player, ${sums} from ${sql.raw(src.block)} where block in ${list(w.blocks)} ${src.where} and player in ${ps}`);
    if (w.segs.length) parts.push(sql`select player, ${sums} from ${sql.raw(src.seg)} where seg in ${list(w.segs)} ${src.where} and player in ${ps}`);
    if (w.days.length) parts.push(sql`select player, ${sums} from ${sql.raw(src.day)} where day in ${list(w.days)} ${src.where} and player in ${ps}`);
    for (const r of w.raw) {
      if (spec.creator !== undefined) {
        parts.push(rawPart(r.day, r.from, r.to));
        continue;
      }
      const { hours, raw } = hourSpan(r.from, r.to);
      // `+hour_ms`: the hours term takes no part in the index choice (SQLite keeps no statistics), so
      // the primary key (day, player) is searched per player rather than ru_hour_user_hour's range.
      if (hours) parts.push(sql`select player, ${sums} from ru_hour_user_t where day = ${r.day} and player in ${ps} and +hour_ms >= ${hours[0]} and +hour_ms < ${hours[1]}`);
      for (const [from, to] of raw) parts.push(rawPart(r.day, from, to));
    }
    const rows = await sql<Record<string, unknown>>`select player, ${AGG_SUMS}
      from (${sql.join(parts, sql` union all `)}) s group by player`.execute(db);
    out.push(...rows.rows);
  }
  return out;
}

/**
 * The sum of column `c` added by the database in ascending order: the same
 * rows give the same double whatever order the plan reads them in (a plain GROUP BY's sum of
 * doubles depends on it), so equal rows make exact ties and every method ranks by the same
 * totals. SQLite (3.44+) and PostgreSQL both take ORDER BY inside an aggregate; each engine adds
 * in its own way (SQLite compensates rounding, PostgreSQL does not), and every method of one store
 * reads its totals through this one expression.
 */
const orderedSum = (c: RawBuilder<unknown>): RawBuilder<unknown> => sql`sum(${c} order by ${c})`;

/** A player's total of its parts' `v` (orderedSum). */
const ORDERED_SUM = orderedSum(sql.raw('v'));

/**
 * Selects of (player, sort value `v`) over the window's parts for `spec`: its whole blocks, edge
 * segments and days, and its cut days: their whole hours (ru_hour_user_t rows) and the raw games
 * of under an hour at each end (one row per player and range: its games' values added in
 * ascending order by the database, `sum(v order by v)`), or with a creator the cut part's raw
 * games alike; each restricted to `players` when given (else every player). The caller adds a
 * player's rows by ORDERED_SUM, so every method totals the same rows the same way.
 * With `keySearch`, `plays` is read too, though unused: it is not in the lists' sort indexes
 * (block or day, value, player), so SQLite, which keeps no table statistics, searches the primary
 * key (block or day, player) once per player instead of scanning each block's or day's whole sort
 * index (32 players over 40 lists at 1M games: 11.5 → 3.0 ms). For many players, or every player,
 * the scan of the covering index is the cheaper one, and SQLite picks it.
 */
function valueParts(a: DialectAdapter, w: WindowParts, spec: TopSpec, players: readonly string[] | undefined, keySearch: boolean): RawBuilder<unknown>[] {
  const and = players === undefined ? sql`` : sql`and player in ${list(players)}`;
  const src = source(spec);
  const v = sql.raw(src.column);
  const plays = keySearch ? sql`, plays` : sql``;
  const parts: RawBuilder<unknown>[] = [];
  if (w.blocks.length) parts.push(sql`select player, ${v} as v ${plays} from ${sql.raw(src.block)} where block in ${list(w.blocks)} ${src.where} ${and}`);
  if (w.segs.length) parts.push(sql`select player, ${v} as v ${plays} from ${sql.raw(src.seg)} where seg in ${list(w.segs)} ${src.where} ${and}`);
  if (w.days.length) parts.push(sql`select player, ${v} as v ${plays} from ${sql.raw(src.day)} where day in ${list(w.days)} ${src.where} ${and}`);
  // A cut day's raw games: one value per player and range, added by the database in ascending
  // order (the same rows give the same double whatever the plan or method; one row per player, not
  // per game). The time range alone (no `day` term: no index holds it) keeps g_player_time
  // (player, time_ms, usd_wager, usd_profit, creator) covering for a list of players: no `games` page is read.
  // With a creator and a list of players, the creator term takes no part in the index choice on
  // SQLite (unary +): the players' games are searched by (player, time) in g_player_time, which
  // holds the creator (migration 0031), rather than every game of the creator's cut part through
  // g_creator_time and each game's row (docs/benchmarks.md "One creator's leaderboard at ten
  // million games").
  const rawCreator = spec.creator === undefined ? sql`` : players !== undefined && a.kind === 'sqlite' ? sql`and +creator = ${spec.creator}` : src.where;
  const rawRange = (from: number, to: number) =>
    sql`select player, ${orderedSum(v)} as v ${keySearch ? sql`, 1 as plays` : sql``} from games
      where time_ms >= ${from} and time_ms < ${to} ${rawCreator} ${and} group by player`;
  for (const r of w.raw) {
    // With a creator (ru_hour_user_t has no such column), the cut part's raw games.
    if (spec.creator !== undefined) {
      parts.push(rawRange(r.from, r.to));
      continue;
    }
    // Else its whole hours, one row per player, token and hour of ru_hour_user_t (migration 0027;
    // a list of players searches its primary key (day, player)), and the raw games of under an
    // hour at each end: a scan reads no day of `games` rows in time order (docs/design.md §7
    // "Hours of the cut days").
    const { hours, raw } = hourSpan(r.from, r.to);
    // With a list of players (`and`), `+hour_ms` keeps the hours term out of the index choice: the
    // primary key (day, player) is searched per player. For every player, the narrow index
    // ru_hour_user_hour (day, hour_ms, player, token, usd_profit; migration 0030) reads just the hours.
    const hour = sql.raw(players !== undefined ? '+hour_ms' : 'hour_ms');
    if (hours) parts.push(sql`select player, ${v} as v ${plays} from ru_hour_user_t where day = ${r.day} and ${hour} >= ${hours[0]} and ${hour} < ${hours[1]} ${and}`);
    for (const [from, to] of raw) parts.push(rawRange(from, to));
  }
  return parts;
}

/**
 * Random access: each player's sort value (USD volume or profit) over the window's parts (their
 * rows by primary key, the cut days' raw games), totalled by ORDERED_SUM. Players with no game in
 * the window have no row there, and are left out.
 */
async function sortValues(db: Kysely<Database>, a: DialectAdapter, w: WindowParts, players: string[], spec: TopSpec): Promise<Ranked[]> {
  const out: Ranked[] = [];
  for (let i = 0; i < players.length; i += RANDOM_CHUNK) {
    const chunk = players.slice(i, i + RANDOM_CHUNK);
    const parts = valueParts(a, w, spec, chunk, chunk.length <= KEY_SEARCH_MAX);
    const rows = await sql<{ player: string; sk: unknown }>`select player, ${ORDERED_SUM} as sk from (${sql.join(parts, sql` union all `)}) u group by player`.execute(db);
    for (const r of rows.rows) out.push({ player: String(r.player), sk: num(r.sk) });
  }
  return out;
}

/**
 * Distinct players of the window: open towards now, those whose last play is ≥ startTime
 * (window-players.ts activePlayers); closed, the previous-active-day counts (window-players.ts).
 */
async function playersIn(db: Kysely<Database>, spec: TopSpec, startTime: number | undefined, endTime: number | undefined): Promise<number> {
  if (endTime === undefined) return (await activePlayers(db, startTime!, { creator: spec.creator })).get('') ?? 0;
  const group = spec.creator ?? ALL_CREATORS;
  return (await windowPlayers(db, [group], startTime ?? 0, endTime)).get(group) ?? 0;
}

/** A block's, a segment's or a day's players as a sorted list (indexes of migrations 0014, 0017 and 0026). */
function rollupList(db: Kysely<Database>, spec: TopSpec, unit: 'block' | 'seg' | 'day', n: number): SortedList {
  const src = source(spec);
  return keysetList(db, src[unit], sql`and ${sql.raw(unit)} = ${n} ${src.where}`, src.column);
}

/**
 * The all-time leaderboard by USD volume as a sorted list: ru_user (or ru_user_c with a creator)
 * through its sort index (migration 0004: `usd_wager desc, player`). Wagers are never negative, so
 * a player's USD volume in any window is at most its all-time one: read in this order, the list
 * bounds every player not yet read, as thresholdTopN needs.
 */
function allTimeVolumeList(db: Kysely<Database>, spec: TopSpec): SortedList {
  return keysetList(db, spec.creator === undefined ? 'ru_user' : 'ru_user_c', spec.creator === undefined ? sql`` : sql`and creator = ${spec.creator}`, 'usd_wager');
}

/** A player's exact total over every list (random access) and what the caller keeps with it. */
export interface Ranked {
  player: string;
  sk: number;
}

/** Order of a leaderboard: sort value descending, then player ascending (docs/design.md §4). */
const byRank = (x: Ranked, y: Ranked): number => y.sk - x.sk || (x.player < y.player ? -1 : x.player > y.player ? 1 : 0);

/**
 * Fagin's threshold algorithm (docs/design.md §7 "Top-N over a window's parts"): the first
 * `depth` players by Σ of their values over `lists` (a player absent from a list adds 0), ordered
 * total desc then player asc. Each round reads the next rows of every list (sorted access; batches
 * of `batch` rows, default max(depth, 32), doubling up to 4096), asks `lookup` for the exact
 * totals of the players not seen before (random access), and stops once the depth-th best total
 * is above the threshold: the sum over the lists not exhausted of max(last value read, 0). An
 * unseen player's value in such a list is at most its last value when it is further down, and 0
 * when it is absent; an exhausted list holds no unseen player. So no unseen player can reach the
 * threshold, nor tie it, and ties at the boundary keep reading. Values may be negative (USD profit). The comparison allows a relative
 * SLACK for sums of doubles added in another order. `keep` ranks only the players it accepts (a
 * keyset position: those after it); the bound holds for the others unchanged. Returns undefined
 * when more than `budget` rows would be read (the caller takes another path).
 */
export async function thresholdTopN<R extends Ranked>(
  lists: SortedList[],
  lookup: (players: string[]) => Promise<R[]>,
  depth: number,
  budget: number,
  batch = Math.max(depth, 32),
  keep: (r: R) => boolean = () => true,
): Promise<R[] | undefined> {
  const state = lists.map((l) => ({ l, last: 0, done: false }));
  const seen = new Map<string, R>();
  let size = batch;
  let read = 0;
  for (;;) {
    const fresh = new Set<string>();
    for (const p of state) {
      if (p.done) continue;
      const batch = await p.l.next(size);
      read += batch.length;
      if (batch.length > 0) p.last = batch[batch.length - 1]!.v;
      if (batch.length < size) p.done = true;
      for (const r of batch) if (!seen.has(r.player)) fresh.add(r.player);
    }
    if (fresh.size > 0) for (const r of await lookup([...fresh])) seen.set(r.player, r);
    // Players a keyset position excludes are seen (not looked up again) but not ranked.
    const threshold = state.reduce((s, p) => s + (p.done ? 0 : Math.max(p.last, 0)), 0);
    const ranked = [...seen.values()].filter(keep).sort(byRank);
    const kth = ranked[depth - 1];
    if (state.every((p) => p.done) || (kth !== undefined && kth.sk > threshold * (1 + SLACK))) return ranked.slice(0, depth);
    if (read > budget) return undefined;
    size = Math.min(size * 2, 4096);
  }
}

/** How topWindow ranks: chosen by the window (undefined), or one method forced (tests compare each with a brute force). */
export type TopWindowMethod = 'scan' | 'alltime' | 'parts' | 'vectors';

/**
 * The `scan` method of topWindow: every row of the window's parts (whole blocks, edge segments and
 * days, the cut days' hour rows and raw-range sums: valueParts) grouped per player by the database, each total by ORDERED_SUM as the
 * random access takes it, and only the first `depth` players after the keyset position `after`
 * returned (sk desc, player asc). Exact, and for one creator's window cheaper than the rounds of
 * the threshold algorithm, each of which reads every list again for its new players. Returns
 * undefined when the parts hold more than SCAN_MAX_ROWS rows: counted first, in the database,
 * unless the window's `players` (topWindow's total) times the parts is already within the cap.
 */
async function scanTop(db: Kysely<Database>, a: DialectAdapter, w: WindowParts, spec: TopSpec, depth: number, players: number, after?: { sk: number; player: string }): Promise<Ranked[] | undefined> {
  const union = sql.join(valueParts(a, w, spec, undefined, false), sql` union all `);
  // Each part holds at most one row per player of the window: when that bounds the rows under the
  // cap, the count is not needed.
  if (players * partCount(w) > SCAN_MAX_ROWS) {
    const counted = await sql<{ n: unknown }>`select count(*) as n from (select 1 as one from (${union}) u limit ${SCAN_MAX_ROWS + 1}) c`.execute(db);
    if (num(counted.rows[0]?.n ?? 0) > SCAN_MAX_ROWS) return undefined;
  }
  const position = after === undefined ? sql`` : sql`where sk < ${after.sk} or (sk = ${after.sk} and player > ${after.player})`;
  const rows = await sql<{ player: string; sk: unknown }>`select player, sk from (select player, ${ORDERED_SUM} as sk from (${union}) u group by player) g
    ${position} order by sk desc, player asc limit ${depth}`.execute(db);
  return rows.rows.map((r) => ({ player: String(r.player), sk: num(r.sk) }));
}

/**
 * Relative bound on how far apart two sums of one player's part values can be when added in
 * different orders: each of n additions rounds by at most 2^-53 of the running total, so two
 * orders differ by at most 2·n·2^-53 of Σ|value|; 1e-12 covers n up to ~4,500 values a player,
 * far above a window's parts (≤ ~40 lists and ~240 cut-hour rows). The `vectors` method's totals
 * from single-precision copies are looser (part-vectors.ts COPY_ERROR).
 */
const ORDER_ERROR = 1e-12;

/** Most candidates beyond the depth the `vectors` method reads back exactly before leaving the window to the next method. */
const VECTORS_SLACK_CANDIDATES = 256;

/**
 * Most players whose cut days the `vectors` method sums exactly by key (their hours by (day, player),
 * their games of under an hour by (player, time)), and most share of the players seen: past either,
 * a search per player costs more than grouping every player's cut days in one read, which it does.
 */
const CUT_SEARCH_MAX = 512;
const CUT_SEARCH_SHARE = 0.25;

/**
 * Players (numbers, from `of`) that can be on the page, given an interval [lower, upper] around each
 * one's total: those not surely before the keyset position `after` (lower ≤ its sk) whose upper end
 * reaches τ, the depth-th best lower end among the players surely after it (upper < its sk; every
 * player without a position). Any other player has depth players surely ranked above it.
 */
function reaching(of: readonly number[], lower: Float64Array, upper: Float64Array, depth: number, after: { sk: number } | undefined): number[] {
  const lows = new Float64Array(of.length);
  let n = 0;
  for (const p of of) if (after === undefined || upper[p]! < after.sk) lows[n++] = lower[p]!;
  const tau = n >= depth ? kthLargest(lows.subarray(0, n), depth) : Number.NEGATIVE_INFINITY;
  return of.filter((p) => (after === undefined || lower[p]! <= after.sk) && upper[p]! >= tau);
}

/**
 * The k-th largest of `xs` (1 ≤ k ≤ xs.length), reordering `xs` in place: Hoare's selection with
 * a median-of-three pivot, linear on average, where sorting a window's ~30,000 players (10M games)
 * took a few ms a request.
 */
function kthLargest(xs: Float64Array, k: number): number {
  const target = xs.length - k;
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const a = xs[lo]!, b = xs[mid]!, c = xs[hi]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (xs[i]! < pivot) i++;
      while (xs[j]! > pivot) j--;
      if (i <= j) {
        const t = xs[i]!;
        xs[i] = xs[j]!;
        xs[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return xs[target]!;
  }
  return xs[target]!;
}

/**
 * The `vectors` method of topWindow (docs/design.md §7 "Part vectors"): each player's total over
 * the window's whole blocks, segments and days added in memory from copies of those parts' rows
 * (part-vectors.ts: kept per database handle, read again when a day of the part was written), within
 * ±COPY_ERROR·Σ|value| of the exact one (ORDERED_SUM). A cut day's part is first bounded from the
 * copies of its whole day (part-vectors.ts), as a game's USD profit lies between −its USD wager and
 * its USD payout: by USD profit in [−W, P + W] and by USD volume in [0, W], with W and P the player's
 * USD wager and profit of the whole day. The players whose interval reaches the depth-th best lower
 * end (reaching) have their cut parts summed by the database, by key for up to CUT_SEARCH_MAX
 * players (and CUT_SEARCH_SHARE of those seen), else for every player; the players whose tightened interval still reaches it are summed
 * exactly by the random access (sortValues) and ranked. Exact; once the copies are warm it reads
 * no part row of the window but the few players' cut hours and games. Returns undefined past
 * depth + VECTORS_SLACK_CANDIDATES candidates (equal totals by the hundred).
 */
async function vectorsTop(db: Kysely<Database>, a: DialectAdapter, w: WindowParts, spec: TopSpec, depth: number, after?: { sk: number; player: string }): Promise<Ranked[] | undefined> {
  const src = source(spec);
  const copies = partVectorsOf(db);
  const profit = spec.sortBy === 'usd_profit';
  const ref = (unit: PartRef['unit'], table: string, column: string = src.column) => (n: number): PartRef => ({ table, unit, n, creator: spec.creator, column });
  const parts = [...w.blocks.map(ref('block', src.block)), ...w.segs.map(ref('seg', src.seg)), ...w.days.map(ref('day', src.day))];
  // The cut days whole: each player's USD wager of the day, and by USD profit its USD profit too.
  const cutDays = [...new Set(w.raw.map((r) => r.day))];
  const wagers = cutDays.map(ref('day', src.day, 'usd_wager'));
  const profits = profit ? cutDays.map(ref('day', src.day)) : [];
  const { numbering, vectors } = await copies.vectors(db, [...parts, ...wagers, ...profits]);
  // Every player's whole blocks, segments and days are read into copies in the background, from
  // the connection's opening (prefetchTopN) or else from the first such window (part-vectors.ts
  // prefetch: once per list), while they fit the cache's share for it.
  if (spec.creator === undefined) prefetchParts(db, spec);
  const count = numbering.names.length;
  const sum = new Float64Array(count);
  const abs = new Float64Array(count);
  const seen = new Uint8Array(count);
  // The cut parts' bounds: lo ≤ part ≤ hi, and Σ|value| of the copies they come from.
  const lo = new Float64Array(count);
  const hi = new Float64Array(count);
  const boundAbs = new Float64Array(count);
  vectors.forEach(({ players, values }, k) => {
    const kind = k < parts.length ? 'whole' : k < parts.length + wagers.length ? 'wager' : 'profit';
    for (let i = 0; i < players.length; i++) {
      const p = players[i]!;
      const v = values[i]!;
      seen[p] = 1;
      if (kind === 'whole') {
        sum[p]! += v;
        abs[p]! += Math.abs(v) + COPY_TINY;
      } else if (kind === 'wager') {
        if (profit) lo[p]! -= v;
        hi[p]! += v;
        boundAbs[p]! += (profit ? 2 : 1) * v + COPY_TINY;
      } else {
        hi[p]! += v;
        boundAbs[p]! += Math.abs(v) + COPY_TINY;
      }
    }
  });
  const all: number[] = [];
  for (let p = 0; p < count; p++) if (seen[p] === 1) all.push(p);
  let lower = new Float64Array(count);
  let upper = new Float64Array(count);
  for (const p of all) {
    const e = COPY_ERROR * (abs[p]! + boundAbs[p]!);
    lower[p] = sum[p]! + lo[p]! - e;
    upper[p] = sum[p]! + hi[p]! + e;
  }
  let players = all;
  if (w.raw.length > 0) {
    // The cut days as the random access reads them (their whole hours, from ru_hour_user_t, and raw
    // games under an hour a side): one plain sum and Σ|value| per player, within Σ|value| like the rest.
    const bounded = reaching(all, lower, upper, depth, after);
    const only = bounded.length <= Math.min(CUT_SEARCH_MAX, CUT_SEARCH_SHARE * all.length) ? bounded.map((p) => numbering.names[p]!) : undefined;
    const cut = new Map<number, { v: number; a: number }>();
    const cutRaw = { blocks: [], segs: [], days: [], dayLists: 0, raw: w.raw };
    for (let i = 0; i < (only?.length ?? 1); i += RANDOM_CHUNK) {
      const chunk = only?.slice(i, i + RANDOM_CHUNK);
      if (chunk?.length === 0) break;
      const union = sql.join(valueParts(a, cutRaw, spec, chunk, false), sql` union all `);
      const r = await sql<{ player: string; v: unknown; a: unknown }>`select player, sum(v) as v, sum(abs(v)) as a from (${union}) u group by player`.execute(db);
      for (const x of r.rows) cut.set(numbering.numberOf(String(x.player)), { v: num(x.v), a: num(x.a) });
    }
    // Players first seen in the cut (games written after the copies were read) join every player's.
    players = only === undefined ? [...new Set([...all, ...cut.keys()])] : bounded;
    const n = numbering.names.length;
    lower = new Float64Array(n);
    upper = new Float64Array(n);
    for (const p of players) {
      const c = cut.get(p) ?? { v: 0, a: 0 };
      const s = (p < count ? sum[p]! : 0) + c.v;
      const e = COPY_ERROR * (p < count ? abs[p]! : 0) + ORDER_ERROR * c.a;
      lower[p] = s - e;
      upper[p] = s + e;
    }
  }
  const candidates = reaching(players, lower, upper, depth, after);
  if (candidates.length > depth + VECTORS_SLACK_CANDIDATES) return undefined;
  const keep = after === undefined ? () => true : (r: Ranked) => r.sk < after.sk || (r.sk === after.sk && r.player > after.player);
  return (await sortValues(db, a, w, candidates.map((p) => numbering.names[p]!), spec)).filter(keep).sort(byRank).slice(0, depth);
}

/**
 * Starts reading every player's USD profit lists (their whole blocks, segments and days) into part
 * copies in the background (part-vectors.ts prefetch), as the first windowed profit ranking would:
 * called when a reader opens its connection, so the copies are warm before the first such request.
 */
export function prefetchTopN(db: Kysely<Database>): void {
  prefetchParts(db, { sortBy: 'usd_profit' });
}

/**
 * Starts the background reads of every player's lists of `spec` (no creator) into part copies, once
 * per list (part-vectors.ts prefetch): every stored 32-day block, then the 8-day segments and the
 * days of those blocks, each newest first; by USD profit then the same days' USD wager, which bounds
 * a window's cut days (vectorsTop). At 1M games all of it fits the default cap; at 10M the share
 * ends within the profit days (docs/design.md §7 "Part vectors").
 */
function prefetchParts(db: Kysely<Database>, spec: TopSpec): void {
  const src = source(spec);
  partVectorsOf(db).prefetch(db, `${src.block}:${src.column}`, async () => {
    const { lo, hi } = await storedRange(db);
    if (lo === undefined || hi === undefined) return [];
    const parts: PartRef[] = [];
    for (let b = hi; b >= lo; b--) parts.push({ table: src.block, unit: 'block', n: b, column: src.column });
    const perBlock = BLOCK_DAYS / SEG_DAYS;
    for (let g = (hi + 1) * perBlock - 1; g >= lo * perBlock; g--) parts.push({ table: src.seg, unit: 'seg', n: g, column: src.column });
    const days = (column: string) => {
      for (let d = (hi + 1) * BLOCK_DAYS - 1; d >= lo * BLOCK_DAYS; d--) parts.push({ table: src.day, unit: 'day', n: d, column });
    };
    days(src.column);
    // By USD profit, last the days' USD wager: a window's two cut days are bounded by it (vectorsTop).
    if (spec.sortBy === 'usd_profit') days('usd_wager');
    return parts;
  });
}

/**
 * GET /players sorted by usd_volume or usd_profit over a window, without token or pool filter, of
 * every player or of one creator (docs/design.md §7 "Top-N over a window's parts"): the first
 * `depth` rows after the keyset position `after` (sk, then player; from the start when absent),
 * ordered sk desc then player asc, and the window's player count. Rows are the summing path's
 * grouped rows (player, every game rollup column) with the sort column (usd_wager or usd_profit)
 * = sk = the player's total by ORDERED_SUM (sortValues). Methods, in this order, the
 * first that answers:
 * - `alltime` (USD volume only, when the window has at least ALLTIME_MIN_LISTS whole blocks and
 *   stored edge days): thresholdTopN over the all-time leaderboard alone (allTimeVolumeList), whose values
 *   bound every unread player's window volume, with random access to the window's parts; given up
 *   past ALLTIME_BUDGET rows;
 * - `vectors` (every player's window by USD profit; either sort when forced): each player's total
 *   added in memory from copies of the window's parts kept per database handle (vectorsTop,
 *   part-vectors.ts), the page's candidates summed exactly; given up past VECTORS_SLACK_CANDIDATES
 *   candidates beyond the depth. By USD volume the threshold algorithm reads only the lists' heads,
 *   which beat reading a window's parts whole while their copies are cold;
 * - `scan` (one creator's window, or every player's by USD profit when the window's players ×
 *   parts is at most PROFIT_SCAN_MAX_ROWS or the depth is above PROFIT_SCAN_MIN_DEPTH): every row
 *   of the window's parts grouped per player by the database, which returns the page's players
 *   (scanTop), up to SCAN_MAX_ROWS rows;
 * - `parts`: thresholdTopN with random access over the window's own lists: every whole 32-day
 *   block (ru_block_user, or ru_block_user_c with a creator), every whole 8-day segment at the
 *   blocks' edges (ru_seg_user / ru_seg_user_c) and every day left (ru_day_user / ru_day_user_c)
 *   a list read in the sort column's order (indexes of migrations 0014, 0017 and 0026), each cut
 *   day one more list: by USD volume its whole day's list (an upper bound of the cut part, exact by
 *   random access), by USD profit its values grouped once (common.ts cutDayParts).
 * Returns undefined — the caller takes the summing path — when the window holds no whole UTC day,
 * has at most 4 × depth players, or the lists would need more than READ_BUDGET rows.
 */
export async function topWindow(
  db: Kysely<Database>,
  a: DialectAdapter,
  spec: TopSpec,
  startTime: number | undefined,
  endTime: number | undefined,
  depth: number,
  after?: { sk: number; player: string },
  method?: TopWindowMethod,
): Promise<{ rows: Record<string, unknown>[]; total: number } | undefined> {
  const w = await windowParts(db, startTime, endTime);
  // Rollup lists to read: a window inside one or two UTC days sums its raw games instead.
  if (!w || w.blocks.length + w.segs.length + w.days.length === 0) return undefined;
  const total = await playersIn(db, spec, startTime, endTime);
  if (total <= 4 * depth) return undefined;
  const src = source(spec);
  const lookup = (ps: string[]) => sortValues(db, a, w, ps, spec);
  const keep = after === undefined ? undefined : (r: Ranked) => r.sk < after.sk || (r.sk === after.sk && r.player > after.player);
  const allTime = spec.sortBy === 'usd_volume' && (method === 'alltime' || (method === undefined && w.dayLists >= ALLTIME_MIN_LISTS));
  let top = allTime ? await thresholdTopN([allTimeVolumeList(db, spec)], lookup, depth, ALLTIME_BUDGET, undefined, keep) : undefined;
  const vectors = method === 'vectors' || (method === undefined && spec.creator === undefined && spec.sortBy === 'usd_profit' && partVectorsOf(db).enabled);
  if (!top && vectors) top = await vectorsTop(db, a, w, spec, depth, after);
  const profitScan = spec.sortBy === 'usd_profit' && (total * partCount(w) <= PROFIT_SCAN_MAX_ROWS || depth > PROFIT_SCAN_MIN_DEPTH);
  const scan = method === 'scan' || (method === undefined && (spec.creator !== undefined || profitScan));
  if (!top && scan) top = await scanTop(db, a, w, spec, depth, total, after);
  if (!top && (method === undefined || method === 'parts')) top = await thresholdTopN(await partLists(db, a, spec, w), lookup, depth, READ_BUDGET, undefined, keep);
  if (!top) return undefined;
  // The page's rows as the summing path groups them, with the order-independent sum as the sort column and sk.
  const rows = new Map((await randomAccess(db, a, w, top.map((t) => t.player), spec)).map((r) => [String(r.player), r]));
  return { rows: top.map((t) => ({ ...rows.get(t.player), player: t.player, [src.column]: t.sk, sk: t.sk })), total };
}

/** The `parts` lists of topWindow: one per whole block, edge segment and edge day, and one per cut day. */
async function partLists(db: Kysely<Database>, a: DialectAdapter, spec: TopSpec, w: WindowParts): Promise<SortedList[]> {
  const src = source(spec);
  const lists: SortedList[] = [
    ...w.blocks.map((n) => rollupList(db, spec, 'block', n)),
    ...w.segs.map((n) => rollupList(db, spec, 'seg', n)),
    ...w.days.map((n) => rollupList(db, spec, 'day', n)),
  ];
  for (const r of w.raw) {
    // By USD volume (wagers ≥ 0), a player's part of a cut day is at most its whole day: the day's
    // sorted list (an index) bounds the unseen players as the threshold needs, and the random
    // access sums the exact part. USD profit has no such bound: the cut part's values, grouped.
    if (spec.sortBy === 'usd_volume') {
      lists.push(rollupList(db, spec, 'day', r.day));
      continue;
    }
    // The cut part's whole hours from ru_hour_user_t and raw games under an hour a side, or its raw
    // games with a creator (common.ts cutDayParts). The list only bounds (its values within a few
    // ulps of the random access's, which SLACK allows); the totals come from sortValues.
    const g = await sql<{ player: string; v: unknown }>`select player, sum(${sql.raw(src.column)}) as v
      from (${sql.join(cutDayParts(a, { creator: spec.creator }, r.day, r.from, r.to), sql` union all `)}) c group by player`.execute(db);
    const rows = g.rows.map((x) => ({ player: String(x.player), v: num(x.v) }));
    rows.sort((x, y) => y.v - x.v || (x.player < y.player ? -1 : x.player > y.player ? 1 : 0));
    let pos = 0;
    lists.push({ next: async (size) => rows.slice(pos, (pos += size)) });
  }
  return lists;
}
