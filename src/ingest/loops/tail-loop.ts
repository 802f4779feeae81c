import { decodeCursor } from '../../core/index.js';
import { STATE_KEYS } from '../checkpoint.js';
import type { GeyserSlot } from '../../solana/index.js';
import { commitStreamSlot, runTailPass } from '../tail.js';
import type { LoopRun } from './run.js';
import type { RangeState, TailState } from './state.js';

/** Back-to-back wake-ups (a busy logsSubscribe) still leave this much between pass starts, ms. */
const MIN_PASS_GAP_MS = 250;

/** What starts a tail pass: the poll loop, a request (POST /sync, `syncNow`), or a live stream's (re)connection (gap-fill). */
export type PassTrigger = 'poll' | 'request' | 'gap-fill';

/** Settings of the tail loop. */
export interface TailLoopOptions {
  /** getSignaturesForAddress page size and the commit unit, 1..1000. */
  pageSize: number;
  /** Time between polls when nothing wakes the loop earlier, ms (POLL_INTERVAL_MS). */
  pollIntervalMs: number;
  /** The range fixed at start-up (its cutoff bounds a tail without a cursor). */
  range: RangeState;
  /** Called after every successful pass (the indexer updates its lag metrics). */
  afterPass(): void;
}

/** The live tail of one indexer: its state, its serialised passes, its poll loop. */
export interface TailLoop {
  readonly state: TailState;
  /** Wakes the poll loop now (a logsSubscribe notification, or stopping). */
  wake(): void;
  /** Queues one pass after those queued before (never two at once); resolves when it ends. Never rejects for a failed pass (logged, backed off). */
  enqueuePass(trigger: PassTrigger): Promise<void>;
  /**
   * Queues the commit of one slot pushed by a live stream (tail.ts commitStreamSlot) behind the
   * passes queued before; resolves when written. A failed write is logged and wakes a poll pass,
   * which fetches the slot again from history (the cursor did not move past it).
   */
  enqueueSlot(s: GeyserSlot): Promise<void>;
  /** Polls until the indexer stops: a pass, then a wait of POLL_INTERVAL_MS or until woken, at least MIN_PASS_GAP_MS between starts. */
  run(): Promise<void>;
  /** Resolves once the queued passes have ended. */
  drained(): Promise<void>;
}

/**
 * The live tail (docs/design.md §5): passes at `confirmed` from the tail cursor to the chain
 * head (tail.ts), one at a time. A failed pass re-reads the cursor from the store (some chunks
 * may have committed) and backs off. Every time is read from the injected clock.
 */
export function createTailLoop(r: LoopRun, o: TailLoopOptions): TailLoop {
  const { common, store, rpc, signal } = r.ctx;
  const { logger, clock, metrics } = common;
  const state: TailState = { cursor: undefined, headSlot: null, caughtUpSlot: null, caughtUpAtMs: null, newestEventMs: null, failures: 0 };

  // ── wake-ups (logsSubscribe, stop) ──
  const waker: { pending: boolean; resolve: (() => void) | undefined } = { pending: false, resolve: undefined };
  const wake = () => {
    waker.pending = true;
    waker.resolve?.();
  };
  const waitWake = (ms: number) =>
    new Promise<void>((resolve) => {
      if (waker.pending || r.stopped()) {
        waker.pending = false;
        return resolve();
      }
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        waker.resolve = undefined;
        waker.pending = false;
        resolve();
      }
      waker.resolve = done;
    });

  async function pass(trigger: PassTrigger): Promise<void> {
    if (r.stopped()) return;
    metrics.syncPasses.inc({ trigger });
    const passStart = clock.now();
    try {
      const head = await rpc.getSlot({ commitment: 'confirmed', signal });
      state.headSlot = head;
      const res = await runTailPass(r.ctx, { cursor: state.cursor, cutoff: o.range.cutoff, pageSize: o.pageSize });
      state.cursor = res.cursor;
      if (res.newestBlockTime !== null) state.newestEventMs = Math.max(state.newestEventMs ?? 0, res.newestBlockTime * 1000);
      if (!res.blocked) {
        state.caughtUpSlot = Math.max(state.caughtUpSlot ?? 0, head);
        state.caughtUpAtMs = passStart;
        r.status.lastSync = clock.now();
      }
      r.status.lastError = null;
      state.failures = 0;
      o.afterPass();
      if (res.signatures > 0) logger.debug({ signatures: res.signatures, events: res.events, blocked: res.blocked }, 'tail pass');
    } catch (e) {
      if (r.isAbort(e)) return;
      r.status.lastError = (e as Error).message;
      state.failures++;
      logger.warn({ err: r.status.lastError, failures: state.failures }, 'tail pass failed');
      // Some chunks may have committed: the store's checkpoint is the truth.
      state.cursor = decodeCursor(await store.getState(STATE_KEYS.tailCursor).catch(() => undefined)) ?? state.cursor;
      await r.pause(r.backoff(state.failures - 1));
    }
  }

  async function applySlot(s: GeyserSlot): Promise<void> {
    if (r.stopped()) return;
    try {
      const res = await commitStreamSlot(r.ctx, s, state.cursor);
      state.cursor = res.cursor;
      state.headSlot = Math.max(state.headSlot ?? 0, s.slot);
      state.caughtUpSlot = Math.max(state.caughtUpSlot ?? 0, s.slot);
      state.caughtUpAtMs = clock.now();
      if (res.newestBlockTime !== null) state.newestEventMs = Math.max(state.newestEventMs ?? 0, res.newestBlockTime * 1000);
      r.status.lastSync = clock.now();
      o.afterPass();
      if (res.signatures > 0) logger.debug({ slot: s.slot, signatures: res.signatures, events: res.events }, 'stream slot');
    } catch (e) {
      if (r.isAbort(e)) return;
      logger.warn({ err: (e as Error).message, slot: s.slot }, 'stream slot not written; the next poll pass fetches it');
      state.cursor = decodeCursor(await store.getState(STATE_KEYS.tailCursor).catch(() => undefined)) ?? state.cursor;
      wake();
    }
  }

  // ── passes and stream slots, serialised ──
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>): Promise<void> => {
    const run = chain.then(work);
    chain = run.catch(() => undefined);
    return run;
  };
  const enqueuePass = (trigger: PassTrigger): Promise<void> => enqueue(() => pass(trigger));

  return {
    state,
    wake,
    enqueuePass,
    enqueueSlot: (slot) => enqueue(() => applySlot(slot)),
    async run() {
      while (!r.stopped()) {
        const began = clock.now();
        await enqueuePass('poll');
        await waitWake(o.pollIntervalMs);
        const gap = began + MIN_PASS_GAP_MS - clock.now();
        if (gap > 0 && !r.stopped()) await r.pause(gap);
      }
    },
    drained: () => chain,
  };
}
