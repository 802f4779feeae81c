import type { Kysely } from 'kysely';
import { seriesBuckets, type SeriesBucket } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { ChartQuery, DaoPoint, PlaysPoint, SeriesQuery } from '../types.js';
import { num } from './common.js';
import { rangeSums, type RangeColumn, type RangeSource, type RangeSums } from './series.js';

/** The buckets of a series query (core/zoned.ts seriesBuckets; throws AppError INVALID_PARAMETER). */
export function bucketsOf(q: SeriesQuery): readonly SeriesBucket[] {
  return seriesBuckets({ days: q.days, startTime: q.startTime, endTime: q.endTime, tz: q.tz ?? 'UTC', interval: q.interval ?? 'day', now: q.now });
}

/**
 * Sums per bucket of a dense series (docs/design.md §4 "Windows"): each bucket's part inside the
 * window, from whole UTC days, whole hours and sub-hour slices (queries/series.ts).
 */
export async function seriesSums(
  db: Kysely<Database>,
  a: DialectAdapter,
  q: SeriesQuery,
  src: RangeSource,
  columns: readonly RangeColumn[],
): Promise<{ bucket: SeriesBucket; sums: RangeSums }[]> {
  const buckets = bucketsOf(q);
  const sums = await rangeSums(db, a, src, buckets.map((b) => ({ from: b.from, to: b.to })), columns);
  return buckets.map((bucket, i) => ({ bucket, sums: sums[i]!.get('') ?? {} }));
}

function chartSource(q: ChartQuery): RangeSource {
  return q.creator === undefined ? { day: 'ru_day', hour: 'ru_hour', filter: {} } : { day: 'ru_day_c', hour: 'ru_hour_c', filter: { creator: q.creator } };
}

/** GET /chart/plays and /chart/daily-usd: `{date, time, plays, volume_usd}` per bucket (ru_day / ru_day_c, ru_hour / ru_hour_c, raw edges). */
export async function chartPlays(db: Kysely<Database>, a: DialectAdapter, q: ChartQuery): Promise<PlaysPoint[]> {
  const rows = await seriesSums(db, a, q, chartSource(q), ['plays', 'usd_wager']);
  return rows.map(({ bucket, sums }) => ({ date: bucket.date, time: bucket.time, plays: num(sums.plays), volume_usd: num(sums.usd_wager) }));
}

/** GET /chart/dao-usd: Σ gambaFee × p per bucket (docs/design.md §3). */
export async function chartDaoUsd(db: Kysely<Database>, a: DialectAdapter, q: ChartQuery): Promise<DaoPoint[]> {
  const rows = await seriesSums(db, a, q, chartSource(q), ['usd_gamba_fee']);
  return rows.map(({ bucket, sums }) => ({ date: bucket.date, time: bucket.time, dao_fees_usd: num(sums.usd_gamba_fee) }));
}
