import type { BiggestWin, BiggestWinsQuery, HouseEdgeQuery, HouseEdgeResult, LpPricePoint, LpPriceQuery, PoolReturns, PoolReturnsQuery } from './types-house.js';
import type { LocatedEvent } from '../protocol/index.js';
import type { CoverageReport, CoverageReportQuery, CoverageResult, CoverageRun, CoverageSignaturesQuery, StoredSignature } from './types-coverage.js';

/**
 * The store's public contract: one write path (the indexer), many readers (the API).
 * Raw events are the truth; rollups are derived and rebuildable (docs/design.md §7).
 *
 * Units everywhere: `*Ms`/`time`-like fields are Unix **milliseconds**; `blockTime` is Unix
 * **seconds** (RPC's unit); token amounts are `bigint` in the token's smallest unit; USD
 * amounts are JS numbers. A game with no known price contributes 0 USD until re-priced (docs/design.md §6).
 */

// ───────────────────────────── write path ─────────────────────────────

/** A processed transaction signature (every one the indexer fetched, failed or not). */
export interface ProcessedSignature {
  signature: string;
  slot: number;
  /** Unix seconds, as getSignaturesForAddress/getTransaction report it. */
  blockTime: number;
  /** true when meta.err was non-null (no events). */
  failed: boolean;
}

/** One transaction of the write path (Store.writeBatch): events, the signatures they came from, checkpoints, skip counts. */
export interface WriteBatch {
  /** Decoded events; duplicates of stored (signature, eventIndex) are ignored. */
  events: LocatedEvent[];
  /** Signatures covered by this batch (for counts and dedupe). */
  signatures?: ProcessedSignature[];
  /** Sync-state entries (checkpoints) committed in the same transaction as the events. */
  state?: Record<string, string>;
  /** Decode skips to add to the counters reported by /sync/status, by reason. */
  skipped?: Record<string, number>;
}

/** Rows a writeBatch actually inserted (replays insert nothing: docs/architecture.md "Idempotency"). */
export interface WriteResult {
  gamesInserted: number;
  poolChangesInserted: number;
  poolsCreatedInserted: number;
  /** Events ignored because their (signature, eventIndex) was already stored. */
  duplicates: number;
}

/** A token mint and its decimals (smallest units per whole token = 10^decimals; docs/design.md §6). */
export interface MintInfo {
  mint: string;
  decimals: number;
}

/** USD price of one whole token for one UTC hour (docs/design.md §6). Stored prices never change. */
export interface HourlyPrice {
  mint: string;
  /** Start of the UTC hour, ms. */
  hourMs: number;
  /** USD per whole token (not per smallest unit). */
  usdPrice: number;
  source: string;
  /** Publish time of the price at its source, Unix seconds (null when unknown). */
  publishTime: number | null;
}

// ───────────────────────────── API keys ─────────────────────────────

/** API key tier: sets the default rate limits of a key (docs/design.md §4); `publishable` is the browser keys' own lower tier. */
export type Tier = 'standard' | 'premium' | 'enterprise' | 'publishable';

/** What a key may do (docs/design.md §4 "Scopes and publishable keys"): read the analytics, trigger a sync, stream, export. */
export type Scope = 'read' | 'sync' | 'stream' | 'export';

/** A stored API key: only the SHA-256 hash of the key is kept (docs/design.md §4). */
export interface ApiKeyRecord {
  id: string;
  name: string;
  tier: Tier;
  /** Requests per minute (token-bucket refill rate). */
  rpm: number;
  /** Bucket capacity. */
  burst: number;
  /** Lowercase hex SHA-256 of the key. */
  keyHash: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  /** The scopes the key holds (keys made before migration 0009 hold all four). */
  scopes: readonly Scope[];
  /** A browser key: read scope only, accepted only from `origins` (docs/design.md §4). */
  publishable: boolean;
  /** Allowed origins of a publishable key (`https://casino.example`, as URL.origin gives them); empty for secret keys. */
  origins: readonly string[];
}

