/**
 * Kysely table types. Column naming: `player` (not `user`, a reserved word in PostgreSQL),
 * `*_ms` = Unix ms, `block_time` = Unix s, `day` = UTC day number, `*_hi`/`*_lo` = 32-bit
 * halves of u64 token amounts (src/core/u64.ts) so SUM stays exact on both dialects.
 * Integer columns may come back as string (pg bigint) — readers convert with Number()/BigInt().
 */
import type { EXTREMES, GAME_SUMS, POOL_SUMS, POOL_TOTALS } from './rollups/definitions.js';

/** An integer column as the drivers return it (number, pg's string for bigint, or SQLite's safe-integer bigint). */
type Int = number | string | bigint;

/** `games`: one row per GameSettled, keyed by (signature, event_index); u64 amounts as decimal text plus hi/lo halves, USD values at the game's hour. */
export interface GamesTable {
  signature: string;
  event_index: number;
  slot: Int;
  block_time: Int;
  time_ms: Int;
  day: number;
  hour_ms: Int;
  player: string;
  creator: string;
  token: string;
  pool: string;
  wager: string;
  payout: string;
  jackpot: string;
  wager_hi: Int;
  wager_lo: Int;
  payout_hi: Int;
  payout_lo: Int;
  jackpot_hi: Int;
  jackpot_lo: Int;
  creator_fee: string;
  gamba_fee: string;
  pool_fee: string;
  jackpot_fee: string;
  multiplier_bps: number;
  is_jackpot: number;
  pool_liquidity: string;
  /** USD per smallest unit at the game's hour; null = un-priced (docs/design.md §6). */
  usd_per_unit: number | null;
  usd_wager: number;
  usd_profit: number;
  usd_creator_fee: number;
  usd_gamba_fee: number;
  usd_net: number;
  /** Remaining GameSettled fields as JSON (u64 as strings), kept so rollups can be rebuilt from raw. */
  data: string;
  /** Migration 0008 (docs/design.md §10): ⌊wager × Σbet / (10000 × bet.length)⌋ as decimal text (may exceed u64), and its 32-bit halves (hi may exceed 2^32). */
  expected_payout: string;
  expected_hi: Int;
  expected_lo: Int;
  /** Migration 0008: the game kind named by the metadata (`0:<gameId>:…` → gameId), else 'unknown' (store/edge.ts). */
  game_kind: string;
  /** Migration 0011 (docs/design.md "Fairness audit"): SHA-256 hex of the revealed rngSeed; null = not audited. */
  seed_hash: string | null;
  /** Migration 0011: the event's nextRngSeedHashed (the commitment to the player's next seed); null = not audited. */
  next_seed_hash: string | null;
  /** Migration 0011: the rules judged on the game alone: ok, no_bet, result_index, multiplier or payout; null = not audited. */
  fair_own: string | null;
  /** Migration 0011: verified, unverifiable or violation. */
  fairness: string;
  /** Migration 0011: the violated rule or the unverifiable reason; null when verified. */
  fairness_rule: string | null;
}

/** `ru_fair` (migration 0011): games all time per creator × token × pool × fairness × rule ('' when verified). */
export interface FairTable {
  creator: string;
  token: string;
  pool: string;
  fairness: string;
  rule: string;
  games: Int;
}

/** `ru_fair_day` (migration 0011): games per UTC day × creator × token × pool × player × fairness × rule ('' when verified). */
export interface FairDayTable {
  day: number;
  creator: string;
  token: string;
  pool: string;
  player: string;
  fairness: string;
  rule: string;
  games: Int;
}

/** `ru_fair_dg` (migration 0015): ru_fair_day without the player: games per UTC day × creator × token × pool × fairness × rule. */
export interface FairDayGroupTable extends FairTable {
  day: number;
}

/** `ru_fair_bg` (migration 0028): ru_fair_dg per 32-day block (day / 32): games per block × creator × token × pool × fairness × rule. */
export interface FairBlockGroupTable extends FairTable {
  block: number;
}

/** `ru_fair_hg` (migration 0023): ru_fair_dg per UTC hour: games per hour × creator × token × pool × fairness × rule. */
export interface FairHourGroupTable extends FairTable {
  hour_ms: Int;
}

/** `ru_fair_user` (migration 0021): ru_fair per player: games all time per player × creator × token × pool × fairness × rule. */
export interface FairUserTable extends FairTable {
  player: string;
}

