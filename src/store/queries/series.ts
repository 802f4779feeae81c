import { sql, type Kysely, type RawBuilder } from 'kysely';
import { MS_PER_DAY, MS_PER_HOUR, MS_PER_QUARTER } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import { EXTREMES, GAME_SUM_OF_ROW, GAME_SUMS, type ExtremeColumn, type GameSumColumn } from '../rollups/definitions.js';
import { big, extremeOfRow, filterSql, num, QUARTER_OF, type GameFilter } from './common.js';

/**
 * Sums of game rollup columns over arbitrary time ranges (the buckets of a series, or one window),
 * read as bounded reads (docs/design.md §7, docs/architecture.md "Storage"): each range is cut into
 * the UTC days wholly inside it (a day rollup), the UTC hours wholly inside the rest (an hour
 * rollup, migration 0010), the quarter hours wholly inside what is left (a quarter-hour rollup,
 * migration 0020) and the sub-quarter edges (raw games on a time index). A range's cost is at
 * most its days, 46 hour rows, 6 quarter rows and two slices of games shorter than 15 minutes,
 * whatever the history; a range whose ends are on quarter hours (the buckets of every time
 * zone) reads no raw game.
 */

/** The rollups a range reads: one filter shape (all games, one creator, one pool), optionally grouped by creator. */
export interface RangeSource {
  day: 'ru_day' | 'ru_day_c' | 'ru_pool_day';
  hour: 'ru_hour' | 'ru_hour_c' | 'ru_hour_p';
  filter: GameFilter;
  /** Group each range's sums by creator (ru_day_c / ru_hour_c, unfiltered or one creator). */
  byCreator?: boolean;
}

/** A summed column: a game sum (added) or an extreme (max/min), rollups/definitions.ts. */
export type RangeColumn = GameSumColumn | ExtremeColumn;

/** Sums of one range (and group): u64 halves as bigint, counts, USD and ms as numbers. */
export type RangeSums = Partial<Record<RangeColumn, number | bigint>>;

/** A part of a range: [lo, hi) in its unit (day numbers, or ms for hours, quarter hours and raw slices) and the index of its range. */
export interface Piece {
  lo: number;
  hi: number;
  range: number;
}

/**
 * Cuts [from, to) into whole UTC days, whole hours, whole quarter hours and sub-quarter slices
 * (ms bounds; days as day numbers, hours as hour_ms, quarters as quarter_ms).
 */
export function cut(from: number, to: number, range: number, days: Piece[], hours: Piece[], quarters: Piece[], raw: Piece[]): void {
  /** [a, b) into its whole units of `unit` ms (pushed to `into`) and the edges left over (passed to `rest`). */
  const split = (a: number, b: number, unit: number, into: Piece[], rest: (a: number, b: number) => void): void => {
    if (a >= b) return;
    const u0 = Math.ceil(a / unit) * unit;
    const u1 = Math.floor(b / unit) * unit;
    if (u0 >= u1) return rest(a, b);
    rest(a, u0);
    into.push({ lo: u0, hi: u1, range });
    rest(u1, b);
  };
  const rawOf = (a: number, b: number): void => {
    if (a < b) raw.push({ lo: a, hi: b, range });
  };
  const quartersOf = (a: number, b: number): void => split(a, b, MS_PER_QUARTER, quarters, rawOf);
  const hoursOf = (a: number, b: number): void => split(a, b, MS_PER_HOUR, hours, quartersOf);
  const d0 = Math.ceil(from / MS_PER_DAY);
  const d1 = Math.floor(to / MS_PER_DAY);
  if (d0 >= d1) return hoursOf(from, to);
  hoursOf(from, d0 * MS_PER_DAY);
  days.push({ lo: d0, hi: d1, range });
  hoursOf(d1 * MS_PER_DAY, to);
}

/** Runs of pieces (sorted by lo) merged across gaps of at most `gap`, to read each run with one range scan. */
function runs(pieces: Piece[], gap: number): [number, number][] {
  const sorted = [...pieces].sort((x, y) => x.lo - y.lo);
  const out: [number, number][] = [];
  for (const p of sorted) {
    const last = out[out.length - 1];
    if (last && p.lo - last[1] <= gap) last[1] = Math.max(last[1], p.hi);
    else out.push([p.lo, p.hi]);
  }
  return out;
}

/** The range a row keyed `k` belongs to (pieces sorted by lo, disjoint), or −1 when no piece holds it (a gap of a merged run). */
function rangeOf(sorted: Piece[], k: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const p = sorted[mid]!;
    if (k < p.lo) hi = mid - 1;
    else if (k >= p.hi) lo = mid + 1;
    else return p.range;
  }
  return -1;
}

const isExtreme = (c: RangeColumn): c is ExtremeColumn => c in EXTREMES;

function addRow(into: RangeSums, r: Record<string, unknown>, columns: readonly RangeColumn[]): void {
  if (num(r.plays) === 0 && r.plays !== undefined) return;
  for (const c of columns) {
    if (isExtreme(c)) {
      const v = num(r[c]);
      const cur = into[c] as number | undefined;
      into[c] = cur === undefined ? v : EXTREMES[c].merge === 'max' ? Math.max(cur, v) : Math.min(cur, v);
    } else if (GAME_SUMS[c] === 'u64') into[c] = ((into[c] as bigint | undefined) ?? 0n) + big(r[c]);
    else into[c] = ((into[c] as number | undefined) ?? 0) + num(r[c]);
  }
}

/** Quarter-hour keys listed per statement (bound parameters: well under SQLite's 32,766 and PostgreSQL's 65,535). */
const QUARTERS_PER_STATEMENT = 500;

