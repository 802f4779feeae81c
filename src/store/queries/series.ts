import { sql, type Kysely, type RawBuilder } from 'kysely';
import { MS_PER_DAY, MS_PER_HOUR, MS_PER_QUARTER } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import { EXTREMES, GAME_SUM_OF_ROW, GAME_SUMS, POOL_SUMS, type ExtremeColumn, type GameSumColumn, type PoolSumColumn } from '../rollups/definitions.js';
import { big, extremeOfRow, filterSql, num, poolSumOfRow, QUARTER_OF, type GameFilter } from './common.js';

/**
 * Sums of game rollup columns (and the pool rollups' pool-side sums) over arbitrary time ranges
 * (the buckets of a series, or one window), read as bounded reads (docs/design.md §7,
 * docs/architecture.md "Storage"): each range is cut into the UTC days wholly inside it (a day
 * rollup), the UTC hours wholly inside the rest (an hour rollup, migration 0010), the quarter hours
 * wholly inside what is left (a quarter-hour rollup, migration 0020) and the sub-quarter edges (raw
 * games on a time index). A range's cost is at most its days, 46 hour rows, 6 quarter rows and two
 * slices of games shorter than 15 minutes, whatever the history; a range whose ends are on quarter
 * hours (the buckets of every time zone) reads no raw game.
 *
 * When only additive sums are asked for (no max/min column), a range may instead be read as the
 * whole UTC days between the UTC midnights nearest its ends, plus the part before the first one
 * or minus the part after it, at each end (`cutAround`): a Berlin day [D−1 22:00Z, D 22:00Z) is
 * day D + hours [D−1 22:00Z, D 00:00Z) − hours [D 22:00Z, D+1 00:00Z), 5 rows instead of 24.
 * Each range takes whichever cut reads fewer rows.
 *
 * Hours and quarter hours in long runs of contiguous keys (an hour series) are scanned row by
 * row; shorter spans (the edges of day and week buckets) are summed per span and group in SQL,
 * each distinct span once: the hours one bucket subtracts are those the next one adds.
 */

/** The rollups a range reads: one filter shape (all games, one creator, one pool), optionally grouped by creator. */
export interface RangeSource {
  day: 'ru_day' | 'ru_day_c' | 'ru_pool_day';
  hour: 'ru_hour' | 'ru_hour_c' | 'ru_hour_p';
  filter: GameFilter;
  /** Group each range's sums by creator (ru_day_c / ru_hour_c, unfiltered or one creator). */
  byCreator?: boolean;
}

/**
 * A summed column: a game sum (added), an extreme (max/min), or a pool-side sum (POOL_SUMS: only
 * from the pool rollups ru_pool_day / ru_hour_p / ru_quarter_p, which hold them), rollups/definitions.ts.
 */
export type RangeColumn = GameSumColumn | ExtremeColumn | PoolSumColumn;

/** Sums of one range (and group): u64 halves as bigint, counts, USD and ms as numbers. */
export type RangeSums = Partial<Record<RangeColumn, number | bigint>>;

/**
 * A part of a range: [lo, hi) in its unit (day numbers, or Unix ms for hours, quarter hours and
 * raw slices), the index of its range, and whether its sums are added to the range's (1) or
 * subtracted from them (−1, cutAround).
 */
export interface Piece {
  lo: number;
  hi: number;
  range: number;
  sign: 1 | -1;
}

/**
 * Cuts [from, to) (Unix ms) into whole UTC days, whole hours, whole quarter hours and sub-quarter
 * slices, pushed as pieces of `range` with `sign` (days as day numbers, hours as hour_ms, quarters
 * as quarter_ms, slices as ms bounds).
 */
