import { isAppError, sleep } from '../../core/index.js';
import type { IngestContext } from '../batch.js';

/** Outcome record of the indexer's passes, reported by its controller (SyncState `lastSync`, `lastError`). */
export interface RunStatus {
  /** End of the last completed backfill or caught-up tail pass, Unix ms (the injected clock); null before. */
  lastSync: number | null;
  /** Message of the last failed start-up, backfill or tail pass; null after a successful tail pass. */
  lastError: string | null;
}

/**
 * What the loops of one indexer share: the ingest context (its `signal` aborts when the indexer
 * stops), the failure backoff and the status the controller reports. Stopping is the signal's
 * abort: `stopped()` is true from `stop()` on.
 */
export interface LoopRun {
  readonly ctx: IngestContext;
  readonly status: RunStatus;
  /** true once the indexer is stopping. */
  stopped(): boolean;
  /** true for an AppError ABORTED, or anything thrown once stopping: the loop ends quietly. */
  isAbort(e: unknown): boolean;
  /** Wait after the `failures`-th consecutive failure (from 0), ms: errorDelayMs doubling, at most 30 s. */
  backoff(failures: number): number;
  /** Waits `ms` (a timer); returns early, without throwing, when the indexer stops. */
  pause(ms: number): Promise<void>;
}

/** A LoopRun over `ctx`; `errorDelayMs` is the first wait after a failure, ms. */
export function createLoopRun(ctx: IngestContext, errorDelayMs: number): LoopRun {
  const stopped = () => ctx.signal.aborted;
  return {
    ctx,
    status: { lastSync: null, lastError: null },
    stopped,
    isAbort: (e) => stopped() || (isAppError(e) && e.code === 'ABORTED'),
    backoff: (n) => Math.min(30_000, errorDelayMs * 2 ** Math.min(n, 10)),
    pause: (ms) => sleep(ms, ctx.signal).catch(() => undefined),
  };
}
