/**
 * Leaderboard sort keys of one rollup row (GET /players `sortBy`, docs/spec.md §4; docs/design.md §4), as SQL
 * expressions over GameSums columns. The per-filter player rollups of migration 0004 are
 * indexed on exactly these expressions, and queries must ORDER BY the same text, or neither
 * SQLite nor PostgreSQL uses the index: changing one means a new migration.
 *
 * Token sums are u64 kept as 32-bit hi/lo halves (core/u64.ts); their order key recombines the
 * halves (exact numeric on PostgreSQL, a double on SQLite: only order is read from it, values
 * are always read exactly from the halves).
 */
export const SORT_KEYS = {
  usd_profit: 'usd_profit',
  usd_volume: 'usd_wager',
  token_volume: '(wager_hi * 4294967296.0 + wager_lo)',
  token_profit: '((payout_hi + jackpot_hi - wager_hi) * 4294967296.0 + (payout_lo + jackpot_lo - wager_lo))',
} as const;

export type LeaderboardSort = keyof typeof SORT_KEYS;
