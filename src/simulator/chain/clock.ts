import type { Clock } from '../../core/index.js';
import { FINALITY_LAG, slotAtMs } from './timeline.js';

/** Solana commitment levels (processed ⊂ newest; finalized ~32 slots behind confirmed). */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** The commitment levels in order, for validating a `commitment` parameter. */
export const COMMITMENTS: readonly Commitment[] = ['processed', 'confirmed', 'finalized'];

/** The chain head as time passes: the simulated clock's "now" mapped to slots. */
export interface ChainClock {
  nowMs(): number;
  /** Slot visible at `commitment` (processed = head, confirmed = head − 1, finalized = head − 32). */
  slot(commitment: Commitment): number;
}

/**
 * `clock` gives the simulation's own time when provided (tests drive it); otherwise the
 * simulation starts at `startTimeMs` and advances with the wall clock.
 */
export function createChainClock(startTimeMs: number, clock?: Clock): ChainClock {
  const realStart = Date.now();
  const nowMs = clock ? () => clock.now() : () => startTimeMs + (Date.now() - realStart);
  return {
    nowMs,
    slot(commitment) {
      const head = slotAtMs(nowMs());
      if (commitment === 'processed') return head;
      if (commitment === 'confirmed') return head - 1;
      return head - FINALITY_LAG;
    },
  };
}