export function cut(from: number, to: number, range: number, days: Piece[], hours: Piece[], quarters: Piece[], raw: Piece[], sign: 1 | -1 = 1): void {
  /** [a, b) into its whole units of `unit` ms (pushed to `into`) and the edges left over (passed to `rest`). */
  const split = (a: number, b: number, unit: number, into: Piece[], rest: (a: number, b: number) => void): void => {
    if (a >= b) return;
    const u0 = Math.ceil(a / unit) * unit;
    const u1 = Math.floor(b / unit) * unit;
    if (u0 >= u1) return rest(a, b);
    rest(a, u0);
    into.push({ lo: u0, hi: u1, range, sign });
    rest(u1, b);
  };
  const rawOf = (a: number, b: number): void => {
    if (a < b) raw.push({ lo: a, hi: b, range, sign });
  };
  const quartersOf = (a: number, b: number): void => split(a, b, MS_PER_QUARTER, quarters, rawOf);
  const hoursOf = (a: number, b: number): void => split(a, b, MS_PER_HOUR, hours, quartersOf);
  const d0 = Math.ceil(from / MS_PER_DAY);
  const d1 = Math.floor(to / MS_PER_DAY);
  if (d0 >= d1) return hoursOf(from, to);
  hoursOf(from, d0 * MS_PER_DAY);
  days.push({ lo: d0, hi: d1, range, sign });
  hoursOf(d1 * MS_PER_DAY, to);
}

/** What a raw slice costs against one rollup row when choosing a cut: its own statement part and a time-index scan. */
const RAW_SLICE_ROWS = 4;

/**
 * Rows `cut` reads for [a, b) (Unix ms) split at multiples of `unit` (day, hour, quarter hour, in
 * that order): its whole units, then the edges at the next unit down; a raw slice counts RAW_SLICE_ROWS.
 */
function rowsOf(a: number, b: number, unit: number = MS_PER_DAY): number {
  if (a >= b) return 0;
  if (unit < MS_PER_QUARTER) return RAW_SLICE_ROWS;
  const next = unit === MS_PER_DAY ? MS_PER_HOUR : unit === MS_PER_HOUR ? MS_PER_QUARTER : 0;
  const u0 = Math.ceil(a / unit) * unit;
  const u1 = Math.floor(b / unit) * unit;
  if (u0 >= u1) return rowsOf(a, b, next);
  return (u1 - u0) / unit + rowsOf(a, u0, next) + rowsOf(u1, b, next);
}

/**
 * Cuts [from, to) (Unix ms) as the whole UTC days [first, end) between a UTC midnight at or next to
 * each end, with at each end the part between the end and that midnight added (a midnight inside
 * the range) or subtracted (a midnight outside it); each part is cut as `cut` does, with sign 1 or
 * −1. Only for additive sums: a subtracted part's max or min cannot be taken back. Of the
 * midnights on either side of each end, those reading the fewest rows are taken; when the plain
 * cut reads no more (a range inside one day, an hour bucket, a range with ends near midnight), it
 * is `cut` itself. A Berlin day [D−1 22:00Z, D 22:00Z): day D, + [D−1 22:00Z, D 00:00Z), −
 * [D 22:00Z, D+1 00:00Z).
 */
