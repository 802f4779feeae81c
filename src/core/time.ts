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

/** ISO 8601 UTC with millisecond precision (docs/spec.md §2). */
export function isoMs(ms: number): string {
  return new Date(ms).toISOString();
}
