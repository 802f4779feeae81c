/**
 * The simulated chain's state, deterministic from (seed, start time): slot timeline and the
 * commitment clock, tokens and their hourly price book, the economy (platforms, pools, players),
 * the transaction skeletons, the ledger's sequential pass, mint accounts and fault dice.
 * Imports `src/protocol` only (docs/architecture.md "Layout", simulator row).
 */
export { tokenMints, lpMintOf, renderMint, type MintAccount, type AccountEncoding } from './accounts.js';
export { SYSTEM_PROGRAM, TOKEN_PROGRAM, ATA_PROGRAM, COMPUTE_BUDGET_PROGRAM, RENT_SYSVAR, TOKEN_METADATA_PROGRAM, toBase58, fromBase58, hashedAddress } from './addresses.js';
export { COMMITMENTS, createChainClock, type Commitment, type ChainClock } from './clock.js';
export { createEconomy, type Economy } from './economy.js';
export { parseFaults, normalizeFaults, createFaultDice, type FaultSpec, type FaultDice } from './faults.js';
export { gameFees, createLedger, type RealTx, type Ledger, type RigRule } from './ledger.js';
export { hourOfMs, createPriceBook, type PriceBook } from './prices.js';
export { hash32 } from './rng.js';
export type { TxKind, TxSkel } from './skeleton.js';
export { slotAtMs, slotTimeMs, isSkippedSlot, blockHeightOf, createTimeline } from './timeline.js';
export { TOKENS, TOKEN_BY_MINT, type TokenDef } from './tokens.js';
