import { AppError } from './errors.js';
import { MS_PER_DAY, MS_PER_HOUR } from './time.js';

/**
 * Time-zone calendar of the series (docs/design.md §4 "Windows"): local days, hours and ISO weeks
 * of an IANA zone, computed with Intl (the zone rules of the ICU data Node ships).
 */

/** Most points one series answer holds (docs/design.md §4 "Windows"): more → 400 naming the window parameters. */
export const MAX_SERIES_POINTS = 1000;

/** A series step: one local hour, local day, or ISO week (Monday 00:00 local). */
export type SeriesInterval = 'hour' | 'day' | 'week';

/** What a series asks for: the window (Unix ms, start inclusive, end exclusive; absent = defaults), the zone and the step. */
export interface SeriesWindow {
  /** Window start, Unix ms (inclusive). Absent: local midnight `days − 1` dates before the last bucket's date. */
  startTime?: number | undefined;
  /** Window end, Unix ms (exclusive). Absent: the end of the interval bucket holding `now`. */
  endTime?: number | undefined;
  /** Dates of the default window (docs/design.md §4: the N dates ending today). */
  days: number;
  /** IANA zone of the buckets and labels (canonical name, e.g. from params.ts parseTimeZone). */
  tz: string;
  interval: SeriesInterval;
  /** Wall clock, Unix ms. */
  now: number;
}

/** One series bucket: its nominal start (`time`, Unix ms) and local date label, and the part of it inside the window [`from`, `to`). */
export interface SeriesBucket {
  /** Local date (`YYYY-MM-DD`, in tz) of the bucket's nominal start. */
  date: string;
  /** Nominal start of the bucket (local midnight, local hour, Monday midnight), Unix ms. */
  time: number;
  /** Start of the bucket's part inside the window, Unix ms (inclusive). */
  from: number;
  /** End of that part, Unix ms (exclusive). */
  to: number;
}

/** The last instant an ECMAScript Date holds, Unix ms (ECMA-262 "Time Values and Time Range"). */
const MAX_DATE_MS = 8.64e15;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', weekday: 'short' });
    formatters.set(tz, f);
  }
  return f;
}

/** Local calendar fields of an instant: month 1..12, hour 0..23, weekday 0 = Monday … 6 = Sunday. */
export interface LocalParts {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  weekday: number;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/**
 * `formatter(tz).format(…)` as en-US writes it (`Sat, 11/28/2026, 06:27:17`): the same fields as
 * formatToParts joined with fixed literals, read ~3× cheaper than formatToParts builds its parts.
 */
const FORMATTED = /^([A-Z][a-z]{2}), (\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;

/**
 * Local fields of instants already computed, per zone (key `tz` + ' ' + Unix ms): a series walks
 * the same instants several times (a bucket's start is the previous bucket's next start, and its
 * label and offset read it again), and repeated series share their bucket starts. Cleared when it
 * holds MAX_CACHED_PARTS entries (a few hundred kB).
 */
const cachedParts = new Map<string, LocalParts>();
const MAX_CACHED_PARTS = 20_000;

/** Local fields of instant `t` in `tz` by Intl (no cache). */
function intlParts(tz: string, t: number): LocalParts {
  const f = formatter(tz);
  const x = FORMATTED.exec(f.format(new Date(t)));
  const weekday = WEEKDAYS.indexOf(x?.[1] ?? '');
  if (x && weekday >= 0) return { y: Number(x[4]), m: Number(x[2]), d: Number(x[3]), h: Number(x[5]) % 24, mi: Number(x[6]), s: Number(x[7]), weekday };
  // Any other shape (none known for en-US): the parts by name.
  const out: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(t))) out[p.type] = p.value;
  return { y: Number(out.year), m: Number(out.month), d: Number(out.day), h: Number(out.hour) % 24, mi: Number(out.minute), s: Number(out.second), weekday: WEEKDAYS.indexOf(out.weekday ?? '') };
}

