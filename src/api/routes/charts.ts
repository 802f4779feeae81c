import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidParameter } from '../errors.js';
import { exportFormat, oneShot, sendExport } from '../export.js';
import { PARAMS, queryOf } from '../params.js';
import { count, dateString, ms, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const bucketTime = ms('Start of the bucket (local midnight, local hour or Monday 00:00 in tz)');
const playsPoint = obj({ date: dateString, time: bucketTime, plays: count('Games in the bucket'), volume_usd: usd('Σ usd_wager in the bucket') });
const dailyUsdPoint = obj({ date: dateString, time: bucketTime, volume_usd: usd('Σ usd_wager in the bucket'), plays: count('Games in the bucket') });
const daoPoint = obj({ date: dateString, time: bucketTime, dao_fees_usd: usd('Σ gamba (DAO) fees in the bucket') });

/** The series parameters shared by /chart/* and /daily (docs/design.md §4 "Windows"), and the export format (§11). */
export const SERIES_PARAMS = {
  days: PARAMS.seriesDays,
  startTime: PARAMS.seriesStart,
  endTime: PARAMS.seriesEnd,
  tz: PARAMS.tz,
  interval: PARAMS.interval,
  format: PARAMS.format,
} as const;

/** A series answer `{ data }`, or its export (docs/design.md §11) with `columns` when the request asks for one. */
export async function series(request: FastifyRequest, reply: FastifyReply, columns: readonly string[], data: readonly object[]) {
  const format = exportFormat(request);
  return format === undefined ? { data } : sendExport(reply, format, columns, oneShot(data));
}

const playsQuery = queryOf(SERIES_PARAMS);
const chartQuery = queryOf({ ...SERIES_PARAMS, creator: PARAMS.creator });

/**
 * A parsed series query → the store's SeriesQuery fields: `days` defaults to 300 (1 with
 * interval=hour); endTime ≤ startTime → 400 naming endTime. The bucket count cap and an empty
 * default window are checked by the store (core/zoned.ts seriesBuckets), also as 400s.
 */
export function seriesOf<Q extends { days?: number; startTime?: number; endTime?: number; interval: 'hour' | 'day' | 'week'; format?: unknown }>(q: Q, now: number): Omit<Q, 'format'> & { days: number; now: number } {
  if (q.startTime !== undefined && q.endTime !== undefined && q.endTime <= q.startTime) throw invalidParameter('endTime', 'must be later than startTime');
  const { format: _, ...rest } = q;
  return { ...rest, days: q.days ?? (q.interval === 'hour' ? 1 : 300), now };
}

/** `/chart/plays`, `/chart/daily-usd`, `/chart/dao-usd`: dense series (docs/spec.md §8.4: last 300 days by default; docs/design.md §4 "Windows"). */
export function registerChartRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;
  const summary = ' (dense series; days, or a window [startTime, endTime); interval hour|day|week in tz)';

  scope.get('/chart/plays', {
    schema: {
      tags: ['charts'],
      summary: `Plays and USD volume per bucket${summary}`,
      querystring: playsQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: playsPoint } }), ...protectedErrors },
    },
  }, async (request, reply) => series(request, reply, ['date', 'time', 'plays', 'volume_usd'], await store.queries.chartPlays(seriesOf(playsQuery.parse(request.query), clock.now()))));

  scope.get('/chart/daily-usd', {
    schema: {
      tags: ['charts'],
      summary: `USD volume per bucket${summary}`,
      querystring: chartQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: dailyUsdPoint } }), ...protectedErrors },
    },
  }, async (request, reply) => series(request, reply, ['date', 'time', 'volume_usd', 'plays'], await store.queries.chartDailyUsd(seriesOf(chartQuery.parse(request.query), clock.now()))));

  scope.get('/chart/dao-usd', {
    schema: {
      tags: ['charts'],
      summary: `DAO fee collection in USD per bucket${summary}`,
      querystring: chartQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: daoPoint } }), ...protectedErrors },
    },
  }, async (request, reply) => series(request, reply, ['date', 'time', 'dao_fees_usd'], await store.queries.chartDaoUsd(seriesOf(chartQuery.parse(request.query), clock.now()))));
}
