import type { FastifyInstance } from 'fastify';
import { address, chartDaysParam, count, dateString, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const playsPoint = obj({ date: dateString, plays: count('Games that day'), volume_usd: usd('Σ usd_wager that day') });
const dailyUsdPoint = obj({ date: dateString, volume_usd: usd('Σ usd_wager that day'), plays: count('Games that day') });
const daoPoint = obj({ date: dateString, dao_fees_usd: usd('Σ gamba (DAO) fees that day') });

interface ChartQs { days: number; creator?: string }

/** `/chart/plays`, `/chart/daily-usd`, `/chart/dao-usd`: dense daily UTC series (docs/spec.md §8.4: last 300 days). */
export function registerChartRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get<{ Querystring: ChartQs }>('/chart/plays', {
    schema: {
      tags: ['charts'],
      summary: 'Daily plays and USD volume',
      querystring: { type: 'object', properties: { days: chartDaysParam } },
      response: { 200: obj({ data: { type: 'array', items: playsPoint } }), ...protectedErrors },
    },
  }, async (request) => ({ data: await store.queries.chartPlays({ days: request.query.days, now: clock.now() }) }));

  scope.get<{ Querystring: ChartQs }>('/chart/daily-usd', {
    schema: {
      tags: ['charts'],
      summary: 'Daily USD volume',
      querystring: { type: 'object', properties: { days: chartDaysParam, creator: address('Only games of this creator') } },
      response: { 200: obj({ data: { type: 'array', items: dailyUsdPoint } }), ...protectedErrors },
    },
  }, async (request) => ({ data: await store.queries.chartDailyUsd({ days: request.query.days, creator: request.query.creator, now: clock.now() }) }));

  scope.get<{ Querystring: ChartQs }>('/chart/dao-usd', {
    schema: {
      tags: ['charts'],
      summary: 'Daily DAO fee collection in USD',
      querystring: { type: 'object', properties: { days: chartDaysParam, creator: address('Only games of this creator') } },
      response: { 200: obj({ data: { type: 'array', items: daoPoint } }), ...protectedErrors },
    },
  }, async (request) => ({ data: await store.queries.chartDaoUsd({ days: request.query.days, creator: request.query.creator, now: clock.now() }) }));
}
