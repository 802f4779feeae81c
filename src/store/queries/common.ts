import { sql, type Kysely, type RawBuilder } from 'kysely';
import { dayOf, joinHiLo, MS_PER_DAY, MS_PER_HOUR, MS_PER_QUARTER } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import { BLOCK_DAYS, blockOf, SEG_DAYS, segOf, EXTREMES, GAME_ROLLUP_COLUMNS, GAME_SUM_OF_ROW, SUM_COLUMNS, type ExtremeColumn, type LeaderboardSort, type PoolSumColumn, aggregatedSortKey } from '../rollups/definitions.js';

/** Driver values → JS: SQLite (safe integers) gives bigint, pg gives strings for bigint/numeric. */
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
/** Driver value → bigint (0n for null): exact u64 amounts and sums of halves. */
export const big = (v: unknown): bigint => (v === null || v === undefined ? 0n : BigInt(v as string));

/** Equality filters on games and rollup rows (addresses); unset fields do not filter. */
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

/** Every value column of a game rollup (rollups/definitions.ts), as a select list. */
const SUMS = GAME_ROLLUP_COLUMNS.join(', ');

/** What one raw game contributes to an extreme column: its `ofGame` value, clamped at 0 where `bound` says so. */
export function extremeOfRow(a: DialectAdapter, c: ExtremeColumn): RawBuilder<unknown> {
  const { merge, ofGame, bound } = EXTREMES[c];
  if (bound === null) return sql.raw(ofGame);
  return (merge === 'max' ? a.greatest : a.least)(sql.raw(`${bound}.0`), sql.raw(ofGame));
}

/** The select list of one raw games row as rollup columns (GAME_SUM_OF_ROW, then the extremes). */
function rowAsRollup(a: DialectAdapter): RawBuilder<unknown> {
  return sql.join([
    ...SUM_COLUMNS.map((c) => sql.raw(GAME_SUM_OF_ROW[c] === c ? c : `${GAME_SUM_OF_ROW[c]} as ${c}`)),
    ...(Object.keys(EXTREMES) as ExtremeColumn[]).map((c) => sql`${extremeOfRow(a, c)} as ${sql.raw(c)}`),
  ]);
}

/**
 * A range of whole UTC days [first, end) (either side open when undefined) split for the block
 * rollups (migration 0013, rollups/definitions.ts BLOCK_DAYS): the whole 32-day blocks [b0, b1)
 * inside it (null when none), and the day ranges left at its edges, to read from the day rollups.
 * A year is then ≤ 11 block rows plus ≤ 62 day rows per key instead of 365 (docs/design.md §7).
 */
export function blockSpans(
  first: number | undefined,
  end: number | undefined,
): { blocks: [number | undefined, number | undefined] | null; days: [number | undefined, number | undefined][] } {
  const b0 = first === undefined ? undefined : Math.ceil(first / BLOCK_DAYS);
  const b1 = end === undefined ? undefined : Math.floor(end / BLOCK_DAYS);
  if (b0 !== undefined && b1 !== undefined && b0 >= b1) return { blocks: null, days: first! < end! ? [[first, end]] : [] };
  const days: [number | undefined, number | undefined][] = [];
  if (first !== undefined && first < b0! * BLOCK_DAYS) days.push([first, b0! * BLOCK_DAYS]);
  if (end !== undefined && end > b1! * BLOCK_DAYS) days.push([b1! * BLOCK_DAYS, end]);
  return { blocks: [b0, b1], days };
}

/**
 * [from, to) (Unix ms) as its whole UTC hours [h0, h1) (the hour_ms keys of an hour rollup:
 * ru_hour_game_t, ru_fair_hg) and the raw ranges left at its ends, each under an hour. Without a
 * whole hour inside, `hours` is undefined and the range itself is the one raw range.
 */
export function hourSpan(from: number, to: number): { hours?: [number, number]; raw: [number, number][] } {
  const h0 = Math.ceil(from / MS_PER_HOUR) * MS_PER_HOUR;
  const h1 = Math.floor(to / MS_PER_HOUR) * MS_PER_HOUR;
  if (h0 >= h1) return { raw: from < to ? [[from, to]] : [] };
  const raw: [number, number][] = [];
  if (from < h0) raw.push([from, h0]);
  if (h1 < to) raw.push([h1, to]);
  return { hours: [h0, h1], raw };
}

