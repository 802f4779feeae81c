import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { exportFormat, oneShot, sendExport } from '../export.js';
import { PARAMS, queryOf } from '../params.js';
import { count, dateString, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const playsPoint = obj({ date: dateString, plays: count('Games that day'), volume_usd: usd('Σ usd_wager that day') });
const dailyUsdPoint = obj({ date: dateString, volume_usd: usd('Σ usd_wager that day'), plays: count('Games that day') });
const daoPoint = obj({ date: dateString, dao_fees_usd: usd('Σ gamba (DAO) fees that day') });

const playsQuery = queryOf({ days: PARAMS.chartDays, format: PARAMS.format });
const chartQuery = queryOf({ days: PARAMS.chartDays, creator: PARAMS.creator, format: PARAMS.format });

/** A series answer `{ data }`, or its export (docs/design.md §11) with `columns` when the request asks for one. */
async function series(request: FastifyRequest, reply: FastifyReply, columns: readonly string[], data: readonly object[]) {
  const format = exportFormat(request);
  return format === undefined ? { data } : sendExport(reply, format, columns, oneShot(data));
}

/** `/chart/plays`, `/chart/daily-usd`, `/chart/dao-usd`: dense daily UTC series (docs/spec.md §8.4: last 300 days). */
export function registerChartRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get('/chart/plays', {
    schema: {
      tags: ['charts'],
      summary: 'Daily plays and USD volume',
      querystring: playsQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: playsPoint } }), ...protectedErrors },
    },
  }, async (request, reply) => series(request, reply, ['date', 'plays', 'volume_usd'], await store.queries.chartPlays({ days: playsQuery.parse(request.query).days, now: clock.now() })));

  scope.get('/chart/daily-usd', {
    schema: {
      tags: ['charts'],
      summary: 'Daily USD volume',
      querystring: chartQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: dailyUsdPoint } }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const { format: _, ...q } = chartQuery.parse(request.query);
    return series(request, reply, ['date', 'volume_usd', 'plays'], await store.queries.chartDailyUsd({ ...q, now: clock.now() }));
  });

  scope.get('/chart/dao-usd', {
    schema: {
      tags: ['charts'],
      summary: 'Daily DAO fee collection in USD',
      querystring: chartQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: daoPoint } }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const { format: _, ...q } = chartQuery.parse(request.query);
    return series(request, reply, ['date', 'dao_fees_usd'], await store.queries.chartDaoUsd({ ...q, now: clock.now() }));
  });
}
