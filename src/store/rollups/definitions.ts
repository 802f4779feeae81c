/**
 * Every derived table of the store, declared once as data (docs/architecture.md "Storage"): the
 * game rollups with their key columns, sum columns and player counters, the pool rollups, the
 * counters, and the leaderboard sort keys. The write path (rollups/accumulators.ts,
 * rollups/pool.ts), the rebuild (write/rebuild.ts), the read queries (queries/common.ts and
 * friends) and the tests read these lists; none of them spells a list out again.
 *
 * Migrations never import this module (docs/architecture.md convention 12): each keeps its own
 * frozen copy of the tables as they were when it was written.
 */

/**
 * What a sum column holds: `count` (games), `u64` (one 32-bit half of a u64 token amount in
 * smallest units, src/core/u64.ts: exact as a 64-bit integer sum), `usd` (a double, USD).
 */
export type SumKind = 'count' | 'u64' | 'usd';

/**
 * Additive sums of every game rollup (schema.ts GameSums), in column order, with their kind.
 * Token amounts are `<name>_hi` / `<name>_lo` pairs (core/u64.ts).
 */
export const GAME_SUMS = {
  plays: 'count',
  /** Games with a jackpot payout (is_jackpot = 1): /events/settledGames?onlyJackpots totals. */
  jackpots: 'count',
  wager_hi: 'u64',
  wager_lo: 'u64',
  payout_hi: 'u64',
  payout_lo: 'u64',
  jackpot_hi: 'u64',
  jackpot_lo: 'u64',
  usd_wager: 'usd',
  usd_profit: 'usd',
  usd_creator_fee: 'usd',
  usd_gamba_fee: 'usd',
  usd_net: 'usd',
  /** Games won: payout > wager, jackpot aside (migration 0008; docs/design.md §10). */
  wins: 'count',
  /** Σ expected payout (games.expected_hi/lo: wager × mean(bet) / 10000, floored; migration 0008, docs/design.md §10). */
  expected_hi: 'u64',
  expected_lo: 'u64',
} as const;

/** Pool-side sums (schema.ts PoolSums, migration 0006): Σ poolFee halves, its USD, the house PnL in USD. */
export const POOL_SUMS = {
  pool_fee_hi: 'u64',
  pool_fee_lo: 'u64',
  usd_pool_fee: 'usd',
  usd_house_pnl: 'usd',
} as const;

// Every sum has a kind (checked here, not with `satisfies` on the objects: src/store/schema.ts
// derives its column types from them and test/store/migrations.test.ts reads schema.ts without lib files).
GAME_SUMS satisfies Record<string, SumKind>;
POOL_SUMS satisfies Record<string, SumKind>;

/** A column of GAME_SUMS. */
export type GameSumColumn = keyof typeof GAME_SUMS;
/** A column of POOL_SUMS. */
export type PoolSumColumn = keyof typeof POOL_SUMS;

/** The additive game sums, in column order. */
export const SUM_COLUMNS = Object.keys(GAME_SUMS) as GameSumColumn[];
/** The additive pool-side sums, in column order (kept by the rollups with `poolSums`). */
export const POOL_SUM_COLUMNS = Object.keys(POOL_SUMS) as PoolSumColumn[];

/**
 * Columns of every game rollup that merge by max or min instead of adding: the best win and the
 * worst loss in USD (a game contributes max(0, profit) and min(0, profit)), and the first and last
 * play time (ms). `ofGame` is the games column a single game contributes; `bound` 0 means
 * "clamped at 0" (greatest(0, x) for max, least(0, x) for min).
 */
export const EXTREMES = {
  max_usd_profit: { merge: 'max', ofGame: 'usd_profit', bound: 0, kind: 'usd' },
  min_usd_profit: { merge: 'min', ofGame: 'usd_profit', bound: 0, kind: 'usd' },
  first_ms: { merge: 'min', ofGame: 'time_ms', bound: null, kind: 'count' },
  last_ms: { merge: 'max', ofGame: 'time_ms', bound: null, kind: 'count' },
} as const;

