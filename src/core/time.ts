/** Calendar helpers. All dates are UTC (docs/design.md §4: dates are UTC `YYYY-MM-DD`). */

/** One hour, ms. */
export const MS_PER_HOUR = 3_600_000;
/** One UTC day, ms. */
export const MS_PER_DAY = 86_400_000;

/** UTC day number (days since 1970-01-01) of a ms timestamp. */
export function dayOf(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

/** `YYYY-MM-DD` of a UTC day number. */
export function dayToDate(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** Start of the UTC hour containing `ms`, in ms. */
export function hourFloor(ms: number): number {
  return Math.floor(ms / MS_PER_HOUR) * MS_PER_HOUR;
}

/** A quarter hour, ms: every time zone's offset from UTC is a multiple of it (the quarter-hour rollups, docs/design.md §7). */
export const MS_PER_QUARTER = 900_000;

/** Start of the UTC quarter hour containing `ms`, in ms (the `quarter_ms` of the quarter-hour rollups). */
export function quarterOf(ms: number): number {
  return Math.floor(ms / MS_PER_QUARTER) * MS_PER_QUARTER;
}

/** ISO 8601 UTC with millisecond precision (docs/spec.md §2). */
export function isoMs(ms: number): string {
  return new Date(ms).toISOString();
}
