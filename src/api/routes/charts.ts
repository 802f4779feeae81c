import type { FastifyInstance } from 'fastify';
import { PARAMS, queryOf } from '../params.js';
import { count, dateString, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const playsPoint = obj({ date: dateString, plays: count('Games that day'), volume_usd: usd('Σ usd_wager that day') });
const dailyUsdPoint = obj({ date: dateString, volume_usd: usd('Σ usd_wager that day'), plays: count('Games that day') });
const daoPoint = obj({ date: dateString, dao_fees_usd: usd('Σ gamba (DAO) fees that day') });

const playsQuery = queryOf({ days: PARAMS.chartDays });
const chartQuery = queryOf({ days: PARAMS.chartDays, creator: PARAMS.creator });

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
  }, async (request) => ({ data: await store.queries.chartPlays({ ...playsQuery.parse(request.query), now: clock.now() }) }));

  scope.get('/chart/daily-usd', {
    schema: {
      tags: ['charts'],
      summary: 'Daily USD volume',
      querystring: chartQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: dailyUsdPoint } }), ...protectedErrors },
    },
  }, async (request) => ({ data: await store.queries.chartDailyUsd({ ...chartQuery.parse(request.query), now: clock.now() }) }));

  scope.get('/chart/dao-usd', {
    schema: {
      tags: ['charts'],
      summary: 'Daily DAO fee collection in USD',
      querystring: chartQuery.schema,
      response: { 200: obj({ data: { type: 'array', items: daoPoint } }), ...protectedErrors },
    },
  }, async (request) => ({ data: await store.queries.chartDaoUsd({ ...chartQuery.parse(request.query), now: clock.now() }) }));
}
