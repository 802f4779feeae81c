import type { DatasetMeta } from './dataset.js';

/**
 * The API operations the benchmark measures, each with representative filters (docs/spec.md §4).
 * `path(i)` gives the i-th URL: for the uncached run, URLs vary over users, creators, pools,
 * startTimes, pages or days so that consecutive requests differ; the cached run repeats `path(0)`.
 */
export interface Operation {
  name: string;
  path(i: number): string;
}

const pick = <T>(xs: readonly T[], i: number): T => xs[((i % xs.length) + xs.length) % xs.length]!;

export function operations(m: DatasetMeta): Operation[] {
  const endMs = m.lastBlockTime * 1000;
  const spanMs = Math.max(3_600_000, (m.lastBlockTime - m.firstBlockTime) * 1000);
  // startTimes spread over the whole history, at odd seconds (inside a day: partial-day rows).
  const startTime = (i: number) => endMs - ((i * 7_919_000 + 86_400_000) % spanMs);
  const user = (i: number) => pick(m.users, i * 7 + 3);
  const creator = (i: number) => pick(m.creators, i);
  const pool = (i: number) => pick(m.pools, i);
  const token = (i: number) => pick(m.tokens, i);
  const q = (path: string, params: Record<string, string | number | undefined>) => {
    const s = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) s.set(k, String(v));
    const qs = s.toString();
    return qs ? `${path}?${qs}` : path;
  };
  return [
    { name: 'status', path: () => '/status' },
    { name: 'sync-status', path: () => '/sync/status' },
    { name: 'stats', path: () => '/stats' },
    { name: 'stats creator+startTime', path: (i) => q('/stats', { creator: creator(i), startTime: startTime(i) }) },
    { name: 'player', path: (i) => q('/player', { user: user(i) }) },
    { name: 'player token', path: (i) => q('/player', { user: user(i), token: token(i) }) },
    { name: 'players', path: () => '/players' },
    { name: 'players token_volume token', path: (i) => q('/players', { sortBy: 'token_volume', token: token(i) }) },
    { name: 'players usd_volume startTime', path: (i) => q('/players', { sortBy: 'usd_volume', startTime: startTime(i) }) },
    { name: 'players creator+pool offset', path: (i) => q('/players', { creator: creator(i), pool: pool(i), offset: i % 50, limit: 50 }) },
    { name: 'settledGames', path: (i) => q('/events/settledGames', { page: i % 50 }) },
    { name: 'settledGames user', path: (i) => q('/events/settledGames', { user: user(i) }) },
    { name: 'settledGames onlyJackpots multiplier', path: (i) => q('/events/settledGames', { onlyJackpots: 'true', orderBy: 'multiplier', itemsPerPage: 1 + (i % 50) }) },
    { name: 'settledGames creator usd_profit ASC', path: (i) => q('/events/settledGames', { creator: creator(i), orderBy: 'usd_profit', sorting: 'ASC' }) },
    { name: 'settledGames pool+token multiplier', path: (i) => q('/events/settledGames', { pool: pool(i), token: m.poolToken[pool(i)], orderBy: 'multiplier', page: i % 20 }) },
    { name: 'poolChanges', path: (i) => q('/events/poolChanges', { pool: pool(i), itemsPerPage: 1 + (i % 100) }) },
    { name: 'platforms', path: (i) => q('/platforms', { days: 1 + (i % 365), sortBy: i % 2 ? 'usd_revenue' : 'usd_volume' }) },
    { name: 'platforms-by-pool', path: (i) => q('/platforms-by-pool', { pool: pool(i) }) },
    { name: 'tokens creator', path: (i) => q('/tokens', { creator: creator(i) }) },
    { name: 'ratio', path: (i) => q('/ratio', { pool: pool(i) }) },
    { name: 'total', path: (i) => q('/total', { pool: pool(i) }) },
    { name: 'daily', path: (i) => q('/daily', { pool: pool(i), days: 1 + (i % 365) }) },
    { name: 'pools', path: (i) => q('/pools', { sortBy: pick(['tvl_usd', 'usd_volume', 'plays', 'pool_fees_usd', 'created_time'], i), limit: 1 + (i % 100) }) },
    { name: 'pool startTime', path: (i) => q('/pool', { pool: pool(i), startTime: startTime(i) }) },
    { name: 'chart/plays', path: () => '/chart/plays' },
    { name: 'chart/daily-usd creator', path: (i) => q('/chart/daily-usd', { creator: creator(i) }) },
    { name: 'chart/dao-usd', path: () => '/chart/dao-usd' },
  ];
}