/**
 * `ru_active_day` (migrations 0016 and 0024): the UTC days a player played in a group (creator '' =
 * every game, or one creator), with the day's first and last game of the player there (Unix ms)
 * and its previous (-1: none) and next (null: none) active day in the group.
 */
export interface ActiveDayTable {
  creator: string;
  player: string;
  day: number;
  first_ms: Int;
  last_ms: Int;
  prev_day: number;
  next_day: number | null;
}

/**
 * `ru_return_day` (migrations 0016 and 0024, docs/design.md §7 "Distinct players of a closed
 * window"): players of a group who played on `day` and whose previous active day in the group was
 * `prev_day` (-1: none); `players_cum` sums `players` over the group's rows of that day with
 * prev_day ≤ this one.
 */
export interface ReturnDayTable {
  creator: string;
  day: number;
  prev_day: number;
  players: Int;
  players_cum: Int;
}

/** `ru_return_block` (migrations 0016 and 0024): ru_return_day summed per 32-day block (block = day / 32), with the same running sum. */
export interface ReturnBlockTable {
  creator: string;
  block: number;
  prev_day: number;
  players: Int;
  players_cum: Int;
}

/** `pool_changes`: one row per PoolChange (deposit or withdrawal), keyed by (signature, event_index); amounts as u64 decimal text. */
export interface PoolChangesTable {
  signature: string;
  event_index: number;
  slot: Int;
  block_time: Int;
  time_ms: Int;
  hour_ms: Int;
  player: string;
  pool: string;
  token: string;
  action: string;
  amount: string;
  post_liquidity: string;
  lp_supply: string;
  usd_per_unit: number | null;
  usd_amount: number;
}

/** `pools`: every pool seen, its token, and its creation when a PoolCreated was indexed (null otherwise). */
export interface PoolsTable {
  pool: string;
  token: string;
  authority: string | null;
  created_signature: string | null;
  created_event_index: number | null;
  created_time_ms: Int | null;
}

/** `mints`: token decimals (docs/design.md §6). */
export interface MintsTable {
  mint: string;
  decimals: number;
}

/** `prices`: USD per whole token per (mint, UTC hour); never changed once stored (docs/design.md §6). `publish_time` in Unix s. */
export interface PricesTable {
  mint: string;
  hour_ms: Int;
  usd_price: number;
  source: string;
  publish_time: Int | null;
}

/** `signatures`: every processed transaction signature, failed ones included (`failed` 0/1). */
export interface SignaturesTable {
  signature: string;
  slot: Int;
  block_time: Int;
  failed: number;
  /** UTC day number of block_time (migration 0012; docs/design.md "Coverage and reconciliation"). */
  day: number;
  /** 0 = no event, 1 = stored events, 2 = failed (SIGNATURE_KIND, migration 0012). */
  kind: number;
}

/** `coverage_runs` (migration 0012): one row per `gamba-analytics verify` run; days are UTC day numbers, times Unix ms. */
export interface CoverageRunsTable {
  verified_at_ms: Int;
  since_day: number;
  until_day: number;
  from_slot: Int;
  to_slot: Int;
  days_verified: number;
  complete_since_day: number | null;
  complete_through_day: number | null;
  chain_signatures: Int;
  store_signatures: Int;
  gaps: Int;
  surpluses: Int;
  listed: Int;
  duration_ms: Int;
}

/** `coverage_days` (migration 0012): the latest verification's per-day signature counts, chain vs store. */
export interface CoverageDaysTable {
  day: number;
  chain_total: Int;
  chain_failed: Int;
  store_events: Int;
  store_empty: Int;
  store_failed: Int;
  gaps: Int;
  surpluses: Int;
  failed_mismatches: Int;
}

/** `coverage_diffs` (migration 0012): the latest verification's gaps (`side` 'gap') and surpluses ('surplus'), by day and signature. */
export interface CoverageDiffsTable {
  day: number;
  signature: string;
  slot: Int;
  side: string;
  failed: number;
}

/** `sync_state`: checkpoints and skip counters, by key. */
export interface SyncStateTable {
  key: string;
  value: string;
}

/** `api_keys`: API key records, SHA-256 hashes only; times in ms. */
export interface ApiKeysTable {
  id: string;
  name: string;
  tier: string;
  rpm: number;
  burst: number;
  key_hash: string;
  created_at: Int;
  expires_at: Int | null;
  revoked_at: Int | null;
  /** Comma-separated scopes (`read,sync,stream,export`; migration 0009: existing keys keep all). */
  scopes: string;
  /** 1 for a publishable (browser) key, else 0. */
  publishable: number;
  /** A publishable key's allowed origins, space-separated; null for secret keys. */
  origins: string | null;
}

