/**
 * Slots and time. Slots are 400 ms apart (Solana's target slot time) on an absolute grid, so a
 * given wall-clock time always maps to the same slot whatever the start time. History is cut
 * into 1-hour segments (9,000 slots) ending at the start slot; after it, live segments of one
 * minute (150 slots) follow, so a high live rate never makes one segment huge.
 */

/** Slot duration in ms. */
export const SLOT_MS = 400;
/** Anchor of the slot grid: mainnet was near slot 240,000,000 on 2024-01-01. */
export const REF_TIME_MS = Date.UTC(2024, 0, 1);
/** Slot at REF_TIME_MS. */
export const REF_SLOT = 240_000_000;
/** Slots in a history segment (one hour). */
export const HISTORY_SEGMENT_SLOTS = 9_000;
/** Slots in a live segment (one minute). */
export const LIVE_SEGMENT_SLOTS = 150;
/** `finalized` trails `confirmed` by ~32 slots (31+ confirmations; docs/protocol.md §1, docs/simulator.md). */
export const FINALITY_LAG = 32;
/** Skipped (leaderless) slots: one in 19, a fixed pattern so block height has a closed form. */
const SKIP_PERIOD = 19;
const SKIP_PHASE = 11;
/** Block height trails the slot on mainnet (skipped slots since genesis). */
const BLOCK_HEIGHT_OFFSET = 12_000_000;

/** A segment's slot range [first, end) and whether it is live (after the start slot). */
export interface SegmentBounds {
  index: number;
  /** First slot of the segment. */
  first: number;
  /** One past the last slot. */
  end: number;
  live: boolean;
}

/** The segment grid of one simulation: start, history start, segment bounds and slot ↔ time (ms; block time in s). */
export interface Timeline {
  readonly startTimeMs: number;
  readonly startSlot: number;
  readonly historyStartSlot: number;
  readonly historySegments: number;
  bounds(index: number): SegmentBounds;
  /** Segment containing `slot`, or -1 before the history. */
  segmentOfSlot(slot: number): number;
  slotTimeMs(slot: number): number;
  /** Unix seconds, as getTransaction/getBlockTime report it. */
  blockTime(slot: number): number;
  slotAtMs(ms: number): number;
}

/** Slot whose 400 ms window contains the Unix-ms time `ms`. */
export function slotAtMs(ms: number): number {
  return REF_SLOT + Math.floor((ms - REF_TIME_MS) / SLOT_MS);
}

/** Start of a slot, Unix ms. */
export function slotTimeMs(slot: number): number {
  return REF_TIME_MS + (slot - REF_SLOT) * SLOT_MS;
}

/** Whether the slot has no block (getBlockTime answers -32009): the fixed pattern, one in 19. */
export function isSkippedSlot(slot: number): boolean {
  return slot % SKIP_PERIOD === SKIP_PHASE;
}

/** Block height of a slot: slots minus the skipped ones (closed form of the fixed pattern). */
export function blockHeightOf(slot: number): number {
  return slot - Math.floor((slot + SKIP_PERIOD - SKIP_PHASE) / SKIP_PERIOD) - BLOCK_HEIGHT_OFFSET;
}

/** The timeline of `days` of history (one segment per hour) ending at the slot of `startTimeMs`. */
export function createTimeline(startTimeMs: number, days: number): Timeline {
  const startSlot = slotAtMs(startTimeMs);
  const historySegments = Math.max(0, Math.round(days * 24));
  const historyStartSlot = startSlot - historySegments * HISTORY_SEGMENT_SLOTS;
  return {
    startTimeMs,
    startSlot,
    historyStartSlot,
    historySegments,
    bounds(index) {
      if (index < historySegments) {
        const first = historyStartSlot + index * HISTORY_SEGMENT_SLOTS;
        return { index, first, end: first + HISTORY_SEGMENT_SLOTS, live: false };
      }
      const first = startSlot + (index - historySegments) * LIVE_SEGMENT_SLOTS;
      return { index, first, end: first + LIVE_SEGMENT_SLOTS, live: true };
    },
    segmentOfSlot(slot) {
      if (slot < historyStartSlot) return -1;
      if (slot < startSlot) return Math.floor((slot - historyStartSlot) / HISTORY_SEGMENT_SLOTS);
      return historySegments + Math.floor((slot - startSlot) / LIVE_SEGMENT_SLOTS);
    },
    slotTimeMs,
    blockTime: (slot) => Math.floor(slotTimeMs(slot) / 1000),
    slotAtMs,
  };
}
