/**
 * Every read operation of the API, asked over HTTP, compared with the brute-force oracle
 * (test/helpers/bruteforce.ts) — the end-to-end check of docs/indexer.md: counts, USD sums, token sums,
 * leaderboards and their order, charts and pool series. Differences are collected, not thrown
 * one by one, so a failure lists what diverged everywhere.
 */
import { expect } from 'vitest';
import type { Oracle } from './bruteforce.js';
import { diffJson } from './compare.js';
import { httpGetter, queryString } from './contract-world.js';

export { httpGetter };

export type Get = (path: string, query?: Record<string, string | number | boolean | undefined>) => Promise<{ status: number; body: any }>;

export interface Ids {
  creators: string[];
  users: string[];
  pools: string[];
  tokens: string[];
}

/** Ids worth querying, taken from the oracle's own games (most active first). */
export function idsFromOracle(oracle: Oracle): Ids {
  const rank = (xs: string[]) => {
    const n = new Map<string, number>();
    for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1);
    return [...n].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([x]) => x);
  };
  const creators = rank(oracle.games.map((g) => g.creator));
  const users = rank(oracle.games.map((g) => g.user));
  const pools = rank([...oracle.games.map((g) => g.pool), ...oracle.poolChangeEvents.map((c) => c.pool)]);
  const tokens = rank(oracle.games.map((g) => g.token));
  return {
    creators: [...creators.slice(0, 3), creators[creators.length - 1]!].filter(Boolean),
    users: [...users.slice(0, 3), users[users.length - 1]!].filter(Boolean),
    pools,
    tokens,
  };
}