/** Raw rows aggregated per slice in SQL; at most this many slices per statement. */
const SLICES_PER_STATEMENT = 64;

/**
 * Sums of `columns` (always including `plays`) per range [from, to) of `ranges` (disjoint, in any
 * order), per creator with `byCreator` (key '' otherwise). Returns one Map per range; a group
 * with no game in a range is absent.
 */
export async function rangeSums(
  db: Kysely<Database>,
  a: DialectAdapter,
  src: RangeSource,
  ranges: readonly { from: number; to: number }[],
  columns: readonly RangeColumn[],
): Promise<Map<string, RangeSums>[]> {
  const cols: RangeColumn[] = columns.includes('plays') ? [...columns] : ['plays', ...columns];
  const out = ranges.map(() => new Map<string, RangeSums>());
  const days: Piece[] = [];
  const hours: Piece[] = [];
  const quarters: Piece[] = [];
  const raw: Piece[] = [];
  ranges.forEach((r, i) => {
    if (r.from < r.to) cut(r.from, r.to, i, days, hours, quarters, raw);
  });
  const group = src.byCreator ? sql`creator` : sql`''`;
  const agg = sql.raw(cols.map((c) => `${isExtreme(c) ? EXTREMES[c].merge : 'sum'}(${c}) as ${c}`).join(', '));
  const f = filterSql(src.filter);
  const take = (rows: Record<string, unknown>[], pieces: Piece[], keyOf: (r: Record<string, unknown>) => number | undefined): void => {
    for (const r of rows) {
      const k = keyOf(r);
      const i = k === undefined ? -1 : rangeOf(pieces, k);
      if (i < 0) continue;
      const g = String(r.g);
      const m = out[i]!;
      let s = m.get(g);
      if (!s) m.set(g, (s = {}));
      addRow(s, r, cols);
    }
  };

  // Whole days: one scan per run of days (a gap of a few cut days is read and dropped). One
  // piece of days (a window's whole days) is summed per group in SQL: its rows need no day.
  const daySorted = [...days].sort((x, y) => x.lo - y.lo);
  if (days.length === 1) {
    const res = await sql<Record<string, unknown>>`select ${group} as g, ${agg} from ${sql.raw(src.day)}
      where day >= ${days[0]!.lo} and day < ${days[0]!.hi} ${f} group by g`.execute(db);
    take(res.rows, daySorted, () => days[0]!.lo);
  } else for (const [d0, d1] of runs(days, 7)) {
    const res = await sql<Record<string, unknown>>`select day, ${group} as g, ${agg} from ${sql.raw(src.day)}
      where day >= ${d0} and day < ${d1} ${f} group by day, g`.execute(db);
    // A run spans several days: each day row is assigned to its piece.
    take(res.rows, daySorted, (r) => num(r.day));
  }
  // Whole hours: one scan per run (runs merge across gaps of up to two days).
  const hourSorted = [...hours].sort((x, y) => x.lo - y.lo);
  for (const [h0, h1] of runs(hours, 2 * MS_PER_DAY)) {
    const res = await sql<Record<string, unknown>>`select hour_ms, ${group} as g, ${agg} from ${sql.raw(src.hour)}
      where hour_ms >= ${h0} and hour_ms < ${h1} ${f} group by hour_ms, g`.execute(db);
    take(res.rows, hourSorted, (r) => num(r.hour_ms));
  }
  // Whole quarter hours, from the quarter-hour rollup of the same shape: listed by value (a range
  // has at most 7, at its ends), not scanned as runs. A day series in a half-hour zone needs 4
  // quarter rows a day, and a run across its days would read all 96.
  const quarterSorted = [...quarters].sort((x, y) => x.lo - y.lo);
  const quarterKeys = quarterSorted.flatMap((p) => Array.from({ length: (p.hi - p.lo) / MS_PER_QUARTER }, (_, i) => p.lo + i * MS_PER_QUARTER));
  for (let i = 0; i < quarterKeys.length; i += QUARTERS_PER_STATEMENT) {
    const keys = quarterKeys.slice(i, i + QUARTERS_PER_STATEMENT);
    const res = await sql<Record<string, unknown>>`select quarter_ms, ${group} as g, ${agg} from ${sql.raw(QUARTER_OF[src.hour])}
      where quarter_ms in (${sql.join(keys)}) ${f} group by quarter_ms, g`.execute(db);
    take(res.rows, quarterSorted, (r) => num(r.quarter_ms));
  }
  // Sub-quarter slices: raw games on a time index ((creator|pool|…, time_ms) or (time_ms)), aggregated per slice.
  const ofRow = (c: RangeColumn): RawBuilder<unknown> =>
    isExtreme(c) ? sql`${sql.raw(EXTREMES[c].merge)}(${extremeOfRow(a, c)}) as ${sql.raw(c)}` : sql`sum(${sql.raw(GAME_SUM_OF_ROW[c])}) as ${sql.raw(c)}`;
  const rawAgg = sql.join(cols.map(ofRow));
  for (let i = 0; i < raw.length; i += SLICES_PER_STATEMENT) {
    const chunk = raw.slice(i, i + SLICES_PER_STATEMENT);
    const parts = chunk.map(
      (p, j) => sql`select ${sql.lit(j)} as slice, ${group} as g, ${rawAgg} from games where time_ms >= ${p.lo} and time_ms < ${p.hi} ${f} group by g`,
    );
    const res = await sql<Record<string, unknown>>`${sql.join(parts, sql` union all `)}`.execute(db);
    for (const r of res.rows) {
      const p = chunk[num(r.slice)]!;
      const m = out[p.range]!;
      const g = String(r.g);
      let s = m.get(g);
      if (!s) m.set(g, (s = {}));
      addRow(s, r, cols);
    }
  }
  return out;
}