/** `and <col> >= from and <col> < to` for the set bounds of a range (integers: days or blocks). */
export function rangeSql(col: string, [from, to]: [number | undefined, number | undefined]): RawBuilder<unknown> {
  const c = sql.raw(col);
  return sql`${from === undefined ? sql`` : sql`and ${c} >= ${from}`} ${to === undefined ? sql`` : sql`and ${c} < ${to}`}`;
}

/**
 * blockSpans of the whole days [first, end) (day numbers, both bounded) as values: the whole
 * 32-day blocks and the days at their edges, for `block in (…)` / `day in (…)` — one key search
 * each when a key column follows the block or day (a creator, a player).
 */
export function listedSpans(first: number, end: number): { blocks: number[]; days: number[] } {
  const { blocks, days } = blockSpans(first, end);
  return { blocks: blocks ? integers(blocks[0]!, blocks[1]!) : [], days: days.flatMap(([from, to]) => integers(from!, to!)) };
}

/** The integers from, from + 1, … below `to` (block or day numbers). */
const integers = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

/**
 * The block of an edge span [from, to) of blockSpans (day numbers; a span lies in one block) and
 * the block's days outside the span, [lo, hi): what a span read as "its block minus the rest"
 * subtracts.
 */
function blockComplement(from: number, to: number): { block: number; outside: [number, number] } {
  const block = Math.floor(from / BLOCK_DAYS);
  return { block, outside: from === block * BLOCK_DAYS ? [to, (block + 1) * BLOCK_DAYS] : [block * BLOCK_DAYS, from] };
}

/**
 * Whole UTC days (day numbers, each listed once) as the 8-day segments they fill (migration 0026,
 * rollups/definitions.ts SEG_DAYS) and the days left over: a segment is taken when each of its
 * days is listed, or lies after `lastDay` (a day after the newest stored game holds no row) and
 * before `endDay` (still inside the window, should a game arrive there meanwhile). Segments and
 * days come out in ascending order.
 */
export function segmentsOf(days: readonly number[], lastDay = Number.POSITIVE_INFINITY, endDay = Number.POSITIVE_INFINITY): { segs: number[]; days: number[] } {
  const listed = new Set(days);
  const segs: number[] = [];
  const rest: number[] = [];
  const sorted = [...listed].sort((x, y) => x - y);
  for (const d of sorted) {
    const seg = segOf(d);
    if (segs.length > 0 && segs[segs.length - 1] === seg) continue;
    let whole = true;
    for (let x = seg * SEG_DAYS; x < (seg + 1) * SEG_DAYS && whole; x++) whole = listed.has(x) || (x > lastDay && x < endDay);
    if (whole) segs.push(seg);
    else rest.push(d);
  }
  return { segs, days: rest };
}

/**
 * listedSpans of the whole days [first, end) (day numbers, both bounded) with the days at the
 * blocks' edges read as whole 8-day segments where they fill one (segmentsOf): at most 3 segments
 * and 7 days a side instead of 31 days. With `complements` (sums only: max/min columns cannot be
 * subtracted), a segment more than half of whose days are in the range is listed whole in `segs`
 * and its other days in `minusDays` (to subtract), since a segment row costs one key search like
 * a day row: at most 4 days (added or subtracted) a side.
 */
export function listedSegmentSpans(first: number, end: number, complements = false): { blocks: number[]; segs: number[]; days: number[]; minusDays: number[] } {
  const { blocks, days } = listedSpans(first, end);
  const { segs, days: rest } = segmentsOf(days);
  if (!complements) return { blocks, segs, days: rest, minusDays: [] };
  const out = { blocks, segs, days: [] as number[], minusDays: [] as number[] };
  // The days left lie in at most one partial segment a side.
  const listed = new Set(rest);
  for (const seg of new Set(rest.map(segOf))) {
    const inside = rest.filter((d) => segOf(d) === seg);
    if (inside.length * 2 <= SEG_DAYS) out.days.push(...inside);
    else {
      out.segs.push(seg);
      for (let x = seg * SEG_DAYS; x < (seg + 1) * SEG_DAYS; x++) if (!listed.has(x)) out.minusDays.push(x);
    }
  }
  return out;
}