/** A column's Kysely type by its kind (rollups/definitions.ts SumKind): USD is a double, the rest 64-bit integers. */
type ColumnOf<K> = K extends 'usd' ? number : Int;

/**
 * Sums shared by every game rollup: the columns of rollups/definitions.ts GAME_SUMS and
 * EXTREMES (plays, jackpots, u64 halves of wager / payout / jackpot, USD sums, best win and
 * worst loss in USD, first and last play in ms).
 */
export type GameSums = { [C in keyof typeof GAME_SUMS]: ColumnOf<(typeof GAME_SUMS)[C]> } & {
  [C in keyof typeof EXTREMES]: ColumnOf<(typeof EXTREMES)[C]['kind']>;
};

/** Per UTC day × creator × token × pool × player: windows (startTime, days) over players. */
export interface RuDailyTable extends GameSums {
  day: number;
  creator: string;
  token: string;
  pool: string;
  player: string;
}

/**
 * `ru_day_rev` (migration 0029): per UTC day number, how many write transactions changed its
 * rollups (only grows; a rebuild bumps it too). Readers stamp in-memory copies of a part's rows
 * with it (queries/part-vectors.ts).
 */
export interface RuDayRevTable {
  day: number;
  rev: number;
}

/** Per UTC day (migration 0004): /chart/plays and /chart/dao-usd without a creator. */
export interface RuDayTable extends GameSums {
  day: number;
}

/** Per UTC day × creator (migration 0004): charts of a creator, windowed sums of /stats and /platforms. */
export interface RuDayCTable extends GameSums {
  day: number;
  creator: string;
}

/** Per pool × UTC day (migration 0004; token is the pool's): /daily, windows of /pool. */
export interface RuPoolDayTable extends GameSums, PoolSums {
  pool: string;
  day: number;
  token: string;
}

/**
 * Pool-side sums of games (migration 0006; rollups/definitions.ts POOL_SUMS): Σ poolFee as u64
 * halves, Σ poolFee × p (USD), and Σ (wager − payout) × p (USD): the pool's realized result,
 * jackpots excluded (docs/design.md §3).
 */
export type PoolSums = { [C in keyof typeof POOL_SUMS]: ColumnOf<(typeof POOL_SUMS)[C]> };

/** ru_pool's sums (rollups/definitions.ts POOL_TOTAL_SUMS), typed as in the game rollups. */
type PoolTotals = { [C in keyof typeof POOL_TOTALS]: ColumnOf<(typeof POOL_TOTALS)[C]> };

/**
 * One row per pool, all time (migration 0006): GET /pools and GET /pool. Game sums, the latest
 * liquidity and LP supply (with the order key of the event that reported each), creation, the
 * latest event's time and the TVL at the token's latest stored price (src/store/rollups/pool.ts).
 */
export interface RuPoolTable extends PoolTotals {
  pool: string;
  token: string;
  authority: string | null;
  /** PoolCreated block time, ms; −1 when not indexed. */
  created_ms: Int;
  liq_key: string | null;
  /** Latest GameSettled.poolLiquidity or PoolChange.postLiquidity (u64 text); null before any. */
  liquidity: string | null;
  lp_key: string | null;
  /** Latest PoolChange.lpSupply (u64 text); null before any. */
  lp_supply: string | null;
  /** Time of the pool's latest event (game, pool change or creation), ms. */
  last_ms: Int;
  /** liquidity × the token's latest stored USD price per smallest unit; 0 without one. */
  tvl_usd: number;
}

/** Per UTC hour (migration 0010; hour_ms = start of the hour, Unix ms): hour intervals and tz day buckets of charts without a creator, /stats windows. */
export interface RuHourTable extends GameSums {
  hour_ms: Int;
}

/** Per creator × UTC hour (migration 0010): charts of a creator, /stats and /platforms windows. */
export interface RuHourCTable extends GameSums {
  creator: string;
  hour_ms: Int;
}

/** Per pool × UTC hour (migration 0010; token is the pool's), with the pool sums: /daily hour intervals, tz buckets and window edges. */
export interface RuHourPTable extends GameSums, PoolSums {
  pool: string;
  hour_ms: Int;
  token: string;
}