/** A column of EXTREMES. */
export type ExtremeColumn = keyof typeof EXTREMES;
/** The max/min columns, in column order (after the sums). */
export const EXTREME_COLUMNS = Object.keys(EXTREMES) as ExtremeColumn[];

/** Every value column of a game rollup: the sums, then the extremes (schema.ts GameSums). */
export const GAME_ROLLUP_COLUMNS: readonly (GameSumColumn | ExtremeColumn)[] = [...SUM_COLUMNS, ...EXTREME_COLUMNS];

/**
 * What one raw `games` row contributes to each game sum, as an SQL expression over that row:
 * a windowed read adds the raw games of a partial day to rollup rows (queries/common.ts windowSource).
 */
export const GAME_SUM_OF_ROW: Record<GameSumColumn, string> = {
  ...(Object.fromEntries(SUM_COLUMNS.map((c) => [c, c])) as Record<GameSumColumn, string>),
  plays: '1',
  jackpots: 'is_jackpot',
  // payout > wager on the exact halves (both are u64: hi < 2^32, lo < 2^32).
  wins: '(case when payout_hi > wager_hi or (payout_hi = wager_hi and payout_lo > wager_lo) then 1 else 0 end)',
};

/**
 * Per-player counter of a per-player rollup (the `total` of /players and /stats players, read
 * without counting rows): a player's first row in the table adds 1 to the counter named
 * `players` (no `by`) or `players:<tag>:<by values joined by ':'>`.
 */
export interface PlayerCounterDef {
  tag: string;
  by: readonly string[];
}

/** One game rollup: key columns (its grain and conflict target), pool sums, player counter. */
export interface GameRollupDef {
  keys: readonly string[];
  /** Also keeps the POOL_SUMS (windows of GET /pool, migration 0006). */
  poolSums?: boolean;
  /** Per-player rollups only: the counter a new row increments. */
  players?: PlayerCounterDef;
}

/**
 * Every game rollup, in write and clear order (docs/architecture.md "Storage" lists what each serves).
 * `block` is the 32-day block of the day (BLOCK_DAYS), `seg` its 8-day segment (SEG_DAYS); `hour_ms` and `quarter_ms` the start of the
 * game's UTC hour and quarter hour (Unix ms; the hour and quarter-hour rollups of migrations 0010
 * and 0020 serve hour intervals, day buckets in any time zone and the partial days of windows:
 * queries/series.ts).
 */