/** The newest UTC day holding a stored game (day number; one seek on ru_day_user's key), or undefined for an empty store. */
export async function newestDay(db: Kysely<Database>): Promise<number | undefined> {
  const d = (await sql<{ d: unknown }>`select max(day) as d from ru_day_user`.execute(db)).rows[0]?.d;
  return d === null || d === undefined ? undefined : num(d);
}

/**
 * Selects of `select` (a select list) over whole days [first, end) of a day rollup and its block
 * rollup (migration 0013): the whole blocks from `blockTable`, the edge days from `dayTable`, each
 * with `where` (` and …` filters) appended. Joined by the caller with union all.
 *
 * With `negated` (`select`: the same select list with every column but the group keys negated,
 * sums only, no max/min; `lastDay`: the newest stored day), an edge span that covers most of its
 * block is read as that whole block minus the block's other days (`negated` rows), when those are
 * at least BLOCK_COMPLEMENT_GAIN stored days fewer:
 * a window's edges then read at most 16 day rows and one block row per key each instead of up to
 * 31 day rows. The caller sums the parts per group and drops groups whose plays sum to 0 (every
 * game of the block part lay outside the window).
 */
export function dayAndBlockParts(
  dayTable: string,
  blockTable: string,
  select: RawBuilder<unknown>,
  first: number | undefined,
  end: number | undefined,
  where: RawBuilder<unknown>,
  negated?: { select: RawBuilder<unknown>; lastDay: number },
): RawBuilder<unknown>[] {
  const { blocks, days } = blockSpans(first, end);
  const parts: RawBuilder<unknown>[] = [];
  if (blocks) parts.push(sql`select ${select} from ${sql.raw(blockTable)} where 1=1 ${rangeSql('block', blocks)} ${where}`);
  for (const r of days) {
    const [from, to] = r;
    if (negated && blocks && from !== undefined && to !== undefined) {
      const { block, outside } = blockComplement(from, to);
      // Days after the newest stored one hold no rows: an open window's span to the end of the
      // current block costs only its past days.
      const stored = (lo: number, hi: number): number => Math.max(0, Math.min(hi, negated.lastDay + 1) - lo);
      if (stored(from, to) - stored(outside[0], outside[1]) >= BLOCK_COMPLEMENT_GAIN) {
        parts.push(sql`select ${select} from ${sql.raw(blockTable)} where block = ${block} ${where}`);
        parts.push(sql`select ${negated.select} from ${sql.raw(dayTable)} where 1=1 ${rangeSql('day', outside)} ${where}`);
        continue;
      }
    }
    parts.push(sql`select ${select} from ${sql.raw(dayTable)} where 1=1 ${rangeSql('day', r)} ${where}`);
  }
  return parts;
}

/**
 * Day rows a complement must save to be used (dayAndBlockParts): a block's rows cost about as
 * much as one or two days' rows of the same rollup (ru_block_game against ru_day_game: 453
 * against 325 rows at 1M games).
 */
export const BLOCK_COMPLEMENT_GAIN = 3;

/**
 * Rows of game sums per player (`player` + the GameSums columns of schema.ts) for games with
 * startTime ≤ time < endTime (ms; either side open when undefined) matching `f`, to be grouped by
 * player. Cost grows with the window, not with history (docs/design.md §7):
 * - with a creator and no token or pool: ru_block_user_c rows of the whole 32-day blocks strictly
 *   inside and ru_day_user_c rows of the days left at their edges (migration 0017), one row per
 *   player and block or day, when the window has a start; blocks and days are listed by value up to `lastDay` (the newest
 *   stored day; required for a window open towards now), so each is one search of the primary key
 *   (block or day, creator) that reads only the creator's players;
 * - with a token or pool filter: ru_block_daily rows of the whole 32-day blocks strictly inside
 *   and ru_daily rows of the days left at their edges (blockSpans, migration 0013);
 * - without: ru_block_user rows of whole 32-day blocks strictly inside, plus ru_day_user rows of
 *   the start block's and the end block's remaining days (migration 0004) — a year is ≤ 12 rows
 *   per player instead of one per player, day, creator, token and pool;
 * - plus, either way, the (partial) start and end days (cutDayParts): their whole hours from
 *   ru_hour_user_t and the raw games left at their ends when there is no creator or pool filter,
 *   else their raw games. Raw parts are bounded on both sides of `time_ms`: with only
 *   `time_ms >= startTime` SQLite's time index would walk every game from the start to now and
 *   filter `day` afterwards.
 */
