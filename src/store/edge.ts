/**
 * Per-game house-edge facts stored beside each game (migration 0008; docs/design.md §10): the
 * expected payout from the game's own bet table and the game kind named by its metadata.
 * Migration 0008 keeps its own frozen copy of both rules (docs/architecture.md convention 12).
 */

/** Game kind of a game whose metadata names none (docs/design.md §10). */
export const UNKNOWN_GAME_KIND = 'unknown';

/** Longest game kind kept (longer ids are "unknown": metadata is free text chosen by the front-end). */
export const MAX_GAME_KIND_LENGTH = 64;

/**
 * The game kind of a play from its `GameSettled.metadata`: react-ui sends `0:<gameId>:<extra…>`
 * (docs/protocol.md "Meanings"), so the text between the first and second `:` when the metadata
 * starts with `0:` and that text is 1..64 characters; otherwise "unknown".
 */
export function gameKindOf(metadata: string | undefined | null): string {
  if (typeof metadata !== 'string' || !metadata.startsWith('0:')) return UNKNOWN_GAME_KIND;
  const id = metadata.slice(2).split(':', 1)[0]!;
  return id.length >= 1 && id.length <= MAX_GAME_KIND_LENGTH ? id : UNKNOWN_GAME_KIND;
}

/**
 * Expected payout of one play in the token's smallest units: wager × mean(bet) / 10000, floored,
 * i.e. ⌊wager × Σbet / (10000 × bet.length)⌋, exact (bet = the outcome multipliers in bps, each
 * equally likely: docs/protocol.md "Meanings"). An empty bet table expects 0. May exceed 2^64 − 1
 * for a bet table averaging above 1x.
 */
export function expectedPayout(wager: bigint, bet: readonly number[]): bigint {
  if (bet.length === 0) return 0n;
  let total = 0n;
  for (const b of bet) total += BigInt(b);
  return (wager * total) / (10_000n * BigInt(bet.length));
}
