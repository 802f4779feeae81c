import { decodeCursor } from '../../core/index.js';
import { STATE_KEYS } from '../checkpoint.js';
import { runBackfill } from '../backfill.js';
import { createProgress, type ProgressMode } from '../progress.js';
import { estimateBackfill } from '../estimate.js';
import type { HistorySource } from '../sources/index.js';
import type { LoopRun } from './run.js';
import type { BackfillState, RangeState } from './state.js';

/** Settings of the backfill loop. */
export interface BackfillLoopOptions {
  /** Where pages of history come from (HISTORY_SOURCE). */
  source: HistorySource;
  /** RPC_MAX_RPS, requests per second: the start-up estimate's time (undefined = no estimate). */
  maxRps: number | undefined;
  /** Signatures per store transaction (backfill.ts COMMIT_SIGNATURES when undefined). */
  commitSignatures: number | undefined;
  /** Progress output (progress.ts). */
  progress: ProgressMode;
  /** The range fixed at start-up (read when the loop starts). */
  range: RangeState;
  /** Called once the backfill reached its cutoff (the indexer re-prices then). */
  onDone(): void;
}

/** The backfill loop of one indexer: its state, the promise of its completion, the loop itself. */
export interface BackfillLoop {
  readonly state: BackfillState;
  /** Resolves once the backfill has reached its cutoff (in this run or a previous one). */
  readonly backfilled: Promise<void>;
  /** Resolves `backfilled` when `state.done` (start-up found the backfill complete). */
  settle(): void;
  /**
   * Runs the backfill (backfill.ts) from its stored cursor down to the cutoff, resuming from the
   * last checkpoint after a failure (backoff from LoopRun). Returns at once when already done,
   * when done, or when the indexer stops.
   */
  run(): Promise<void>;
}

/** The backfill loop (docs/design.md §5): newest → oldest at `finalized`, checkpointed with every commit. */
export function createBackfillLoop(r: LoopRun, o: BackfillLoopOptions): BackfillLoop {
  const { common, store } = r.ctx;
  const state: BackfillState = { done: false, running: false };
  let resolve!: () => void;
  const backfilled = new Promise<void>((res) => (resolve = res));
  return {
    state,
    backfilled,
    settle() {
      if (state.done) resolve();
    },
    async run() {
      if (state.done) return;
      state.running = true;
      const progress = createProgress({ common, mode: o.progress, cutoff: o.range.cutoff });
      if (o.maxRps !== undefined) {
        const from = decodeCursor(await store.getState(STATE_KEYS.backfillCursor).catch(() => undefined));
        await estimateBackfill(r.ctx, { source: o.source, cursor: from, cutoff: o.range.cutoff, maxRps: o.maxRps }).then(
          (e) => progress.estimate(e),
          (e: unknown) => {
            if (!r.isAbort(e)) common.logger.warn({ err: (e as Error).message }, 'backfill estimate failed');
          },
        );
      }
      try {
        for (let failures = 0; !r.stopped(); ) {
          try {
            const cursor = decodeCursor(await store.getState(STATE_KEYS.backfillCursor));
            await runBackfill(r.ctx, {
              source: o.source,
              cutoff: o.range.cutoff,
              cursor,
              top: o.range.tailStart,
              blockedDelayMs: 500,
              commitSignatures: o.commitSignatures,
              onProgress: (p) => progress.update(p),
            });
            state.done = true;
            r.status.lastSync = common.clock.now();
            resolve();
            o.onDone();
            return;
          } catch (e) {
            if (r.isAbort(e)) return;
            r.status.lastError = (e as Error).message;
            common.logger.error({ err: r.status.lastError, failures }, 'backfill failed; resuming from the last checkpoint');
            await r.pause(r.backoff(failures++));
          }
        }
      } finally {
        state.running = false;
        progress.stop();
      }
    },
  };
}
