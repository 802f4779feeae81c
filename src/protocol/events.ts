/**
 * Decoded Gamba v2 events (field order and types from the IDL, docs/protocol.md §4).
 * u64 fields are bigint (smallest token units); addresses are base58 strings.
 */
export interface GameSettled {
  user: string;
  pool: string;
  tokenMint: string;
  creator: string;
  creatorFee: bigint;
  gambaFee: bigint;
  poolFee: bigint;
  jackpotFee: bigint;
  underlyingUsed: bigint;
  bonusUsed: bigint;
  wager: bigint;
  payout: bigint;
  multiplierBps: number;
  payoutFromBonusPool: bigint;
  payoutFromNormalPool: bigint;
  jackpotProbabilityUbps: bigint;
  jackpotResult: bigint;
  nonce: bigint;
  clientSeed: string;
  resultIndex: bigint;
  bet: number[];
  jackpotPayoutToUser: bigint;
  poolLiquidity: bigint;
  rngSeed: string;
  nextRngSeedHashed: string;
  metadata: string;
}

/** PoolChange `action`: the IDL enum (0 deposit, 1 withdraw). */
export type PoolAction = 'deposit' | 'withdraw';

/** A liquidity deposit or withdrawal; amounts in smallest token units, `lpSupply` in LP token units. */
export interface PoolChange {
  user: string;
  pool: string;
  tokenMint: string;
  action: PoolAction;
  amount: bigint;
  postLiquidity: bigint;
  lpSupply: bigint;
}

/** A new pool for `tokenMint` (`user` and `authority` as the IDL names them; docs/protocol.md §4). */
export interface PoolCreated {
  user: string;
  authority: string;
  pool: string;
  tokenMint: string;
}

/** One decoded event, tagged by its IDL name. */
export type GambaEvent =
  | { name: 'GameSettled'; data: GameSettled }
  | { name: 'PoolChange'; data: PoolChange }
  | { name: 'PoolCreated'; data: PoolCreated };

/** The names of the indexed events. */
export type GambaEventName = GambaEvent['name'];

/**
 * An event located on chain: the unit the store's write path takes. Idempotency key is
 * (signature, eventIndex) (docs/design.md §5). `blockTime` is Unix **seconds** (RPC's unit).
 */
export type LocatedEvent = GambaEvent & {
  signature: string;
  slot: number;
  blockTime: number;
  /** 0-based position of the event among the transaction's Gamba events. */
  eventIndex: number;
};