export function cutAround(from: number, to: number, range: number, days: Piece[], hours: Piece[], quarters: Piece[], raw: Piece[]): void {
  if (from >= to) return;
  let best = rowsOf(from, to);
  let pick: [number, number] | undefined;
  const firsts = [Math.floor(from / MS_PER_DAY), Math.ceil(from / MS_PER_DAY)];
  const ends = [Math.floor(to / MS_PER_DAY), Math.ceil(to / MS_PER_DAY)];
  for (const first of firsts) {
    for (const end of ends) {
      if (first > end) continue;
      // Days [first, end), then each end's part: between `from` and the first midnight, and between `to` and the last.
      const cost = end - first + rowsOf(Math.min(from, first * MS_PER_DAY), Math.max(from, first * MS_PER_DAY)) + rowsOf(Math.min(to, end * MS_PER_DAY), Math.max(to, end * MS_PER_DAY));
      if (cost < best) [best, pick] = [cost, [first, end]];
    }
  }
  if (!pick) return cut(from, to, range, days, hours, quarters, raw);
  const [first, end] = pick;
  if (first < end) days.push({ lo: first, hi: end, range, sign: 1 });
  // A midnight after `from` adds [from, midnight); one before it subtracts [midnight, from). The same at `to`, mirrored.
  if (first * MS_PER_DAY > from) cut(from, first * MS_PER_DAY, range, days, hours, quarters, raw, 1);
  else cut(first * MS_PER_DAY, from, range, days, hours, quarters, raw, -1);
  if (end * MS_PER_DAY < to) cut(end * MS_PER_DAY, to, range, days, hours, quarters, raw, 1);
  else cut(to, end * MS_PER_DAY, range, days, hours, quarters, raw, -1);
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

/** Where a rollup row counts: each (range, sign) of the pieces holding its key. */
type Members = Map<number, { range: number; sign: 1 | -1 }[]>;

/** The keys of `pieces` (every `unit` from lo to hi: day numbers with unit 1, Unix ms with MS_PER_HOUR or MS_PER_QUARTER) and where each counts. */
function membersOf(pieces: Piece[], unit: number): Members {
  const m: Members = new Map();
  for (const p of pieces) {
    for (let k = p.lo; k < p.hi; k += unit) {
      let e = m.get(k);
      if (!e) m.set(k, (e = []));
      e.push({ range: p.range, sign: p.sign });
    }
  }
  return m;
}

/** Contiguous keys at least this many are read with one range scan, row by row. */
const RUN_KEYS = 16;

/**
 * The pieces (hours or quarter hours, unit `unit` ms) to read row by row: those in a run of
 * RUN_KEYS or more contiguous keys of all the pieces (an hour series, whose buckets tile the
 * hours), with those runs as ranges [k0, k1). The others (a day series' edges: up to 12 hours
 * at each of its buckets' ends, cutAround) are summed per piece in SQL: a range scan across their
 * days would read all 24 hours, and a row per hour costs more than the sum of a few.
 */
function rowPieces(pieces: Piece[], unit: number): { runs: [number, number][]; inRuns: Piece[]; summed: Piece[] } {
  // Pieces by start, merged into the maximal spans of contiguous keys they cover.
  const sorted = [...pieces].sort((x, y) => x.lo - y.lo);
  const runs: [number, number][] = [];
  const inRuns: Piece[] = [];
  const summed: Piece[] = [];
  for (let i = 0; i < sorted.length; ) {
    let hi = sorted[i]!.hi;
    let j = i + 1;
    while (j < sorted.length && sorted[j]!.lo <= hi) hi = Math.max(hi, sorted[j++]!.hi);
    const lo = sorted[i]!.lo;
    if (hi - lo >= RUN_KEYS * unit) {
      runs.push([lo, hi]);
      for (let x = i; x < j; x++) inRuns.push(sorted[x]!);
    } else for (let x = i; x < j; x++) summed.push(sorted[x]!);
    i = j;
  }
  return { runs, inRuns, summed };
}

/**
 * Most pieces summed in SQL per statement (a `union all` of range sums). A statement with fewer is
 * padded to the next power of two by repeating its last piece (whose extra rows are dropped), so
 * its text is one of six and stays in the statement cache, and it reads at most twice its pieces
 * (padding every statement to 32 made a window's two or three edge pieces cost 32 range sums:
 * /stats over a closed window 5.3 → 8.3 ms, docs/benchmarks.md).
 */
const PIECES_PER_STATEMENT = 32;

const isExtreme = (c: RangeColumn): c is ExtremeColumn => c in EXTREMES;
const isPoolSum = (c: RangeColumn): c is PoolSumColumn => c in POOL_SUMS;

/** The kind of an added column (rollups/definitions.ts GAME_SUMS, POOL_SUMS). */
const sumKind = (c: GameSumColumn | PoolSumColumn): 'count' | 'u64' | 'usd' => (isPoolSum(c) ? POOL_SUMS[c] : GAME_SUMS[c]);

/** How a column merges: added as a bigint (u64 halves) or a number (counts, USD), or max/min. */
type Merge = 'u64' | 'add' | 'max' | 'min';
const mergeOf = (c: RangeColumn): Merge => (isExtreme(c) ? EXTREMES[c].merge : sumKind(c) === 'u64' ? 'u64' : 'add');

/**
 * A range's USD sum read with subtractions is kept when what it subtracted is at most this many
 * times the sum (or 1 USD, if more): a double's rounding error grows with the magnitudes added
 * and subtracted, so a small sum left by subtracting a large one (a whale's game in a subtracted
 * hour) would carry the large one's error. 1024 × 2^-53 keeps the added error near 1e-13 of the
 * sum; a range over it is read again with the plain cut.
 */
const MAX_SUBTRACTED_RATIO = 1024;

/** Adds one row's values (`values[i]` of `columns[i]`, bigint for u64 halves) to `into`, or subtracts them (sign −1; sums only). */
function addValues(into: RangeSums, columns: readonly RangeColumn[], merges: readonly Merge[], values: readonly (number | bigint)[], sign: 1 | -1): void {
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!;
    const v = values[i]!;
    const cur = into[c];
    switch (merges[i]) {
      case 'u64':
        into[c] = ((cur as bigint | undefined) ?? 0n) + (sign === 1 ? (v as bigint) : -(v as bigint));
        break;
      case 'add':
        into[c] = ((cur as number | undefined) ?? 0) + sign * (v as number);
        break;
      case 'max':
        into[c] = cur === undefined ? v : Math.max(cur as number, v as number);
        break;
      case 'min':
        into[c] = cur === undefined ? v : Math.min(cur as number, v as number);
    }
  }
}

