import type { DatasetMeta } from './dataset.js';

/**
 * The API operations the benchmark measures, each with representative filters (docs/spec.md §4).
 * `path(i)` gives the i-th URL: for the uncached run, URLs vary over users, creators, pools,
 * startTimes, pages or days so that consecutive requests differ; the cached run repeats `path(0)`.
 * Operations bound by `startTime` appear once per window class (`… short|medium|long`).
 */
export interface Operation {
  name: string;
  path(i: number): string;
  /**
   * False for streamed answers the response cache never keeps (exports): they get the uncached
   * latency run only — a cached-throughput run of them (2,000 warm-up requests, each streaming
   * every matching row) would measure the store, not the cache — and stay out of the soak mix.
   */
  cacheable?: boolean;
}

/** A class of window lengths (ms): `startTime` = newest block time − a length drawn uniformly in [minMs, maxMs]. */
export interface WindowClass {
  name: 'short' | 'medium' | 'long';
  minMs: number;
  maxMs: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Window lengths of the window-bound rows, reported separately: short (1 h – 7 d), medium
 * (7 – 90 d), long (90 d – the whole history). Each is clamped to the dataset's history, so on a
 * short dataset the longer classes all cover the whole history.
 */
export const WINDOW_CLASSES: readonly WindowClass[] = [
  { name: 'short', minMs: HOUR_MS, maxMs: 7 * DAY_MS },
  { name: 'medium', minMs: 7 * DAY_MS, maxMs: 90 * DAY_MS },
  { name: 'long', minMs: 90 * DAY_MS, maxMs: Number.POSITIVE_INFINITY },
];

/** Zones of the series rows: DST north and south of the equator, a half-hour offset. */
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Sydney'] as const;

const pick = <T>(xs: readonly T[], i: number): T => xs[((i % xs.length) + xs.length) % xs.length]!;

/** The measured operations over a dataset (its users, creators, pools, tokens and time span). */
export function operations(m: DatasetMeta): Operation[] {
  const endMs = m.lastBlockTime * 1000;
  const spanMs = Math.max(3_600_000, (m.lastBlockTime - m.firstBlockTime) * 1000);
  // Window lengths drawn uniformly within each class (WINDOW_CLASSES), clamped to the history; the
  // i-th draw uses the golden-ratio sequence, so any run of consecutive draws covers the class evenly.
  // Lengths are whole seconds plus a remainder, so windows start inside a day (partial-day rows).
  const startTime = (cls: WindowClass) => (i: number) => {
    const lo = Math.min(cls.minMs, spanMs);
    const hi = Math.min(cls.maxMs, spanMs);
    const f = (i * 0.618_033_988_749_895 + 0.5) % 1;
    return Math.round(endMs - (lo + f * (hi - lo)));
  };
  const windowed = (name: string, path: (start: (i: number) => number, i: number) => string): Operation[] =>
    WINDOW_CLASSES.map((cls) => ({ name: `${name} ${cls.name}`, path: (i: number) => path(startTime(cls), i) }));
  const closeAt = (start: number) => start + Math.ceil(((endMs - start) * 2) / 3) + 1234;
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
    { name: 'audit coverage', path: (i) => q('/audit/coverage', { side: i % 2 ? 'gap' : 'all', limit: 100 }) },
    { name: 'stats', path: () => '/stats' },
    ...windowed('stats creator+startTime', (start, i) => q('/stats', { creator: creator(i), startTime: start(i) })),
    { name: 'player', path: (i) => q('/player', { user: user(i) }) },
    { name: 'player token', path: (i) => q('/player', { user: user(i), token: token(i) }) },
    { name: 'players', path: () => '/players' },
    { name: 'players token_volume token', path: (i) => q('/players', { sortBy: 'token_volume', token: token(i) }) },
    // Closed windows (docs/design.md §4 "Windows"): the end two thirds of the way from the start to now, inside an hour.
    ...windowed('stats startTime+endTime', (start, i) => q('/stats', { startTime: start(i), endTime: closeAt(start(i)) })),
    ...windowed('players creator startTime+endTime', (start, i) => q('/players', { creator: creator(i), startTime: start(i), endTime: closeAt(start(i)) })),
    ...windowed('platforms startTime+endTime', (start, i) => q('/platforms', { startTime: start(i), endTime: closeAt(start(i)) })),
    ...windowed('players usd_volume startTime', (start, i) => q('/players', { sortBy: 'usd_volume', startTime: start(i) })),
    // The profit leaderboard of a closed window: no all-time bound (a window can hold more profit than all time).
    ...windowed('players usd_profit startTime+endTime', (start, i) => q('/players', { sortBy: 'usd_profit', startTime: start(i), endTime: closeAt(start(i)) })),
    { name: 'players creator+pool offset', path: (i) => q('/players', { creator: creator(i), pool: pool(i), offset: i % 50, limit: 50 }) },
    { name: 'settledGames', path: (i) => q('/events/settledGames', { page: i % 50 }) },
    { name: 'settledGames user', path: (i) => q('/events/settledGames', { user: user(i) }) },
    { name: 'settledGames onlyJackpots multiplier', path: (i) => q('/events/settledGames', { onlyJackpots: 'true', orderBy: 'multiplier', itemsPerPage: 1 + (i % 50) }) },
    { name: 'settledGames creator usd_profit ASC', path: (i) => q('/events/settledGames', { creator: creator(i), orderBy: 'usd_profit', sorting: 'ASC' }) },
    { name: 'settledGames pool+token multiplier', path: (i) => q('/events/settledGames', { pool: pool(i), token: m.poolToken[pool(i)], orderBy: 'multiplier', page: i % 20 }) },
    { name: 'poolChanges', path: (i) => q('/events/poolChanges', { pool: pool(i), itemsPerPage: 1 + (i % 100) }) },
    // Exports (docs/design.md §11): every matching row, so bounded filters (one player's games, a
    // player leaderboard walked by cursor pages); whole-history exports are not request-sized.
    { name: 'settledGames user ndjson export', path: (i) => q('/events/settledGames', { user: user(i), format: 'ndjson' }), cacheable: false },
    { name: 'players creator cursor page', path: (i) => q('/players', { creator: creator(i), limit: 100 }) },
    { name: 'platforms', path: (i) => q('/platforms', { days: 1 + (i % 365), sortBy: i % 2 ? 'usd_revenue' : 'usd_volume' }) },
    { name: 'platforms-by-pool', path: (i) => q('/platforms-by-pool', { pool: pool(i) }) },
    { name: 'tokens creator', path: (i) => q('/tokens', { creator: creator(i) }) },
    { name: 'ratio', path: (i) => q('/ratio', { pool: pool(i) }) },
    { name: 'total', path: (i) => q('/total', { pool: pool(i) }) },
    { name: 'daily', path: (i) => q('/daily', { pool: pool(i), days: 1 + (i % 300) }) },
    { name: 'daily tz week', path: (i) => q('/daily', { pool: pool(i), tz: pick(ZONES, i), interval: 'week' }) },
    { name: 'pools', path: (i) => q('/pools', { sortBy: pick(['tvl_usd', 'usd_volume', 'plays', 'pool_fees_usd', 'created_time'], i), limit: 1 + (i % 100) }) },
    ...windowed('pool startTime', (start, i) => q('/pool', { pool: pool(i), startTime: start(i) })),
    { name: 'chart/plays', path: () => '/chart/plays' },
    { name: 'chart/daily-usd creator', path: (i) => q('/chart/daily-usd', { creator: creator(i) }) },
    { name: 'chart/dao-usd', path: () => '/chart/dao-usd' },
    // LP returns and house edge (docs/design.md §10).
    ...windowed('house-edge game startTime', (start, i) => q('/house-edge', { groupBy: 'game', startTime: start(i) })),
    ...windowed('house-edge creator pool startTime', (start, i) => q('/house-edge', { groupBy: 'creator', pool: pool(i), startTime: start(i) })),
    ...windowed('house-edge player startTime', (start, i) => q('/house-edge', { groupBy: 'player', startTime: start(i), limit: 100 })),
    { name: 'house-edge game user', path: (i) => q('/house-edge', { groupBy: 'game', user: user(i) }) },
    ...windowed('house-edge/wins multiplier startTime', (start, i) => q('/house-edge/wins', { sortBy: 'multiplier', startTime: start(i) })),
    { name: 'house-edge/wins usd_profit creator', path: (i) => q('/house-edge/wins', { sortBy: 'usd_profit', creator: creator(i) }) },
    // Fairness audit (docs/design.md §14).
    { name: 'audit/fairness', path: () => '/audit/fairness' },
    ...windowed('audit/fairness creator startTime', (start, i) => q('/audit/fairness', { groupBy: 'creator', startTime: start(i) })),
    { name: 'audit/fairness player', path: (i) => q('/audit/fairness', { player: user(i) }) },
    { name: 'pool/lp-price day', path: (i) => q('/pool/lp-price', { pool: pool(i) }) },
    { name: 'pool/lp-price hour', path: (i) => q('/pool/lp-price', { pool: pool(i), interval: 'hour' }) },
    ...windowed('pool/returns startTime', (start, i) => q('/pool/returns', { pool: pool(i), startTime: start(i) })),
    { name: 'usage', path: () => '/usage' },
    { name: 'chart/plays tz hour', path: (i) => q('/chart/plays', { tz: pick(ZONES, i), interval: 'hour', days: 1 + (i % 30) }) },
    { name: 'chart/daily-usd tz creator', path: (i) => q('/chart/daily-usd', { tz: pick(ZONES, i), creator: creator(i) }) },
  ];
}