export function windowSource(a: DialectAdapter, f: GameFilter, startTime: number | undefined, endTime?: number, lastDay?: number): RawBuilder<unknown> {
  const cf = filterSql(f);
  const d = startTime === undefined ? -1 : dayOf(startTime);
  const e = endTime === undefined ? undefined : dayOf(endTime);
  if (e !== undefined && startTime !== undefined && e <= d) {
    // Inside one UTC day: its whole hours and the raw games left at its ends (cutDayParts).
    return sql.join(cutDayParts(a, f, d, startTime, endTime!), sql` union all `);
  }
  const filtered = f.creator !== undefined || f.token !== undefined || f.pool !== undefined || f.player !== undefined;
  const sums = sql.raw(SUMS);
  const before = (col: string, bound: number | undefined) => (bound === undefined ? sql`` : sql`and ${sql.raw(col)} < ${bound}`);
  const parts: RawBuilder<unknown>[] = [];
  const creatorOnly = f.creator !== undefined && f.token === undefined && f.pool === undefined && f.player === undefined;
  const end = e ?? (lastDay === undefined ? undefined : lastDay + 1);
  // Listed from the start day on (a window without startTime keeps the ranges below).
  if (creatorOnly && startTime !== undefined && end !== undefined) {
    const { blocks, days } = listedSpans(d + 1, end);
    if (blocks.length > 0) parts.push(sql`select player, ${sums} from ru_block_user_c where block in (${sql.join(blocks)}) ${cf}`);
    if (days.length > 0) parts.push(sql`select player, ${sums} from ru_day_user_c where day in (${sql.join(days)}) ${cf}`);
  } else if (filtered) parts.push(...dayAndBlockParts('ru_daily', 'ru_block_daily', sql`player, ${sums}`, d + 1, e, cf));
  else {
    const b0 = blockOf(d);
    const b1 = e === undefined ? undefined : blockOf(e);
    // Whole blocks strictly between the start day's block and the end day's block.
    parts.push(sql`select player, ${sums} from ru_block_user where block > ${b0} ${before('block', b1)}`);
    // The start block's days after the start day (and before the end day).
    const startBlockEnd = (b0 + 1) * BLOCK_DAYS;
    parts.push(sql`select player, ${sums} from ru_day_user where day > ${d} and day < ${e === undefined ? startBlockEnd : Math.min(startBlockEnd, e)}`);
    // The end block's days before the end day, when it is another block.
    if (e !== undefined && b1 !== undefined && b1 > b0) parts.push(sql`select player, ${sums} from ru_day_user where day >= ${b1 * BLOCK_DAYS} and day < ${e}`);
  }
  if (startTime !== undefined) parts.push(...cutDayParts(a, f, d, startTime, (d + 1) * MS_PER_DAY));
  if (endTime !== undefined && e !== undefined) parts.push(...cutDayParts(a, f, e, e * MS_PER_DAY, endTime));
  return sql.join(parts, sql` union all `);
}

/**
 * The games of UTC day `day` with from ≤ time_ms < to (ms, inside that day) matching `f`, as rows
 * of game sums per player (`player` + the GameSums columns) to be grouped by player: a cut edge of
 * a window (windowSource). Without a creator, pool or player filter, its whole hours are the
 * ru_hour_user_t rows of the day (migration 0027; with a token, that token's) and only the raw
 * games left at its ends, under an hour each, are read (docs/design.md §7 "Hours of the cut
 * days"); else the part's raw games (rawDayPart). At least one part, possibly empty.
 */
export function cutDayParts(a: DialectAdapter, f: GameFilter, day: number, from: number, to: number): RawBuilder<unknown>[] {
  if (f.creator !== undefined || f.pool !== undefined || f.player !== undefined) return [rawDayPart(a, f, day, from, to)];
  const { hours, raw } = hourSpan(from, to);
  const parts = raw.map(([a0, b0]) => rawDayPart(a, f, day, a0, b0));
  // `+hour_ms`: every rollup column is read, so the day's primary-key range, not the narrow
  // ru_hour_user_hour index (migration 0030) and a search of the table per entry.
  if (hours) parts.push(sql`select player, ${sql.raw(SUMS)} from ru_hour_user_t where day = ${day} and +hour_ms >= ${hours[0]} and +hour_ms < ${hours[1]} ${filterSql(f)}`);
  return parts.length > 0 ? parts : [rawDayPart(a, f, day, from, to)];
}