/**
 * The sums of each of `ranges` [lo, hi), as rows of `piece` (the range's index in `ranges`) and the
 * columns of `sum(lo, hi)`: a select of `g` and sums over the rows of one range.
 * - SQLite: a `union all` of one range sum per range, `perStatement` to a statement, with the
 *   bounds bound as values. With `pad`, a statement is padded to the next power of two by
 *   repeating its last range (the extra rows are dropped), so its text is one of a few and stays
 *   in the statement cache.
 * - PostgreSQL plans each arm of such a union anew: for 32 ranges of `ru_hour_c` at 1M games, 2.0
 *   ms of planning and 7.3 ms a statement in all. There the bounds go as two array parameters,
 *   unnested and joined laterally to one range sum (`sum(p.lo, p.hi)`), in one statement for all
 *   ranges with one plan: 0.2 ms of planning and 1.6 ms for the same 32 (docs/benchmarks.md
 *   "PostgreSQL after a vacuum").
 */
async function sumsPerRange(
  db: Kysely<Database>,
  a: DialectAdapter,
  ranges: readonly { lo: number; hi: number }[],
  sum: (lo: RawBuilder<unknown>, hi: RawBuilder<unknown>) => RawBuilder<unknown>,
  o: { perStatement: number; pad: boolean },
): Promise<{ piece: number; row: Record<string, unknown> }[]> {
  if (ranges.length === 0) return [];
  if (a.kind === 'postgres') {
    const res = await sql<Record<string, unknown>>`select p.piece - 1 as piece, s.*
      from unnest(${ranges.map((r) => r.lo)}::bigint[], ${ranges.map((r) => r.hi)}::bigint[]) with ordinality as p(lo, hi, piece)
      cross join lateral (${sum(sql`p.lo`, sql`p.hi`)}) s`.execute(db);
    return res.rows.map((row) => ({ piece: num(row.piece), row }));
  }
  const out: { piece: number; row: Record<string, unknown> }[] = [];
  for (let i = 0; i < ranges.length; i += o.perStatement) {
    const chunk = ranges.slice(i, i + o.perStatement);
    const n = o.pad ? 2 ** Math.ceil(Math.log2(chunk.length)) : chunk.length;
    const parts = Array.from({ length: n }, (_, j) => {
      const r = chunk[Math.min(j, chunk.length - 1)]!;
      return sql`select ${sql.lit(j)} as piece, s.* from (${sum(sql`${r.lo}`, sql`${r.hi}`)}) s`;
    });
    const res = await sql<Record<string, unknown>>`${sql.join(parts, sql` union all `)}`.execute(db);
    for (const row of res.rows) {
      const j = num(row.piece);
      if (j < chunk.length) out.push({ piece: i + j, row });
    }
  }
  return out;
}

/** Raw rows aggregated per slice in SQL; at most this many slices per statement on SQLite (sumsPerRange). */
const SLICES_PER_STATEMENT = 64;