export const GAME_ROLLUPS = {
  ru_daily: { keys: ['day', 'creator', 'token', 'pool', 'player'] },
  ru_day: { keys: ['day'] },
  ru_day_c: { keys: ['day', 'creator'] },
  ru_pool_day: { keys: ['pool', 'day', 'token'], poolSums: true },
  ru_ctp: { keys: ['creator', 'token', 'pool'] },
  ru_user_ctp: { keys: ['player', 'creator', 'token', 'pool'], players: { tag: 'cp', by: ['creator', 'pool'] } },
  ru_user: { keys: ['player'], players: { tag: '', by: [] } },
  ru_user_c: { keys: ['player', 'creator'], players: { tag: 'c', by: ['creator'] } },
  ru_user_t: { keys: ['player', 'token'], players: { tag: 't', by: ['token'] } },
  ru_user_tp: { keys: ['player', 'token', 'pool'], players: { tag: 'p', by: ['pool'] } },
  ru_user_ct: { keys: ['player', 'creator', 'token'], players: { tag: 'ct', by: ['creator', 'token'] } },
  ru_day_user: { keys: ['day', 'player'] },
  ru_block_user: { keys: ['block', 'player'] },
  /** Migration 0008: GET /house-edge without a player (every groupBy but player; game kind as a key and a grouping). */
  ru_day_game: { keys: ['day', 'game_kind', 'creator', 'token', 'pool'] },
  ru_hour: { keys: ['hour_ms'] },
  ru_hour_c: { keys: ['creator', 'hour_ms'] },
  ru_hour_p: { keys: ['pool', 'hour_ms', 'token'], poolSums: true },
  /** Migration 0020: the hour rollups per UTC quarter hour (quarter_ms), so ranges cut at :15, :30 or :45 (half-hour and 45-minute zones) read no raw game. */
  ru_quarter: { keys: ['quarter_ms'] },
  ru_quarter_c: { keys: ['creator', 'quarter_ms'] },
  ru_quarter_p: { keys: ['pool', 'quarter_ms', 'token'], poolSums: true },
  /** Migration 0013: ru_daily per 32-day block (long windows with a creator, token, pool or player; queries/common.ts blockSpans). */
  ru_block_daily: { keys: ['block', 'creator', 'token', 'pool', 'player'] },
  /** Migration 0013: ru_day_game per 32-day block (long /house-edge windows without a player). */
  ru_block_game: { keys: ['block', 'game_kind', 'creator', 'token', 'pool'] },
  /** Migration 0013: per 32-day block × player × token (long /house-edge windows by player without a creator or pool). */
  ru_block_user_t: { keys: ['block', 'player', 'token'] },
  /** Migration 0017: per UTC day × creator × player (the top-N of `/players` windows with a creator). */
  ru_day_user_c: { keys: ['day', 'creator', 'player'] },
  /** Migration 0017: per 32-day block × creator × player. */
  ru_block_user_c: { keys: ['block', 'creator', 'player'] },
  /** Migration 0019: per UTC day × player × token (the days at a window's block edges for /house-edge by player). */
  ru_day_user_t: { keys: ['day', 'player', 'token'] },
  /** Migration 0021: all time per player × game kind × creator × token × pool (/house-edge by game of one player). */
  ru_user_game: { keys: ['player', 'game_kind', 'creator', 'token', 'pool'] },
  /** Migration 0022: per 32-day block, UTC day and UTC hour × game kind × token (/house-edge by game or token over a window, without a player, creator or pool). */
  ru_block_game_t: { keys: ['block', 'game_kind', 'token'] },
  ru_day_game_t: { keys: ['day', 'game_kind', 'token'] },
  ru_hour_game_t: { keys: ['hour_ms', 'game_kind', 'token'] },
  /**
   * Migration 0026: per 8-day segment (SEG_DAYS) × player, × creator × player and × player × token:
   * the days at a window's block edges read as whole segments and at most 7 days a side
   * (queries/common.ts segmentSpans) by the top-N of `/players` windows and `/house-edge` by player.
   */
  ru_seg_user: { keys: ['seg', 'player'] },
  ru_seg_user_c: { keys: ['seg', 'creator', 'player'] },
  ru_seg_user_t: { keys: ['seg', 'player', 'token'] },
  /**
   * Migration 0027: per UTC day × player × token × UTC hour (hour_ms), clustered by (day, player):
   * the whole hours of a window's cut days for a page's players — the rows of the `/players` top-N
   * page and `/house-edge` by player — so at most an hour of raw games is read at each end
   * (queries/common.ts cutDayParts).
   */
  ru_hour_user_t: { keys: ['day', 'player', 'token', 'hour_ms'] },
} as const satisfies Record<string, GameRollupDef>;

/** A game rollup table. */
export type RollupTable = keyof typeof GAME_ROLLUPS;

/** The game rollup tables, in write and clear order. */
export const ROLLUP_TABLES = Object.keys(GAME_ROLLUPS) as RollupTable[];

/** Key columns of each game rollup. */
export const ROLLUP_KEYS = Object.fromEntries(ROLLUP_TABLES.map((t) => [t, GAME_ROLLUPS[t].keys])) as unknown as Record<RollupTable, readonly string[]>;