/** Per UTC quarter hour (migration 0020; quarter_ms = start of the quarter hour, Unix ms): ranges cut at :15, :30, :45 without a creator. */
export interface RuQuarterTable extends GameSums {
  quarter_ms: Int;
}

/** Per creator × UTC quarter hour (migration 0020). */
export interface RuQuarterCTable extends GameSums {
  creator: string;
  quarter_ms: Int;
}

/** Per pool × UTC quarter hour (migration 0020; token is the pool's), with the pool sums. */
export interface RuQuarterPTable extends GameSums, PoolSums {
  pool: string;
  quarter_ms: Int;
  token: string;
}

/** Per UTC day × player and per 32-day block × player (migration 0004): unfiltered windowed leaderboards. */
export interface RuDayUserTable extends GameSums {
  day: number;
  player: string;
}
/** Per 32-day block (rollups/definitions.ts BLOCK_DAYS) × player (migration 0004): unfiltered windowed leaderboards. */
export interface RuBlockUserTable extends GameSums {
  block: number;
  player: string;
}

/** Per 32-day block × creator × token × pool × player (migration 0013): the block grain of ru_daily, for long filtered windows. */
export interface RuBlockDailyTable extends GameSums {
  block: number;
  creator: string;
  token: string;
  pool: string;
  player: string;
}
/** Per 32-day block × game kind × creator × token × pool (migration 0013): the block grain of ru_day_game, for long /house-edge windows. */
export interface RuBlockGameTable extends GameSums {
  block: number;
  game_kind: string;
  creator: string;
  token: string;
  pool: string;
}

/** Per 32-day block × player × token (migration 0013): long /house-edge windows grouped by or filtered on a player, without a creator or pool. */
export interface RuBlockUserTTable extends GameSums {
  block: number;
  player: string;
  token: string;
}

/** Per UTC day × player × token (migration 0019): the days at a window's block edges for /house-edge by player. */
export interface RuDayUserTTable extends RuDayUserTable {
  token: string;
}

/** Per UTC day × creator × player (migration 0017): lists of the top-N of `/players` windows with a creator. */
export interface RuDayUserCTable extends RuDayUserTable {
  creator: string;
}

/** Per 32-day block × creator × player (migration 0017). */
export interface RuBlockUserCTable extends RuBlockUserTable {
  creator: string;
}

/** Per 8-day segment (rollups/definitions.ts SEG_DAYS) × player (migration 0026): the block edges of windowed leaderboards. */
export interface RuSegUserTable extends GameSums {
  seg: number;
  player: string;
}

/** Per 8-day segment × creator × player (migration 0026). */
export interface RuSegUserCTable extends RuSegUserTable {
  creator: string;
}

/** Per 8-day segment × player × token (migration 0026): the block edges of /house-edge by player. */
export interface RuSegUserTTable extends RuSegUserTable {
  token: string;
}

/** Per UTC day × player × token × UTC hour (migration 0027): the whole hours of a window's cut days for a page's players. */
export interface RuHourUserTTable extends RuDayUserTTable {
  /** Start of the UTC hour, Unix ms. */
  hour_ms: Int;
}

/**
 * All-time per player × creator (migration 0004): /players with `creator`. Like ru_user_t,
 * ru_user_tp and ru_user_ct (one per filter shape), indexed on every allowed sort key
 * (rollups/definitions.ts SORT_KEYS).
 */
export interface RuUserCTable extends GameSums {
  player: string;
  creator: string;
}
/** All-time per player × token (migration 0004): /players with `token`. */
export interface RuUserTTable extends GameSums {
  player: string;
  token: string;
}
/** All-time per player × token × pool (migration 0004): /players with `pool` (± `token`). */
export interface RuUserTpTable extends GameSums {
  player: string;
  token: string;
  pool: string;
}
/** All-time per player × creator × token (migration 0004): /players with `creator` + `token`. */
export interface RuUserCtTable extends GameSums {
  player: string;
  creator: string;
  token: string;
}

/** All-time per creator × token × pool: /tokens, /total, /platforms-by-pool, /stats sums. */
export interface RuCtpTable extends GameSums {
  creator: string;
  token: string;
  pool: string;
}

/**
 * All-time per player × creator × token × pool (migration 0002): /player, all-time filtered
 * leaderboards (creator, token, pool and their combinations), settledGames totals with a user.
 */
export interface RuUserCtpTable extends GameSums {
  player: string;
  creator: string;
  token: string;
  pool: string;
}