/**
 * Sums of `columns` (always including `plays`) per range [from, to) of `ranges` (Unix ms,
 * disjoint, in any order), per creator with `byCreator` (key '' otherwise). Returns one Map per
 * range (group → sums: u64 halves as bigint, counts, USD and ms as numbers); a group with no game
 * in a range is absent. Without max/min columns each range is cut by `cutAround` (the hours an
 * end subtracts are read once for every range that needs them; a range whose USD sums subtract
 * more than MAX_SUBTRACTED_RATIO times what is left is read again with `cut`); with one, by `cut`.
 */
export async function rangeSums(
  db: Kysely<Database>,
  a: DialectAdapter,
  src: RangeSource,
  ranges: readonly { from: number; to: number }[],
  columns: readonly RangeColumn[],
): Promise<Map<string, RangeSums>[]> {
  const { out, again } = await sumsOf(db, a, src, ranges, columns, !columns.some(isExtreme));
  if (again.length > 0) {
    const plain = await sumsOf(db, a, src, again.map((i) => ranges[i]!), columns, false);
    again.forEach((i, j) => (out[i] = plain.out[j]!));
  }
  return out;
}

/** rangeSums with each range cut by `cutAround` (`around`) or `cut`; `again`: the ranges to read again with `cut` (MAX_SUBTRACTED_RATIO). */
async function sumsOf(
  db: Kysely<Database>,
  a: DialectAdapter,
  src: RangeSource,
  ranges: readonly { from: number; to: number }[],
  columns: readonly RangeColumn[],
  around: boolean,
): Promise<{ out: Map<string, RangeSums>[]; again: number[] }> {
  const cols: RangeColumn[] = columns.includes('plays') ? [...columns] : ['plays', ...columns];
  const merges = cols.map(mergeOf);
  const usd = cols.flatMap((c, i) => (!isExtreme(c) && sumKind(c) === 'usd' ? [i] : []));
  const out = ranges.map(() => new Map<string, RangeSums>());
  /** Per range and group: Σ |value| of each USD column (in `usd` order) over the rows subtracted. */
  const subtracted = ranges.map(() => new Map<string, number[]>());
  const days: Piece[] = [];
  const hours: Piece[] = [];
  const quarters: Piece[] = [];
  const raw: Piece[] = [];
  ranges.forEach((r, i) => {
    if (r.from < r.to) (around ? cutAround : cut)(r.from, r.to, i, days, hours, quarters, raw);
  });
  const group = src.byCreator ? sql`creator` : sql`''`;
  const agg = sql.raw(cols.map((c) => `${isExtreme(c) ? EXTREMES[c].merge : 'sum'}(${c}) as ${c}`).join(', '));
  const f = filterSql(src.filter);
  /** Adds a row (its group `g` and the columns) to the sums of each (range, sign) it counts for; a row without games adds nothing. */
  const add = (r: Record<string, unknown>, where: readonly { range: number; sign: 1 | -1 }[]): void => {
    if (num(r.plays) === 0) return;
    const values = cols.map((c, i) => (merges[i] === 'u64' ? big(r[c]) : num(r[c])));
    const g = String(r.g);
    for (const { range, sign } of where) {
      const m = out[range]!;
      let s = m.get(g);
      if (!s) m.set(g, (s = {}));
      addValues(s, cols, merges, values, sign);
      if (sign === -1 && usd.length > 0) {
        const sub = subtracted[range]!;
        const mags = sub.get(g) ?? usd.map(() => 0);
        usd.forEach((c, j) => (mags[j]! += Math.abs(values[c] as number)));
        sub.set(g, mags);
      }
    }
  };
  const take = (rows: Record<string, unknown>[], members: Members): void => {
    for (const r of rows) {
      const where = members.get(num(r.k));
      if (where) add(r, where);
    }
  };

  // Whole days: one scan per run of days (a gap of a few cut days is read and dropped). One
  // piece of days (a window's whole days) is summed per group in SQL: its rows need no day.
  if (days.length === 1) {
    const p = days[0]!;
    const res = await sql<Record<string, unknown>>`select ${group} as g, ${agg} from ${sql.raw(src.day)}
      where day >= ${p.lo} and day < ${p.hi} ${f} group by g`.execute(db);
    for (const r of res.rows) add(r, [p]);
  } else if (days.length > 1) {
    const dayMembers = membersOf(days, 1);
    for (const [d0, d1] of runs(days, 7)) {
      const res = await sql<Record<string, unknown>>`select day as k, ${group} as g, ${agg} from ${sql.raw(src.day)}
        where day >= ${d0} and day < ${d1} ${f} group by day, g`.execute(db);
      take(res.rows, dayMembers);
    }
  }
  // Whole hours, then whole quarter hours (the quarter-hour rollup of the same shape). Runs of
  // contiguous keys are scanned row by row; other pieces are summed per piece and group in SQL,
  // each distinct [lo, hi) once however many ranges add or subtract it.
  for (const [table, key, pieces, unit] of [
    [src.hour, 'hour_ms', hours, MS_PER_HOUR],
    [QUARTER_OF[src.hour], 'quarter_ms', quarters, MS_PER_QUARTER],
  ] as const) {
    if (pieces.length === 0) continue;
    const k = sql.raw(key);
    const { runs: spans, inRuns, summed } = rowPieces(pieces, unit);
    const members = membersOf(inRuns, unit);
    for (const [k0, k1] of spans) {
      const res = await sql<Record<string, unknown>>`select ${k} as k, ${group} as g, ${agg} from ${sql.raw(table)}
        where ${k} >= ${k0} and ${k} < ${k1} ${f} group by ${k}, g`.execute(db);
      take(res.rows, members);
    }
    const distinct = new Map<string, { lo: number; hi: number; where: { range: number; sign: 1 | -1 }[] }>();
    for (const p of summed) {
      const id = `${p.lo} ${p.hi}`;
      let d = distinct.get(id);
      if (!d) distinct.set(id, (d = { lo: p.lo, hi: p.hi, where: [] }));
      d.where.push({ range: p.range, sign: p.sign });
    }
    const list = [...distinct.values()];
    const sums = await sumsPerRange(db, a, list, (lo, hi) => sql`select ${group} as g, ${agg} from ${sql.raw(table)} where ${k} >= ${lo} and ${k} < ${hi} ${f} group by g`, {
      perStatement: PIECES_PER_STATEMENT,
      pad: true,
    });
    for (const { piece, row } of sums) add(row, list[piece]!.where);
  }
  // Sub-quarter slices: raw games on a time index ((creator|pool|…, time_ms) or (time_ms)), aggregated per slice.
  const ofRow = (c: RangeColumn): RawBuilder<unknown> =>
    isExtreme(c) ? sql`${sql.raw(EXTREMES[c].merge)}(${extremeOfRow(a, c)}) as ${sql.raw(c)}`
    : isPoolSum(c) ? sql`sum(${poolSumOfRow(a, c)}) as ${sql.raw(c)}`
    : sql`sum(${sql.raw(GAME_SUM_OF_ROW[c])}) as ${sql.raw(c)}`;
  const rawAgg = sql.join(cols.map(ofRow));
  const slices = await sumsPerRange(db, a, raw, (lo, hi) => sql`select ${group} as g, ${rawAgg} from games where time_ms >= ${lo} and time_ms < ${hi} ${f} group by g`, {
    perStatement: SLICES_PER_STATEMENT,
    pad: false,
  });
  for (const { piece, row } of slices) add(row, [raw[piece]!]);
  // A group whose subtracted parts held all its games in a range has no game there; a range
  // where a group's USD sum is small next to what was subtracted from it is read again.
  const again: number[] = [];
  out.forEach((m, i) => {
    for (const [g, s] of m) if (num(s.plays) === 0) m.delete(g);
    const far = [...subtracted[i]!].some(([g, mags]) => {
      const s = m.get(g);
      return s !== undefined && usd.some((c, j) => mags[j]! > MAX_SUBTRACTED_RATIO * Math.max(1, Math.abs(num(s[cols[c]!]))));
    });
    if (far) again.push(i);
  });
  return { out, again };
}