/** The per-player rollups (those with a player counter): all-time leaderboards read their sort indexes. */
export const PLAYER_ROLLUP_TABLES = ROLLUP_TABLES.filter((t) => playerCounterOf(t) !== undefined);

/** The player counter definition of a rollup, if it keeps one. */
export function playerCounterOf(table: RollupTable): PlayerCounterDef | undefined {
  return (GAME_ROLLUPS[table] as GameRollupDef).players;
}

/** Whether a game rollup also keeps the POOL_SUMS. */
export function hasPoolSums(table: RollupTable): boolean {
  return (GAME_ROLLUPS[table] as GameRollupDef).poolSums === true;
}

/**
 * The name of the player counter a row of `table` with key `key` increments (ru_counter), e.g.
 * 'players', 'players:c:<creator>', 'players:ct:<creator>:<token>'; undefined for a rollup without one.
 */
export function playerCounterName(table: RollupTable, key: Readonly<Record<string, string | number>>): string | undefined {
  const def = playerCounterOf(table);
  if (!def) return undefined;
  return def.by.length === 0 ? 'players' : `players:${def.tag}:${def.by.map((c) => key[c]).join(':')}`;
}

/**
 * Days per block of ru_block_user: an unfiltered `startTime` window reads whole blocks after
 * the start day's block, then the start block's remaining days from ru_day_user, then the raw
 * games of the partial start day (queries/common.ts windowSource). Blocks are internal: day
 * numbers since the epoch divided by 32, not calendar months.
 */
export const BLOCK_DAYS = 32;

/** The group of every game in ru_active_day / ru_return_day / ru_return_block (migration 0016; a creator address is never empty). */
export const ALL_CREATORS = '';

/** ru_return_day.prev_day of a player's first active day in a group (migration 0016). */
export const NO_PREVIOUS_DAY = -1;

/** The 32-day block (BLOCK_DAYS) of a UTC day number. */
export const blockOf = (day: number | bigint): number => Math.floor(Number(day) / BLOCK_DAYS);

/**
 * Days per segment of ru_seg_user, ru_seg_user_c and ru_seg_user_t (migration 0026): a quarter of
 * a block, so a block's edge of up to 31 days is at most 3 segments and 7 days on each side
 * (queries/common.ts segmentSpans). Segments are day numbers since the epoch divided by 8; block b
 * holds segments 4b to 4b + 3.
 */
export const SEG_DAYS = 8;

/** The 8-day segment (SEG_DAYS) of a UTC day number. */
export const segOf = (day: number | bigint): number => Math.floor(Number(day) / SEG_DAYS);

/**
 * Sums of `ru_pool` (migration 0006, GET /pools and /pool), in column order, with their kind: plays and the
 * pool's token and USD figures. The same columns are what a /pool window sums from ru_pool_day.
 */
export const POOL_TOTALS = {
  plays: 'count',
  wager_hi: 'u64',
  wager_lo: 'u64',
  payout_hi: 'u64',
  payout_lo: 'u64',
  pool_fee_hi: 'u64',
  pool_fee_lo: 'u64',
  usd_wager: 'usd',
  usd_pool_fee: 'usd',
  usd_house_pnl: 'usd',
} as const;
POOL_TOTALS satisfies Partial<Record<GameSumColumn | PoolSumColumn, SumKind>>;

/** A column of POOL_TOTALS. */
export type PoolTotalSum = keyof typeof POOL_TOTALS;

/** The columns of POOL_TOTALS, in column order. */
export const POOL_TOTAL_SUMS = Object.keys(POOL_TOTALS) as PoolTotalSum[];

/** Volume columns (plays, Σ wager halves, Σ USD wager) read by the per-token and per-pool lists (ru_ctp, ru_pool_day). */
export const VOLUME_COLUMNS = ['plays', 'wager_hi', 'wager_lo', 'usd_wager'] as const;