/** Storage of API key records (hashes only); `revoke` times are Unix ms. Errors: AppError STORE_UNAVAILABLE. */
export interface ApiKeyStore {
  insert(record: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked at `atMs`; false when no such id (or already revoked). */
  revoke(id: string, atMs: number): Promise<boolean>;
  count(): Promise<number>;
}

// ───────────────────────────── read queries ─────────────────────────────

/** Direction of an ordered listing (`sorting` of /events/settledGames). */
export type SortDirection = 'ASC' | 'DESC';

/** One value of a keyset position: a number (ms, bps, USD, event index) or a string (signature, pool address). */
export type KeyValue = number | string;

/**
 * Where a keyset-paged listing resumes (docs/design.md §4 cursor extension): the key values of the
 * last row served, in the listing's key order (src/store/queries/keyset.ts). The API encodes and
 * decodes it as the opaque `cursor` (src/api/cursor.ts); the store never sees cursor text.
 */
export interface KeysetPosition {
  values: KeyValue[];
}

/** Paging of event listings: `page`×`itemsPerPage` as the spec says, or a keyset position `after` (docs/design.md §4). */
export interface Paging {
  itemsPerPage: number;
  page: number;
  /** When set, `page` is ignored and the listing continues after this row key. */
  after?: KeysetPosition;
}

/** GET /stats: optional creator filter and window start (Unix ms); `now` for active_players. */
export interface StatsQuery {
  creator?: string;
  /** Keep games with time ≥ startTime (ms). */
  startTime?: number | undefined;
  /** Keep games with time < endTime (ms). */
  endTime?: number | undefined;
  /** Wall clock (ms) for active_players: games in [now − 60 min, now]. */
  now: number;
}

/** GET /stats figures (docs/spec.md §2, docs/design.md §3): counts, USD sums, `first_bet_time` Unix ms (0 when none). */
export interface StatsResult {
  players: number;
  usd_volume: number;
  plays: number;
  creators: number;
  revenue_usd: number;
  player_net_profit_usd: number;
  active_players: number;
  first_bet_time: number;
}

/** GET /player: one player (address), optionally one creator and/or token. */
export interface PlayerQuery {
  user: string;
  creator?: string;
  token?: string;
}

/** GET /player figures (docs/spec.md §2): USD sums and extremes, the most-played token, first/last game Unix ms. */
export interface PlayerResult {
  user: string;
  total_plays: number;
  total_volume_usd: number;
  total_profit_usd: number;
  biggest_win_usd: number;
  biggest_loss_usd: number;
  favorite_token: string;
  first_play: number;
  last_play: number;
}

/** GET /players orderings, all descending; `token_*` need one token (a `token` or `pool` filter). */
export type PlayersSortBy = 'usd_profit' | 'usd_volume' | 'token_profit' | 'token_volume';

/** GET /players: ordering, `limit` + `offset` paging, filters, optional window start (Unix ms). */
export interface PlayersQuery {
  sortBy: PlayersSortBy;
  limit: number;
  offset: number;
  creator?: string;
  token?: string;
  pool?: string;
  /** Keep games with time ≥ startTime (ms). */
  startTime?: number | undefined;
  /** Keep games with time < endTime (ms). */
  endTime?: number | undefined;
  /** Keyset position (key: the sort value as text, then the player; keyset.ts `keysetKinds('players')`); when set, `offset` is ignored. */
  after?: KeysetPosition;
}

/** One /players row: USD sums, token sums in the smallest unit (or null), last game Unix ms. */
export interface LeaderboardEntry {
  user: string;
  total_plays: number;
  usd_volume: number;
  usd_profit: number;
  /** null when the query spans more than one token (docs/design.md §4). */
  token_volume: bigint | null;
  token_profit: bigint | null;
  biggest_win_usd: number;
  last_play: number;
}

/** One /players page and the number of matching players. */
export interface PlayersResult {
  results: LeaderboardEntry[];
  total: number;
  /** Key of the page's last row when more rows follow (pass as `after`); null at the end. */
  next: KeysetPosition | null;
}

/** /events/settledGames ordering keys; ties broken by time, signature, event index (src/store/queries/keyset.ts). */
export type SettledGamesOrderBy = 'time' | 'multiplier' | 'usd_profit';

/** GET /events/settledGames: filters, ordering, and a page or keyset position. */
export interface SettledGamesQuery extends Paging {
  onlyJackpots: boolean;
  creator?: string;
  pool?: string;
  token?: string;
  user?: string;
  orderBy: SettledGamesOrderBy;
  sorting: SortDirection;
  /** Skip the rollup read of `total` (answered as 0): exports, whose pages never show it. */
  withoutTotal?: boolean;
}

/** One settled game (docs/spec.md §2): token amounts bigint in the smallest unit, USD numbers, `multiplier` = bps / 10000, `time` Unix ms. */
export interface SettledGame {
  signature: string;
  wager: bigint;
  payout: bigint;
  usd_wager: number;
  usd_profit: number;
  /** payout + jackpot − wager (may be negative). */
  profit: bigint;
  user: string;
  creator: string;
  token: string;
  /** The pool the game played against (additive to docs/spec.md §2's fields). */
  pool: string;
  jackpot: bigint;
  multiplier: number;
  time: number;
  /** Index of the event among its transaction's events: the keyset's last tie-breaker (src/store/queries/keyset.ts); not an API field. */
  event_index: number;
  /** The fairness verdict (docs/design.md "Fairness audit"): verified, unverifiable or violation. */
  fairness: string;
  /** The violated rule or the unverifiable reason; null when verified. */
  fairness_rule: string | null;
}

/** GET /audit/fairness groupings (docs/design.md "Fairness audit"). */
export type FairnessGroupBy = 'creator' | 'pool' | 'player';

/** GET /audit/fairness: filters, window (Unix ms, start inclusive, end exclusive), grouping and a violations page. */
export interface FairnessAuditQuery {
  creator?: string;
  pool?: string;
  token?: string;
  player?: string;
  startTime?: number;
  endTime?: number;
  groupBy?: FairnessGroupBy;
  /** Violations per page. */
  limit: number;
  /** Keyset position (time_ms, signature, event_index) of the previous page's last violation. */
  after?: KeysetPosition;
}

/** Game counts per fairness verdict, per violated rule and per unverifiable reason (docs/design.md "Fairness audit"). */
export interface FairnessCounts {
  games: number;
  verified: number;
  unverifiable: number;
  violation: number;
  violations: { commitment: number; result_index: number; multiplier: number; payout: number };
  unverifiableReasons: { first_seen: number; no_bet: number; not_audited: number };
}

/** One game judged a violation: its key, time (Unix ms), dimensions and the rule it breaks. */
export interface FairnessViolation {
  signature: string;
  event_index: number;
  time: number;
  user: string;
  creator: string;
  token: string;
  pool: string;
  rule: string;
}

/** GET /audit/fairness answer: counts, groups (null without groupBy; at most 100, most violations first), violations page. */
export interface FairnessAuditResult {
  counts: FairnessCounts;
  groups: { key: string; counts: FairnessCounts }[] | null;
  /** Number of groups before the cut to 100. */
  groupsTotal: number;
  violations: FairnessViolation[];
  next: KeysetPosition | null;
}

/** One page of an event listing. */
export interface Page<T> {
  results: T[];
  total: number;
  /** Key of the page's last row when more rows follow (pass as `after`); null at the end. */
  next: KeysetPosition | null;
}

/** GET /events/poolChanges: one pool, a page or keyset position. */
export interface PoolChangesQuery extends Paging {
  pool: string;
  /** Direction of (time, signature, event index): DESC (newest first, the default: /events/poolChanges) or ASC (the live stream, docs/design.md §11). */
  sorting?: SortDirection;
}

/** One deposit or withdrawal: amounts bigint in the pool token's smallest unit, `usd_amount` USD, `time` Unix ms. */
export interface PoolChangeRecord {
  signature: string;
  action: 'deposit' | 'withdraw';
  user: string;
  pool: string;
  token: string;
  amount: bigint;
  post_liquidity: bigint;
  lp_supply: bigint;
  usd_amount: number;
  time: number;
  /** Index of the event among its transaction's events: the keyset's last tie-breaker; not an API field. */
  event_index: number;
}

/** GET /platforms: top `limit` creators over the `days` × 24 h before `now` (Unix ms). */
export interface PlatformsQuery {
  limit: number;
  /** Rolling window of days × 24 h ending now (or at endTime), unless startTime is set. */
  days: number;
  /** Window start (ms, inclusive); replaces `days`. */
  startTime?: number | undefined;
  /** Window end (ms, exclusive); default open (now). */
  endTime?: number | undefined;
  sortBy: 'usd_volume' | 'usd_revenue';
  now: number;
  /** Keyset position: [sort value (USD), creator] of the last row served (keyset.ts `keysetKinds('platforms')`). */
  after?: KeysetPosition;
}

/** GET /tokens: optional creator, at most `limit` rows (all when absent), after a keyset position [usd_volume, token]. */
export interface TokensQuery {
  creator?: string;
  limit?: number;
  after?: KeysetPosition;
}

/** One /platforms row: USD sums, counts and the last game (Unix ms) in the window. */
export interface PlatformEntry {
  creator: string;
  usd_volume: number;
  usd_revenue: number;
  plays: number;
  unique_players: number;
  last_activity: number;
}

/** One /platforms-by-pool row: all-time sums of one creator on the pool (`volume` in the pool token's smallest unit). */
export interface PlatformByPoolEntry {
  creator: string;
  volume: bigint;
  usd_volume: number;
  plays: number;
}

/** One /tokens row: all-time plays and wager sums of a token (`volume` in its smallest unit). */
export interface TokenEntry {
  token: string;
  plays: number;
  volume: bigint;
  usd_volume: number;
  /** The mint's decimals (the `mints` table); null while the mint's account has not been read. */
  decimals: number | null;
}

/** One hourly /ratio point: liquidity and LP supply (smallest units) and their ratio (1 when lp_supply is 0). */
export interface RatioPoint {
  /** Start of the hour, ms. */
  time: number;
  pool_liquidity: bigint;
  lp_supply: bigint;
  ratio: number;
}

/** GET /total: all-time sums of one pool (`volume` in its token's smallest unit). */
export interface PoolTotal {
  pool: string;
  /** null when the pool has never been seen. */
  token: string | null;
  volume: bigint;
  usd_volume: number;
  plays: number;
}

/** GET /pools orderings (docs/design.md §4), all descending, ties by pool address ascending. */
export type PoolSortBy = 'tvl_usd' | 'usd_volume' | 'plays' | 'pool_fees_usd' | 'created_time';

/** GET /pools: optional token filter, ordering, page size and keyset position. */
export interface PoolsQuery {
  token?: string;
  sortBy: PoolSortBy;
  /** 1..100. */
  limit: number;
  /** `next` of the previous page (same sortBy). */
  after?: KeysetPosition;
}

/**
 * One pool (GET /pools, GET /pool; definitions in docs/design.md §3). Token amounts are bigint in
 * the pool token's smallest unit, USD amounts numbers, times Unix ms.
 */
export interface PoolEntry {
  pool: string;
  token: string;
  /** Pool authority from its PoolCreated (the System program for public pools); null when not indexed. */
  authority: string | null;
  /** PoolCreated block time, ms; null when not indexed. */
  created_time: number | null;
  /** Latest liquidity (the latest GameSettled.poolLiquidity or PoolChange.postLiquidity); 0 before any. */
  liquidity: bigint;
  /** Latest LP token supply (the latest PoolChange.lpSupply); null before any pool change. */
  lp_supply: bigint | null;
  /** liquidity / lp_supply (1 when lp_supply is 0); null when lp_supply is. */
  lp_price: number | null;
  /** liquidity × the token's latest stored USD price; 0 without one. */
  tvl_usd: number;
  plays: number;
  /** Σ wager. */
  volume: bigint;
  usd_volume: number;
  /** Σ poolFee. */
  pool_fees: bigint;
  pool_fees_usd: number;
  /** Σ wager − Σ payout (signed; jackpots excluded). */
  house_pnl: bigint;
  house_pnl_usd: number;
  /** Time of the pool's latest event (game, pool change or creation), ms. */
  last_activity: number;
}

/** One page of GET /pools. */
export interface PoolsResult {
  results: PoolEntry[];
  /** Key of the page's last pool when more follow (pass as `after`); null at the end. */
  next: KeysetPosition | null;
}

/** GET /pool: one pool and an optional window [startTime, endTime) of its game figures. */
export interface PoolQuery {
  pool: string;
  /** Window of the game figures (plays, volume, fees, PnL): time ≥ startTime (ms) … */
  startTime?: number;
  /** … and time < endTime (ms). Liquidity, LP and TVL figures are as of now. */
  endTime?: number;
}

/** One /daily point: a bucket (local date `YYYY-MM-DD` and start `time`) and its sums (`volume` in the smallest unit). */
export interface PoolDailyPoint {
  date: string;
  /** Nominal start of the bucket, Unix ms. */
  time: number;
  volume: bigint;
  volume_usd: number;
  plays: number;
}

/**
 * A series window (docs/design.md §4 "Windows"): by default the `days` dates ending today in `tz`
 * (today included); `startTime` (inclusive) / `endTime` (exclusive), Unix ms, set it instead;
 * one point per `interval` bucket in `tz` (core/zoned.ts seriesBuckets: throws AppError
 * INVALID_PARAMETER past MAX_SERIES_POINTS points or for an empty window).
 */
export interface SeriesQuery {
  /** Number of dates of the default window, ending today (today included). */
  days: number;
  startTime?: number | undefined;
  endTime?: number | undefined;
  /** IANA zone (canonical); default UTC. */
  tz?: string | undefined;
  /** Default day. */
  interval?: 'hour' | 'day' | 'week' | undefined;
  /** Wall clock, Unix ms. */
  now: number;
}

/** The /chart/* series (SeriesQuery), optionally one creator. */
export interface ChartQuery extends SeriesQuery {
  creator?: string | undefined;
}

/** The /daily series of one pool (SeriesQuery). */
export interface DailyQuery extends SeriesQuery {
  pool: string;
}

/** One /chart/plays or /chart/daily-usd point: a bucket (local date `YYYY-MM-DD`, start `time` in ms), its games and USD volume. */
export interface PlaysPoint {
  date: string;
  /** Nominal start of the bucket, Unix ms. */
  time: number;
  plays: number;
  volume_usd: number;
}

/** One /chart/dao-usd point: a bucket (local date `YYYY-MM-DD`, start `time` in ms) and the DAO (gamba) fees in USD. */
export interface DaoPoint {
  date: string;
  /** Nominal start of the bucket, Unix ms. */
  time: number;
  dao_fees_usd: number;
}

/** What the store's answers are built from: the newest stored event (game or pool change) in chain order, its slot and block time (Unix ms, whole seconds). */
export interface Freshness {
  slot: number;
  timeMs: number;
}

/** Counters behind /status and /sync/status: rollups and counters, never COUNT(*) over history (docs/design.md §7). */
export interface StoreCounts {
  totalSignatures: number;
  totalGames: number;
  totalPoolChanges: number;
  /** Σ usd_wager of all games. */
  totalVolumeUsd: number;
  unpricedGames: number;
  skipped: Record<string, number>;
  /** The newest stored event (game or pool change) in chain order; null on an empty store. `blockTime` in s. */
  latest: { signature: string; blockTime: number } | null;
}

/** The read queries the API runs (src/store/queries); each answer is plain data (structured-clone safe). */
export interface Queries {
  counts(): Promise<StoreCounts>;
  /** The newest stored event's slot and time (docs/design.md §5 "Freshness headers"); null on an empty store. */
  freshness(): Promise<Freshness | null>;
  stats(q: StatsQuery): Promise<StatsResult>;
  /** undefined when the user has no matching game (→ 404 PLAYER_NOT_FOUND). */
  player(q: PlayerQuery): Promise<PlayerResult | undefined>;
  players(q: PlayersQuery): Promise<PlayersResult>;
  /** Throws AppError INVALID_KEYSET when `after` does not match the ordering's key. */
  settledGames(q: SettledGamesQuery): Promise<Page<SettledGame>>;
  /** GET /audit/fairness; throws AppError INVALID_KEYSET when `after` does not match the violations key. */
  fairnessAudit(q: FairnessAuditQuery): Promise<FairnessAuditResult>;
  poolChanges(q: PoolChangesQuery): Promise<Page<PoolChangeRecord>>;
  platforms(q: PlatformsQuery): Promise<PlatformEntry[]>;
  /** Ordered by volume desc, then creator. */
  platformsByPool(pool: string): Promise<PlatformByPoolEntry[]>;
  /** Ordered by usd_volume desc, then token. */
  tokens(q: TokensQuery): Promise<TokenEntry[]>;
  /** Hourly points over [now − 30 d, now] (docs/design.md §4). */
  ratio(q: { pool: string; now: number }): Promise<RatioPoint[]>;
  total(pool: string): Promise<PoolTotal>;
  daily(q: DailyQuery): Promise<PoolDailyPoint[]>;
  /** Every pool, one page. Throws AppError INVALID_KEYSET when `after` does not match the key. */
  pools(q: PoolsQuery): Promise<PoolsResult>;
  /** One pool; undefined when never seen (→ 404 POOL_NOT_FOUND). */
  pool(q: PoolQuery): Promise<PoolEntry | undefined>;
  chartPlays(q: ChartQuery): Promise<PlaysPoint[]>;
  chartDailyUsd(q: ChartQuery): Promise<PlaysPoint[]>;
  chartDaoUsd(q: ChartQuery): Promise<DaoPoint[]>;
  /** GET /house-edge (docs/design.md §10). Throws AppError INVALID_KEYSET when `after` does not match houseEdgeKinds. */
  houseEdge(q: HouseEdgeQuery): Promise<HouseEdgeResult>;
  /** GET /house-edge/wins (docs/design.md §10). */
  biggestWins(q: BiggestWinsQuery): Promise<BiggestWin[]>;
  /** GET /pool/lp-price (docs/design.md §10): dense points; buckets before any LP supply are omitted. */
  lpPrice(q: LpPriceQuery): Promise<LpPricePoint[]>;
  /** GET /pool/returns (docs/design.md §10); undefined for a pool never seen (→ 404 POOL_NOT_FOUND). */
  poolReturns(q: PoolReturnsQuery): Promise<PoolReturns | undefined>;
  /** One UTC day's processed signatures in the verified range (`gamba-analytics verify`; docs/design.md "Coverage and reconciliation"). */
  coverageSignatures(q: CoverageSignaturesQuery): Promise<StoredSignature[]>;
  /** The latest verification run; null before the first (/status `coverage`). */
  coverageSummary(): Promise<CoverageRun | null>;
  /** GET /audit/coverage: the latest verification with one page of differences; null before the first. Throws AppError INVALID_KEYSET for a mismatched `after`. */
  coverageReport(q: CoverageReportQuery): Promise<CoverageReport | null>;
}

/** The store (createStore): one write path, the read queries, API keys, state; SQLite or PostgreSQL (docs/architecture.md "Storage"). */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * `readonly`: the API's store (createStore `access`): write methods and `migrate` throw
   * AppError STORE_READ_ONLY; every read answers within the store deadline or throws STORE_UNAVAILABLE.
   */
  readonly access: 'readwrite' | 'readonly';
  /**
   * Read queries this store runs at once: reader threads (read-only SQLite), pool connections
   * (PostgreSQL), 1 (read-write SQLite: one connection on the event loop). The API's concurrency
   * cap sizes its slots and each key's share on it (docs/hardening.md "Per-key share").
   */
  readonly slots: number;
  /** Applies pending migrations (append-only, sortable names). Idempotent. */
  migrate(): Promise<void>;
  /** Stores events and updates rollups in ONE transaction; idempotent on (signature, eventIndex). */
  writeBatch(batch: WriteBatch): Promise<WriteResult>;
  getState(key: string): Promise<string | undefined>;
  setState(entries: Record<string, string>): Promise<void>;
  /** Signatures already processed, among the given ones. */
  knownSignatures(signatures: string[]): Promise<Set<string>>;
  getMints(): Promise<MintInfo[]>;
  upsertMints(mints: MintInfo[]): Promise<void>;
  /**
   * Stores prices (existing (mint, hour) rows are kept) and re-prices the un-priced games of
   * those hours, updating rollups in the same transaction. Returns the number of games re-priced.
   */
  putPrices(prices: HourlyPrice[]): Promise<number>;
  getPrices(mint: string, fromHourMs: number, toHourMs: number): Promise<HourlyPrice[]>;
  /** (mint, hour) pairs that have un-priced games or pool changes, oldest first. */
  unpricedHours(limit: number): Promise<{ mint: string; hourMs: number }[]>;
  /** Recomputes every rollup from raw events (`gamba-analytics rollups rebuild`). */
  rebuildRollups(): Promise<void>;
  /**
   * Stores a verification (`gamba-analytics verify`, docs/design.md "Coverage and reconciliation")
   * in one transaction: appends its run to coverage_runs and replaces the latest days and listed
   * differences. Errors: AppError STORE_UNAVAILABLE; STORE_READ_ONLY on a read-only store.
   */
  putCoverage(result: CoverageResult): Promise<void>;
  /**
   * Bulk load (docs/benchmarks.md "Building a dataset"): drops the indexes no write reads (the
   * list indexes of `games`, the non-unique indexes of the derived tables) and resolves to a
   * function that recreates them exactly as the migrations made them. Only for a store nobody reads until that function has run. Errors: AppError
   * STORE_UNAVAILABLE; STORE_READ_ONLY on a read-only store.
   */
  deferReadIndexes(): Promise<() => Promise<void>>;
  /**
   * Increments after every write this Store object committed (writeBatch, putPrices,
   * rebuildRollups, setState excluded). Response caches key on it so an in-process write is
   * never hidden; writes by other processes are bounded by the cache TTL instead (docs/design.md §5).
   */
  generation(): number;
  /** Errors: AppError STORE_UNAVAILABLE when the store cannot answer (src/store/driver-errors.ts). */
  readonly keys: ApiKeyStore;
  /** Errors: AppError STORE_UNAVAILABLE when the store cannot answer or misses the deadline; INVALID_KEYSET as documented per query. */
  readonly queries: Queries;
  /** Cheap reachability check for /ready (within the deadline on a read-only store); throws AppError STORE_UNAVAILABLE. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