/**
 * The raw games of UTC day `day` with from ≤ time_ms < to (ms, inside that day) matching `f`, as
 * rows of game sums per player (`player` + the GameSums columns): a cut edge of a window
 * (windowSource). Bounded on both sides of `time_ms` (see windowSource).
 */
export function rawDayPart(a: DialectAdapter, f: GameFilter, day: number, from: number, to: number): RawBuilder<unknown> {
  return sql`select player, ${rowAsRollup(a)} from games where day = ${day} and time_ms >= ${from} and time_ms < ${to} ${filterSql(f)}`;
}

/** Exact token sums from summed 32-bit halves (core/u64.ts). */
export function tokenSums(r: Record<string, unknown>): { volume: bigint; profit: bigint } {
  const wager = joinHiLo(r.wager_hi as string, r.wager_lo as string);
  const payout = joinHiLo(r.payout_hi as string, r.payout_lo as string);
  const jackpot = joinHiLo(r.jackpot_hi as string, r.jackpot_lo as string);
  return { volume: wager, profit: payout + jackpot - wager };
}

/** `sum(c) as c, …` for the given additive columns (rollups/definitions.ts lists), as a select list. */
export function sumsOf(columns: readonly string[]): RawBuilder<unknown> {
  return sql.raw(columns.map((c) => `sum(${c}) as ${c}`).join(', '));
}

/**
 * SELECT list aggregating every game rollup column of a source (rollups/definitions.ts): sums
 * add, extremes take max or min.
 */
export const AGG_SUMS = sql.raw(
  [...SUM_COLUMNS.map((c) => `sum(${c}) as ${c}`), ...(Object.keys(EXTREMES) as ExtremeColumn[]).map((c) => `${EXTREMES[c].merge}(${c}) as ${c}`)].join(', '),
);

/** ORDER BY of grouped rows for a leaderboard sort (definitions.ts aggregatedSortKey): a double approximation for token sums; values are read exactly. */
export function aggregatedOrder(sort: LeaderboardSort): RawBuilder<unknown> {
  return sql.raw(aggregatedSortKey(sort));
}

/** UTC day numbers of the dense series of `days` dates ending with today (docs/design.md §4). */
export function dayRange(days: number, now: number): { first: number; last: number } {
  const last = dayOf(now);
  return { first: last - days + 1, last };
}

/** Exact sum of a `<name>_hi` / `<name>_lo` column pair of a result row. */
export function joinHiLoRow(r: Record<string, unknown>, name: string): bigint {
  return joinHiLo(r[`${name}_hi`] as string, r[`${name}_lo`] as string);
}

/** The quarter-hour rollup of each hour rollup (migration 0020: the same keys with `quarter_ms` for `hour_ms`). */
export const QUARTER_OF = { ru_hour: 'ru_quarter', ru_hour_c: 'ru_quarter_c', ru_hour_p: 'ru_quarter_p' } as const;

/**
 * The rows of a window open towards now, [start, ∞), to be summed by the caller (joined with
 * union all): `dayTable` rows of the whole UTC days after the start's day, `hourTable` rows of
 * that day's whole hours from the first hour boundary at or after `start` (migration 0010), its
 * quarter-hour rollup's rows (QUARTER_OF, migration 0020) of the whole quarter hours before that
 * boundary, and the raw games of the partial quarter hour before those. `rollupCols` selects from
 * the rollups, `gameCols` the same columns from games; `where` (` and …` filters) applies to every
 * part. At most 24 hour rows, 3 quarter rows and 15 minutes of games besides the day rows,
 * whatever the history.
 */
export function openWindowSums(dayTable: string, hourTable: keyof typeof QUARTER_OF, rollupCols: RawBuilder<unknown>, gameCols: RawBuilder<unknown>, start: number, where: RawBuilder<unknown>): RawBuilder<unknown> {
  const d = dayOf(start);
  const dayEnd = (d + 1) * MS_PER_DAY;
  const hour = Math.min(Math.ceil(start / MS_PER_HOUR) * MS_PER_HOUR, dayEnd);
  const quarter = Math.min(Math.ceil(start / MS_PER_QUARTER) * MS_PER_QUARTER, hour);
  return sql`select ${rollupCols} from ${sql.raw(dayTable)} where day > ${d} ${where}
    union all select ${rollupCols} from ${sql.raw(hourTable)} where hour_ms >= ${hour} and hour_ms < ${dayEnd} ${where}
    union all select ${rollupCols} from ${sql.raw(QUARTER_OF[hourTable])} where quarter_ms >= ${quarter} and quarter_ms < ${hour} ${where}
    union all select ${gameCols} from games where time_ms >= ${start} and time_ms < ${quarter} ${where}`;
}