/** Derived tables besides the game rollups: the pool rollups and the counters, with their key columns. */
export const OTHER_DERIVED_KEYS = {
  /** Pool × UTC hour: last liquidity and LP supply (GET /ratio). */
  ru_pool_hour: ['pool', 'hour_ms'],
  /** Pool, all time (POOL_TOTAL_SUMS, latest liquidity, TVL). */
  ru_pool: ['pool'],
  /** Named counters (docs/architecture.md "Storage"). */
  ru_counter: ['name'],
  /** Games per UTC day × creator × token × pool × player × fairness verdict × rule (migration 0011, docs/design.md "Fairness audit"). */
  ru_fair_day: ['day', 'creator', 'token', 'pool', 'player', 'fairness', 'rule'],
  /** ru_fair_day without the player (migration 0015): a window's counts overall or by creator or pool. */
  ru_fair_dg: ['day', 'creator', 'token', 'pool', 'fairness', 'rule'],
  /** Games all time per creator × token × pool × fairness verdict × rule (migration 0011). */
  ru_fair: ['creator', 'token', 'pool', 'fairness', 'rule'],
  /** ru_fair_dg per 32-day block (migration 0028): a window's whole blocks. */
  ru_fair_bg: ['block', 'creator', 'token', 'pool', 'fairness', 'rule'],
  /** ru_fair_dg per UTC hour (hour_ms, migration 0023): the whole hours of the days a window cuts. */
  ru_fair_hg: ['hour_ms', 'creator', 'token', 'pool', 'fairness', 'rule'],
  /** ru_fair per player (migration 0021): one player's counts all time. */
  ru_fair_user: ['player', 'creator', 'token', 'pool', 'fairness', 'rule'],
  /** A player's active UTC days per group, creator '' = every game, with the day's first and last game and the neighbouring active days (migrations 0016 and 0024, docs/design.md §7). */
  ru_active_day: ['creator', 'player', 'day'],
  /** Players per group × day × previous active day (migration 0016): distinct players of closed windows. */
  ru_return_day: ['creator', 'day', 'prev_day'],
  /** ru_return_day per 32-day block (migration 0016). */
  ru_return_block: ['creator', 'block', 'prev_day'],
} as const;

/** Every derived table. */
export type DerivedTable = RollupTable | keyof typeof OTHER_DERIVED_KEYS;

/** Every derived table, in the order the rebuild clears them (tests compare them row by row). */
export const DERIVED_TABLES: readonly DerivedTable[] = [...ROLLUP_TABLES, ...(Object.keys(OTHER_DERIVED_KEYS) as (keyof typeof OTHER_DERIVED_KEYS)[])];

/** Key columns of every derived table (its primary key; the row order tests compare in). */
export const DERIVED_KEYS: Record<DerivedTable, readonly string[]> = { ...ROLLUP_KEYS, ...OTHER_DERIVED_KEYS };

/** USD (double) columns of the derived tables: sums and extremes of kind `usd`, and ru_pool's TVL. */
export const USD_COLUMNS: readonly string[] = [
  ...Object.entries({ ...GAME_SUMS, ...POOL_SUMS }).filter(([, k]) => k === 'usd').map(([c]) => c),
  ...EXTREME_COLUMNS.filter((c) => EXTREMES[c].kind === 'usd'),
  'tvl_usd',
];

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

/** A leaderboard `sortBy` value (GET /players, docs/spec.md §4). */
export type LeaderboardSort = keyof typeof SORT_KEYS;

/**
 * A sort key over grouped rows: SORT_KEYS[sort] with every sum column c replaced by sum(c), for
 * windows that group rollup rows per player (ORDER BY only; values are read exactly).
 */
export function aggregatedSortKey(sort: LeaderboardSort): string {
  return SORT_KEYS[sort].replace(/\b[a-z_]+\b/g, (c) => (c in GAME_SUMS ? `sum(${c})` : c));
}
