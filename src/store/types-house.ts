import type { KeysetPosition } from './types.js';

/**
 * Types of the LP-return and house-edge reads (docs/design.md §10): GET /house-edge,
 * GET /house-edge/wins, GET /pool/lp-price and GET /pool/returns. Token amounts are bigint in
 * the token's smallest unit, USD amounts numbers, times Unix ms.
 */

/** What GET /house-edge groups by: platform (creator), pool, token, player or game kind. */
export type HouseEdgeGroupBy = 'creator' | 'pool' | 'token' | 'player' | 'game';

/** GET /house-edge: games matching the filters in [startTime, endTime), grouped; one keyset page. */
export interface HouseEdgeQuery {
  groupBy: HouseEdgeGroupBy;
  creator?: string | undefined;
  pool?: string | undefined;
  token?: string | undefined;
  user?: string | undefined;
  /** time ≥ startTime (ms); all time when absent. */
  startTime?: number | undefined;
  /** time < endTime (ms); up to now when absent. */
  endTime?: number | undefined;
  limit: number;
  /** The previous page's `next` (values of houseEdgeKinds(groupBy)). */
  after?: KeysetPosition | undefined;
}

/**
 * One group of GET /house-edge: its key (`key`: creator, pool, token, player or game kind) and,
 * except for groupBy=token, the `token` its amounts are in (a row never mixes tokens), with the
 * exact token sums of its games and their USD.
 */
export interface HouseEdgeRow {
  key: string;
  token: string;
  plays: number;
  /** Games with payout > wager (jackpot aside). */
  wins: number;
  /** Games with a jackpot payout, and Σ jackpot. */
  jackpots: number;
  jackpot: bigint;
  wager: bigint;
  payout: bigint;
  /** Σ ⌊wager × mean(bet) / 10000⌋. */
  expected_payout: bigint;
  usd_wager: number;
  usd_profit: number;
}

/** One page of GET /house-edge, ordered by the group key (then token) ascending. */
export interface HouseEdgeResult {
  results: HouseEdgeRow[];
  next: KeysetPosition | null;
}

/** GET /house-edge/wins: the biggest wins (payout > wager) among the filtered games, by payout multiplier, USD profit or payout. */
export interface BiggestWinsQuery {
  /** `payout` compares token amounts: the API requires a token or pool filter with it. */
  sortBy: 'multiplier' | 'usd_profit' | 'payout';
  creator?: string | undefined;
  pool?: string | undefined;
  token?: string | undefined;
  user?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  limit: number;
}

/** One win: the game's signature, parties, amounts (smallest units), multiplier (bet[resultIndex] / 10000) and USD. */
export interface BiggestWin {
  signature: string;
  time: number;
  user: string;
  creator: string;
  token: string;
  pool: string;
  game: string;
  wager: bigint;
  payout: bigint;
  jackpot: bigint;
  multiplier: number;
  usd_wager: number;
  /** (payout + jackpot − wager) × the price at the game (docs/design.md §3 usd_profit). */
  usd_profit: number;
}

/** LP price series granularity: UTC hours or UTC days. */
export type LpInterval = 'hour' | 'day';

/** GET /pool/lp-price: the points of [startTime, endTime), ms. */
export interface LpPriceQuery {
  pool: string;
  interval: LpInterval;
  startTime: number;
  endTime: number;
}

/** A pool's LP state at a moment: liquidity and LP supply after the last event before it, and their ratio. */
export interface LpState {
  liquidity: bigint;
  lp_supply: bigint;
  /** liquidity / lp_supply; 1 when lp_supply is 0 (docs/design.md §3 `lp_price`). */
  lp_price: number;
}

/** One LP price point: the bucket's start (ms) and the state at its end (after every event with time < time + interval). */
export interface LpPricePoint extends LpState {
  time: number;
}

/** GET /pool/returns: a pool over [startTime, endTime), ms. */
export interface PoolReturnsQuery {
  pool: string;
  startTime: number;
  endTime: number;
}

/**
 * A pool's LP return over a window: the LP state before its start and before its end (null while
 * no LP supply is known), and the window's game figures (token amounts in smallest units).
 */
export interface PoolReturns {
  pool: string;
  token: string;
  start: LpState | null;
  end: LpState | null;
  plays: number;
  volume: bigint;
  usd_volume: number;
  pool_fees: bigint;
  pool_fees_usd: number;
  house_pnl: bigint;
  house_pnl_usd: number;
}
