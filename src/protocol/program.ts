/**
 * Facts about the Gamba v2 program (source: docs/protocol.md §4, from the
 * gamba-labs IDL; discriminators = sha256("event:<Name>")[0..8], recomputed in tests).
 */
export const GAMBA_PROGRAM_ID = 'Gamba2hK6KV3quKq854B3sQG1WMdq3zgQLPKqyK4qS18';

/** Event discriminators: sha256("event:<Name>")[0..8] (docs/protocol.md §4). */
export const EVENT_DISCRIMINATORS = {
  GameSettled: Uint8Array.from([63, 109, 128, 85, 229, 63, 167, 176]),
  PoolChange: Uint8Array.from([241, 7, 155, 154, 56, 57, 0, 101]),
  PoolCreated: Uint8Array.from([202, 44, 41, 88, 104, 220, 157, 82]),
} as const;

/** Instruction discriminators (sha256("global:<snake_name>")[0..8]); docs/protocol.md §4. */
export const INSTRUCTION_DISCRIMINATORS = {
  playGame: Uint8Array.from([37, 88, 207, 85, 42, 144, 122, 197]),
  rngSettle: Uint8Array.from([23, 35, 236, 185, 14, 171, 26, 222]),
  poolDeposit: Uint8Array.from([26, 109, 164, 79, 207, 145, 204, 217]),
  poolWithdraw: Uint8Array.from([50, 1, 23, 25, 135, 221, 159, 182]),
  poolInitialize: Uint8Array.from([37, 10, 195, 69, 4, 213, 88, 173]),
} as const;

/**
 * Anchor's `emit_cpi!` prefix: the event is the data of a self-invocation whose first 8 bytes
 * are EVENT_IX_TAG = 0x1d9acb512ea545e4 as little-endian u64 (anchor-lang event.rs).
 */
export const EVENT_IX_TAG_LE = Uint8Array.from([0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d]);

/** Solana's log budget overflow line (program-runtime log_collector.rs). */
export const LOG_TRUNCATED = 'Log truncated';