/** Local calendar fields of instant `t` (Unix ms) in `tz` (month 1..12; weekday 0 = Monday … 6 = Sunday). The returned object is shared: do not change it. */
export function localParts(tz: string, t: number): LocalParts {
  if (tz === 'UTC') {
    // The default zone, without Intl (the same fields, much cheaper).
    const u = new Date(t);
    return { y: u.getUTCFullYear(), m: u.getUTCMonth() + 1, d: u.getUTCDate(), h: u.getUTCHours(), mi: u.getUTCMinutes(), s: u.getUTCSeconds(), weekday: (u.getUTCDay() + 6) % 7 };
  }
  const k = `${tz} ${t}`;
  let p = cachedParts.get(k);
  if (!p) {
    p = intlParts(tz, t);
    if (cachedParts.size >= MAX_CACHED_PARTS) cachedParts.clear();
    cachedParts.set(k, p);
  }
  return p;
}

/** Offset of `tz` from UTC at instant `t`, ms (local = UTC + offset). */
export function zoneOffsetMs(tz: string, t: number): number {
  const p = localParts(tz, t);
  return Date.UTC(p.y, p.m - 1, p.d, p.h, p.mi, p.s) - Math.floor(t / 1000) * 1000;
}

const key = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d);

/** First instant of the local date y-m-d (month 1..12) in `tz`, Unix ms (local 00:00, or the end of a gap skipping it). */
export function localMidnight(tz: string, y: number, m: number, d: number): number {
  const u = key(y, m, d);
  let t = u - zoneOffsetMs(tz, u);
  t = u - zoneOffsetMs(tz, t);
  const p = localParts(tz, t);
  if (key(p.y, p.m, p.d) === u && p.h === 0 && p.mi === 0 && p.s === 0) return t;
  // Midnight skipped by a transition (or the guess fell outside the date): the earliest instant of that date, by bisection.
  let lo = u - 15 * MS_PER_HOUR;
  let hi = u + 15 * MS_PER_HOUR;
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2000) * 1000;
    const q = localParts(tz, mid);
    if (key(q.y, q.m, q.d) >= u) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Local date `YYYY-MM-DD` of instant `t` in `tz`. */
export function localDate(tz: string, t: number): string {
  const p = localParts(tz, t);
  return new Date(key(p.y, p.m, p.d)).toISOString().slice(0, 10);
}

/** Local midnight of the date `t` falls on, shifted by `addDays` dates. */
function midnightOf(tz: string, t: number, addDays = 0): number {
  const p = localParts(tz, t);
  const shifted = new Date(key(p.y, p.m, p.d) + addDays * MS_PER_DAY);
  return localMidnight(tz, shifted.getUTCFullYear(), shifted.getUTCMonth() + 1, shifted.getUTCDate());
}

/** A quarter-hour: every zone offset in use is a multiple of it, so local hours start on UTC quarter-hours. */
const QUARTER_MS = 15 * 60_000;

/** Whether a local hour starts at `x`: local minutes and seconds are 0, or the zone's offset changes there. */
function isHourStart(tz: string, x: number): boolean {
  const p = localParts(tz, x);
  if (p.mi === 0 && p.s === 0) return true;
  return zoneOffsetMs(tz, x) !== zoneOffsetMs(tz, x - QUARTER_MS);
}

/** Nominal start of the bucket holding `t`. */
function bucketStart(tz: string, interval: SeriesInterval, t: number): number {
  if (interval === 'day') return midnightOf(tz, t);
  if (interval === 'week') return midnightOf(tz, t, -localParts(tz, t).weekday);
  // Local hours start on a UTC quarter-hour (at most 3 steps back; a zone off the quarter grid, as
  // some before 1972, falls back to the UTC hour).
  let x = Math.floor(t / QUARTER_MS) * QUARTER_MS;
  for (let i = 0; i < 4; i++, x -= QUARTER_MS) if (isHourStart(tz, x)) return x;
  return Math.floor(t / MS_PER_HOUR) * MS_PER_HOUR;
}

/** Nominal start of the bucket after the one starting at `start`. */
function nextStart(tz: string, interval: SeriesInterval, start: number): number {
  if (interval !== 'hour') return midnightOf(tz, start, interval === 'day' ? 1 : 7);
  const t = start + MS_PER_HOUR;
  // Usually an hour later: the same offset there (no transition in between: transitions are months
  // apart) and a whole local hour. Otherwise the first quarter-hour that starts a local hour, e.g.
  // the instant a 30-minute transition (Australia/Lord_Howe) or a DST change happens.
  if (zoneOffsetMs(tz, t) === zoneOffsetMs(tz, start) && localParts(tz, t).mi === 0) return t;
  for (let x = start + QUARTER_MS; x <= t; x += QUARTER_MS) if (isHourStart(tz, x)) return x;
  return t;
}