/** All time per player × game kind × creator × token × pool (migration 0021): GET /house-edge?groupBy=game of one player. */
export interface RuUserGameTable extends GameSums {
  player: string;
  game_kind: string;
  creator: string;
  token: string;
  pool: string;
}

/** Per 32-day block × game kind × token (migration 0022): /house-edge by game or token over a window, whole blocks. */
export interface RuBlockGameTTable extends GameSums {
  block: number;
  game_kind: string;
  token: string;
}

/** Per UTC day × game kind × token (migration 0022): the days at a window's block edges. */
export interface RuDayGameTTable extends GameSums {
  day: number;
  game_kind: string;
  token: string;
}

/** Per UTC hour × game kind × token (migration 0022): the whole hours of the days a window cuts. */
export interface RuHourGameTTable extends GameSums {
  hour_ms: Int;
  game_kind: string;
  token: string;
}

/** Per UTC day × game kind × creator × token × pool (migration 0008): GET /house-edge without a player. */
export interface RuDayGameTable extends GameSums {
  day: number;
  game_kind: string;
  creator: string;
  token: string;
  pool: string;
}

/** Named counters kept by the write path (rollups/accumulators.ts CounterAccumulator). */
export interface RuCounterTable {
  name: string;
  n: Int;
}

/** All-time per player: the unfiltered leaderboard and player counts. */
export interface RuUserTable extends GameSums {
  player: string;
}

/** Per pool × UTC hour: the last liquidity and LP supply seen in that hour (/ratio). */
export interface RuPoolHourTable {
  pool: string;
  hour_ms: Int;
  /** Sortable chain-order key of the event that set `liquidity` (src/store/order-key.ts). */
  liq_key: string;
  liquidity: string;
  lp_key: string | null;
  lp_supply: string | null;
}

/** Every table of the store, as Kysely sees it (test/store/migrations.test.ts checks it against the migrated database). */
export interface Database {
  games: GamesTable;
  ru_fair_day: FairDayTable;
  ru_fair_dg: FairDayGroupTable;
  ru_fair_bg: FairBlockGroupTable;
  ru_fair_user: FairUserTable;
  ru_fair_hg: FairHourGroupTable;
  ru_fair: FairTable;
  ru_active_day: ActiveDayTable;
  ru_return_day: ReturnDayTable;
  ru_return_block: ReturnBlockTable;
  pool_changes: PoolChangesTable;
  pools: PoolsTable;
  mints: MintsTable;
  prices: PricesTable;
  signatures: SignaturesTable;
  coverage_runs: CoverageRunsTable;
  coverage_days: CoverageDaysTable;
  coverage_diffs: CoverageDiffsTable;
  sync_state: SyncStateTable;
  api_keys: ApiKeysTable;
  ru_daily: RuDailyTable;
  ru_day: RuDayTable;
  ru_day_rev: RuDayRevTable;
  ru_day_c: RuDayCTable;
  ru_pool_day: RuPoolDayTable;
  ru_user_c: RuUserCTable;
  ru_user_t: RuUserTTable;
  ru_user_tp: RuUserTpTable;
  ru_user_ct: RuUserCtTable;
  ru_day_user: RuDayUserTable;
  ru_block_user: RuBlockUserTable;
  ru_ctp: RuCtpTable;
  ru_user_ctp: RuUserCtpTable;
  ru_counter: RuCounterTable;
  ru_user: RuUserTable;
  ru_pool_hour: RuPoolHourTable;
  ru_pool: RuPoolTable;
  ru_day_game: RuDayGameTable;
  ru_hour: RuHourTable;
  ru_hour_c: RuHourCTable;
  ru_hour_p: RuHourPTable;
  ru_quarter: RuQuarterTable;
  ru_quarter_c: RuQuarterCTable;
  ru_quarter_p: RuQuarterPTable;
  ru_block_daily: RuBlockDailyTable;
  ru_block_game: RuBlockGameTable;
  ru_block_user_t: RuBlockUserTTable;
  ru_day_user_c: RuDayUserCTable;
  ru_block_user_c: RuBlockUserCTable;
  ru_day_user_t: RuDayUserTTable;
  ru_seg_user: RuSegUserTable;
  ru_seg_user_c: RuSegUserCTable;
  ru_seg_user_t: RuSegUserTTable;
  ru_hour_user_t: RuHourUserTTable;
  ru_user_game: RuUserGameTable;
  ru_block_game_t: RuBlockGameTTable;
  ru_day_game_t: RuDayGameTTable;
  ru_hour_game_t: RuHourGameTTable;
}
