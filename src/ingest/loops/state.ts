import type { Cursor } from '../../core/index.js';
import type { SyncState } from '../controller.js';
import type { RunStatus } from './run.js';

/** The range the indexer covers, fixed at start-up (startup.ts) from the stored checkpoints. */
export interface RangeState {
  /** Unix seconds: the backfill stops at transactions older than this (0 until start-up has run). */
  cutoff: number;
  /** The tail's starting signature as first recorded: the top of the backfill's range. */
  tailStart: string | undefined;
}

/** The backfill loop's state (backfill-loop.ts). */
export interface BackfillState {
  /** The backfill reached its cutoff (stored, or in this run). */
  done: boolean;
  /** The backfill loop is running (SyncState `syncing`). */
  running: boolean;
}

/** The tail's position and what its passes learnt of the chain (tail-loop.ts). */
export interface TailState {
  /** Newest signature the tail has processed; undefined before start-up recorded one. */
  cursor: Cursor | undefined;
  /** Chain head (`getSlot` at `confirmed`) as last read at the start of a pass. */
  headSlot: number | null;
  /** Highest head slot a pass caught up to (not stopped by a null transaction). */
  caughtUpSlot: number | null;
  /** Start of the last caught-up pass, Unix ms (the injected clock). */
  caughtUpAtMs: number | null;
  /** Newest stored event's block time, Unix ms. */
  newestEventMs: number | null;
  /** Consecutive failed passes. */
  failures: number;
}

/**
 * The controller's SyncState (src/ingest/controller.ts) from the loops' states at `nowMs`
 * (Unix ms, the injected clock): lag in slots behind the head, lag in seconds behind the newer
 * of the last caught-up pass and the newest event.
 */
export function toSyncState(nowMs: number, s: { backfill: BackfillState; tail: TailState; status: RunStatus; triggeredRunning: boolean }): SyncState {
  const { backfill, tail, status } = s;
  const upTo = Math.max(tail.caughtUpAtMs ?? -Infinity, tail.newestEventMs ?? -Infinity);
  return {
    syncing: backfill.running || s.triggeredRunning,
    lastSync: status.lastSync,
    lagSlots: tail.headSlot !== null && tail.caughtUpSlot !== null ? Math.max(0, tail.headSlot - tail.caughtUpSlot) : null,
    lagSeconds: Number.isFinite(upTo) ? Math.max(0, Math.round((nowMs - upTo) / 1000)) : null,
    backfillDone: backfill.done,
    lastError: status.lastError,
  };
}