/**
 * The buckets of a series window (docs/design.md §4 "Windows"): every `interval` bucket in `tz`
 * intersecting [start, end), each with its part inside the window. Defaults: end = the end of
 * the bucket holding `now`; start = local midnight of the date `days − 1` before the date of
 * end − 1 ms (so `days` dates, today included, as before these parameters existed).
 * Throws AppError INVALID_PARAMETER when start ≥ end (naming `endTime`, or `startTime` when no
 * endTime was given) or when the window holds more than `maxPoints` buckets (naming `interval`).
 * The buckets are frozen and shared by later calls for the same zone, interval and window.
 */
export function seriesBuckets(w: SeriesWindow, maxPoints = MAX_SERIES_POINTS): readonly SeriesBucket[] {
  // ECMAScript dates end at ±8.64e15 ms (ECMA-262 "Time Values"); a zone's calendar past them is undefined.
  for (const [name, t] of [['startTime', w.startTime], ['endTime', w.endTime]] as const) {
    if (t !== undefined && t > MAX_DATE_MS - 8 * MS_PER_DAY) {
      throw new AppError('INVALID_PARAMETER', `Invalid parameter '${name}': must be before +275760-09-05T00:00:00Z`, { details: { parameter: name } });
    }
  }
  const end = w.endTime ?? nextStart(w.tz, w.interval, bucketStart(w.tz, w.interval, w.now));
  const start = w.startTime ?? midnightOf(w.tz, end - 1, -(w.days - 1));
  if (start >= end) {
    const name = w.endTime !== undefined ? 'endTime' : 'startTime';
    const rule = w.endTime !== undefined ? 'must be later than startTime' : 'must be earlier than the end of the current interval (endTime defaults to it)';
    throw new AppError('INVALID_PARAMETER', `Invalid parameter '${name}': ${rule}`, { details: { parameter: name } });
  }
  const stepMs = w.interval === 'hour' ? MS_PER_HOUR : w.interval === 'day' ? MS_PER_DAY : 7 * MS_PER_DAY;
  // Cheap bound first (DST moves a bucket by at most an hour), so a huge window is refused before it is walked.
  if ((end - start) / (stepMs + MS_PER_HOUR) > maxPoints + 1) throw tooMany(maxPoints);
  const key = `${w.tz} ${w.interval} ${start} ${end} ${maxPoints}`;
  const known = cachedSeries.get(key);
  if (known) return known;
  const out: SeriesBucket[] = [];
  for (let b = bucketStart(w.tz, w.interval, start); b < end; ) {
    const n = nextStart(w.tz, w.interval, b);
    out.push(Object.freeze({ date: localDate(w.tz, b), time: b, from: Math.max(b, start), to: Math.min(n, end) }));
    if (out.length > maxPoints) throw tooMany(maxPoints);
    b = n;
  }
  // Oldest series first out, until the kept buckets fit MAX_CACHED_BUCKETS again.
  for (const [k, old] of cachedSeries) {
    if (cachedBuckets + out.length <= MAX_CACHED_BUCKETS) break;
    cachedSeries.delete(k);
    cachedBuckets -= old.length;
  }
  cachedSeries.set(key, Object.freeze(out));
  cachedBuckets += out.length;
  return out;
}

/**
 * Series already walked, by zone, interval and resolved window (key of seriesBuckets): the same
 * charts are asked again and again (a dashboard's default 300 days in its zone), and walking one
 * costs about 1 ms in a zone other than UTC (five local-field lookups per bucket). Frozen, shared by
 * every caller. Bounded by the buckets they hold together (about 100 bytes each), oldest first out.
 */
const cachedSeries = new Map<string, readonly SeriesBucket[]>();
const MAX_CACHED_BUCKETS = 20_000;
let cachedBuckets = 0;

function tooMany(maxPoints: number): AppError {
  return new AppError(
    'INVALID_PARAMETER',
    `Invalid parameter 'interval': the window (startTime, endTime, days) holds more than ${maxPoints} points at this interval; narrow the window or use a longer interval`,
    { details: { parameter: 'interval' } },
  );
}