/** Asks every operation (with a representative set of filters) and compares with the oracle. */
export async function expectApiMatchesOracle(get: Get, oracle: Oracle, ids: Ids = idsFromOracle(oracle)): Promise<number> {
  const diffs: string[] = [];
  let checks = 0;
  const check = async (path: string, query: Record<string, string | number | undefined>, expected: unknown, pick: (b: any) => unknown = (b) => b) => {
    const r = await get(path, query);
    checks++;
    const what = `${path}${queryString(query)}`;
    if (r.status !== 200) {
      diffs.push(`${what}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      return;
    }
    for (const d of diffJson(pick(r.body), expected).slice(0, 5)) diffs.push(`${what} ${d}`);
  };
  const paged = (b: any) => ({ results: b.results, total: b.total });
  const listed = (b: any) => ({ results: b.results });
  const startTime = oracle.nowMs - 10 * 86_400_000;

  await check('/stats', {}, oracle.stats());
  await check('/stats', { startTime }, oracle.stats({ startTime }));
  for (const creator of ids.creators) await check('/stats', { creator }, oracle.stats({ creator }));

  for (const sortBy of ['usd_profit', 'usd_volume'] as const) {
    await check('/players', { sortBy, limit: 1000 }, oracle.players({ sortBy, limit: 1000, offset: 0 }), paged);
    await check('/players', { sortBy, limit: 50, offset: 5, creator: ids.creators[0] }, oracle.players({ sortBy, limit: 50, offset: 5, creator: ids.creators[0] }), paged);
  }
  for (const token of ids.tokens) {
    for (const sortBy of ['token_volume', 'token_profit'] as const) {
      await check('/players', { sortBy, limit: 100, token }, oracle.players({ sortBy, limit: 100, offset: 0, token }), paged);
    }
  }
  await check('/players', { pool: ids.pools[0], startTime, limit: 100 }, oracle.players({ sortBy: 'usd_profit', limit: 100, offset: 0, pool: ids.pools[0], startTime }), paged);

  for (const user of ids.users) {
    for (const q of [{ user }, { user, token: ids.tokens[0] }, { user, creator: ids.creators[0] }]) {
      const expected = oracle.player(q);
      if (expected) await check('/player', q, expected);
      else {
        const r = await get('/player', q);
        checks++;
        if (r.status !== 404) diffs.push(`/player${queryString(q)}: expected 404, got ${r.status}`);
      }
    }
  }

  for (const [orderBy, sorting] of [['time', 'DESC'], ['time', 'ASC'], ['multiplier', 'DESC'], ['usd_profit', 'DESC'], ['usd_profit', 'ASC']] as const) {
    const q = { orderBy, sorting, page: 0, itemsPerPage: 200 };
    await check('/events/settledGames', q, oracle.settledGames(q), paged);
  }
  await check('/events/settledGames', { page: 3, itemsPerPage: 50 }, oracle.settledGames({ orderBy: 'time', sorting: 'DESC', page: 3, itemsPerPage: 50 }), paged);
  await check('/events/settledGames', { user: ids.users[0], itemsPerPage: 200 }, oracle.settledGames({ orderBy: 'time', sorting: 'DESC', page: 0, itemsPerPage: 200, user: ids.users[0] }), paged);
  await check('/events/settledGames', { onlyJackpots: 'true', itemsPerPage: 200 }, oracle.settledGames({ orderBy: 'time', sorting: 'DESC', page: 0, itemsPerPage: 200, onlyJackpots: true }), paged);

  for (const pool of ids.pools) {
    await check('/events/poolChanges', { pool, itemsPerPage: 200 }, oracle.poolChanges({ pool, page: 0, itemsPerPage: 200 }), paged);
    await check('/platforms-by-pool', { pool }, { results: oracle.platformsByPool(pool) });
    await check('/ratio', { pool }, { data: oracle.ratio(pool) });
    await check('/total', { pool }, oracle.total(pool));
    await check('/daily', { pool, days: 60 }, { data: oracle.daily({ pool, days: 60 }) });
  }

  await check('/platforms', {}, { results: oracle.platforms({ days: 7, sortBy: 'usd_volume', limit: 10 }) }, listed);
  await check('/platforms', { days: 365, sortBy: 'usd_revenue', limit: 100 }, { results: oracle.platforms({ days: 365, sortBy: 'usd_revenue', limit: 100 }) }, listed);
  await check('/tokens', {}, { results: oracle.tokens() }, listed);
  await check('/tokens', { creator: ids.creators[0] }, { results: oracle.tokens({ creator: ids.creators[0] }) }, listed);

  await check('/chart/plays', {}, { data: oracle.chartPlays({ days: 300 }) });
  await check('/chart/plays', { days: 7 }, { data: oracle.chartPlays({ days: 7 }) });
  for (const creator of [undefined, ids.creators[0]]) {
    await check('/chart/daily-usd', { creator, days: 45 }, { data: oracle.chartDailyUsd({ days: 45, creator }) });
    await check('/chart/dao-usd', { creator }, { data: oracle.chartDaoUsd({ days: 300, creator }) });
  }

  // Windows (docs/design.md §4 "Windows"): a closed window cut inside hours, series in other zones and intervals.
  const endTime = oracle.nowMs - 2 * 86_400_000 + 1_234_567;
  await check('/stats', { startTime, endTime }, oracle.stats({ startTime, endTime }));
  await check('/stats', { creator: ids.creators[0], startTime, endTime }, oracle.stats({ creator: ids.creators[0], startTime, endTime }));
  await check('/players', { startTime, endTime, limit: 1000 }, oracle.players({ sortBy: 'usd_profit', limit: 1000, offset: 0, startTime, endTime }), paged);
  await check('/platforms', { startTime, endTime, limit: 100 }, { results: oracle.platforms({ days: 7, sortBy: 'usd_volume', limit: 100, startTime, endTime }) }, listed);
  for (const [tz, interval] of [['America/New_York', 'hour'], ['Europe/Berlin', 'day'], ['Asia/Kolkata', 'week']] as const) {
    await check('/chart/plays', { tz, interval, startTime, endTime }, { data: oracle.chartPlays({ tz, interval, startTime, endTime }) });
    await check('/chart/dao-usd', { tz, interval, creator: ids.creators[0], days: interval === 'hour' ? 2 : 30 }, { data: oracle.chartDaoUsd({ tz, interval, creator: ids.creators[0], days: interval === 'hour' ? 2 : 30 }) });
    if (ids.pools[0] !== undefined) await check('/daily', { pool: ids.pools[0], tz, interval, startTime, endTime }, { data: oracle.daily({ pool: ids.pools[0], tz, interval, startTime, endTime }) });
  }

  const shown = diffs.slice(0, 25).join('\n');
  expect(diffs.length, `${diffs.length} differences between the API and the oracle:\n${shown}`).toBe(0);
  return checks;
}