/** The first and last stored game times (ms; two seeks on the games' time index), or undefined for an empty store. */
export async function historyEnds(db: Kysely<Database>): Promise<{ first: number; last: number } | undefined> {
  const r = await sql<{ first: unknown; last: unknown }>`select (select min(time_ms) from games) as first, (select max(time_ms) from games) as last`.execute(db);
  const row = r.rows[0];
  if (!row || row.first === null || row.first === undefined) return undefined;
  return { first: num(row.first), last: num(row.last) };
}

/**
 * Whether the window [startTime, endTime) (ms; either side open when undefined) holds every stored
 * game: it starts at or before the first game and ends after the last one (`ends`: historyEnds).
 * Such a window is served by the all-time path, which reads the all-time rollups instead of the
 * window's blocks, days and raw edges (docs/design.md §7 "Bounded windows"); the answers are the
 * same by definition. False for an empty store (the window path answers it cheaply).
 */
export function windowCoversHistory(ends: { first: number; last: number } | undefined, startTime: number | undefined, endTime: number | undefined): boolean {
  if (startTime === undefined && endTime === undefined) return true;
  if (ends === undefined) return false;
  return (startTime === undefined || startTime <= ends.first) && (endTime === undefined || endTime > ends.last);
}

/** windowCoversHistory with the history's ends read here (two seeks; none for an all-time query). */
export async function coversHistory(db: Kysely<Database>, startTime: number | undefined, endTime: number | undefined): Promise<boolean> {
  if (startTime === undefined && endTime === undefined) return true;
  return windowCoversHistory(await historyEnds(db), startTime, endTime);
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
 * The per-game value of a pool-side sum (rollups/definitions.ts POOL_SUMS) as SQL over raw games
 * rows, what the write path adds to ru_pool_day / ru_hour_p / ru_quarter_p: the pool fee's halves
 * from its decimal text (u64TextHalves), its USD and the house PnL (wager − payout) in USD from
 * the stored price per smallest unit (0 while un-priced).
 */
export function poolSumOfRow(a: DialectAdapter, c: PoolSumColumn): RawBuilder<unknown> {
  const double = sql.raw(a.double);
  switch (c) {
    case 'pool_fee_hi':
      return u64TextHalves(a, 'pool_fee').hi;
    case 'pool_fee_lo':
      return u64TextHalves(a, 'pool_fee').lo;
    case 'usd_pool_fee':
      return sql`coalesce(cast(pool_fee as ${double}) * usd_per_unit, 0)`;
    case 'usd_house_pnl':
      return sql`coalesce((cast(wager as ${double}) - cast(payout as ${double})) * usd_per_unit, 0)`;
  }
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

/** One list of the threshold algorithm: `next(size)` returns its next rows, best first (ties by player ascending); fewer than `size` once it is exhausted. */
export interface SortedList {
  next(size: number): Promise<{ player: string; v: number }[]>;
}

/**
 * Rows of `table` matching `where` (` and …`) as a sorted list: (player, `column`) best first, ties
 * by player ascending, continued by keyset from the last row read. The ORDER BY is the text of the
 * table's sort index (`column desc, player`), so each batch is one range of that index.
 */
export function keysetList(db: Kysely<Database>, table: string, where: RawBuilder<unknown>, column: string): SortedList {
  const v = sql.raw(column);
  let last: { player: string; v: number } | null = null;
  return {
    async next(size) {
      const after = last === null ? sql`` : sql`and ${v} <= ${last.v} and (${v} < ${last.v} or player > ${last.player})`;
      const r = await sql<{ player: string; v: unknown }>`select player, ${v} as v from ${sql.raw(table)}
        where 1=1 ${where} ${after} order by ${v} desc, player asc limit ${size}`.execute(db);
      const rows = r.rows.map((x) => ({ player: String(x.player), v: num(x.v) }));
      if (rows.length > 0) last = rows[rows.length - 1]!;
      return rows;
    },
  };
}
