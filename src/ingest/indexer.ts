import { isAppError, type Common } from '../core/index.js';
import type { Config } from '../config/index.js';
import { createPricer, type PriceSource } from '../prices/index.js';
import { GAMBA_PROGRAM_ID } from '../protocol/index.js';
import { sleep, subscribeLogs, type LogsSubscription, type RpcClient } from '../solana/index.js';
import type { Store } from '../store/index.js';
import { runBackfill } from './backfill.js';
import type { IngestContext } from './batch.js';
import { decodeCursor, encodeCursor, STATE_KEYS, type Cursor } from './checkpoint.js';
import type { SyncController, SyncState } from './controller.js';
import { createMintRegistry } from './mints.js';
import { createProgress, type ProgressMode } from './progress.js';
import { createTriggeredPasses } from './sync-passes.js';
import { runTailPass } from './tail.js';

export interface IndexerOptions {
  common: Common;
  config: Pick<Config, 'backfillDays' | 'pollIntervalMs' | 'solanaWsUrl'>;
  store: Store;
  rpc: RpcClient;
  /** The price-source chain (createPriceSources); results are cached per (mint, hour) in the store. */
  prices: PriceSource;
  /** Program to index (default Gamba v2). */
  programId?: string;
  /** getSignaturesForAddress page size and the tail's commit unit, 1..1000 (default 1000). */
  pageSize?: number;
  /** Signatures per backfill store transaction: whole pages until at least this many (default 10,000: backfill.ts COMMIT_SIGNATURES). */
  backfillCommitSignatures?: number;
  /** How often un-priced hours are retried, ms (default 60 000). */
  repriceIntervalMs?: number;
  /** Backfill progress output (default 'auto': bar on a TTY, log lines otherwise). */
  progress?: ProgressMode;
  /** Extra rounds for null transactions within a page (default 3) and their first delay, ms (default 250). */
  nullRetries?: number;
  nullRetryDelayMs?: number;
  /** After a failed pass, first wait before the next try, ms (default 1000; doubles up to 30 s). */
  errorDelayMs?: number;
  /** Minimum time between the starts of two triggered passes, ms (SYNC_MIN_INTERVAL_MS, default 10 000; docs/design.md §5). */
  syncMinIntervalMs?: number;
}

export interface Indexer {
  /** Loads checkpoints and starts backfill, live tail and re-pricing in the background. Resolves at once. */
  start(): Promise<void>;
  /** Stops every loop: in-flight RPC calls are aborted, a store transaction in progress commits or rolls back as a whole. */
  stop(): Promise<void>;
  readonly controller: SyncController;
  /** Resolves when the backfill has reached its cutoff (at once if it had before). */
  backfilled(): Promise<void>;
  /** Runs one catch-up pass (tail to the chain head) now, coalesced with a running triggered one (no minimum interval); resolves when done. */
  syncNow(): Promise<void>;
  /** One pass of the re-pricing job; returns games re-priced. */
  repriceNow(): Promise<number>;
}

/**
 * The indexer (docs/design.md §5, docs/indexer.md): backfill newest → oldest at `finalized` down to
 * BACKFILL_DAYS ago, a live tail at `confirmed` polled every POLL_INTERVAL_MS (woken early by
 * `logsSubscribe` when SOLANA_WS_URL is set), and a periodic re-pricing job. The tail starts at
 * the newest finalized signature seen when the first backfill started, so the two run at the
 * same time without a gap. Every checkpoint is committed with its events.
 */
export function createIndexer(o: IndexerOptions): Indexer {
  const { common, store, rpc } = o;
  const { logger, clock, metrics } = common;
  const programId = o.programId ?? GAMBA_PROGRAM_ID;
  const pageSize = Math.max(1, Math.min(1000, o.pageSize ?? 1000));
  const errorDelayMs = o.errorDelayMs ?? 1000;
  const abort = new AbortController();
  const mints = createMintRegistry({ common, store, rpc });
  const pricer = createPricer({ common, store, source: o.prices });
  const ctx: IngestContext = {
    common,
    store,
    rpc,
    pricer,
    mints,
    programId,
    signal: abort.signal,
    nullRetries: o.nullRetries ?? 3,
    nullRetryDelayMs: o.nullRetryDelayMs ?? 250,
  };

  let started = false;
  let stopped = false;
  let cutoff = 0;
  let tailCursor: Cursor | undefined;
  /** The tail's starting point as first recorded (the backfill's top when it has no cursor yet). */
  let tailStart: string | undefined;
  let backfillDone = false;
  let backfillRunning = false;
  let resolveBackfilled!: () => void;
  const backfilledP = new Promise<void>((r) => (resolveBackfilled = r));
  let lastSync: number | null = null;
  let lastError: string | null = null;
  let headSlot: number | null = null;
  let caughtUpSlot: number | null = null;
  let caughtUpAtMs: number | null = null;
  let newestEventMs: number | null = null;
  const loops: Promise<void>[] = [];
  let ws: LogsSubscription | undefined;

  // ── wake-ups for the tail loop (logsSubscribe, trigger, stop) ──
  let wakePending = false;
  let wakeResolve: (() => void) | undefined;
  const wake = () => {
    wakePending = true;
    wakeResolve?.();
  };
  const waitWake = (ms: number) =>
    new Promise<void>((resolve) => {
      if (wakePending || stopped) {
        wakePending = false;
        return resolve();
      }
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wakeResolve = undefined;
        wakePending = false;
        resolve();
      }
      wakeResolve = done;
    });

  const isAbort = (e: unknown) => stopped || (isAppError(e) && e.code === 'ABORTED');
  const backoff = (n: number) => Math.min(30_000, errorDelayMs * 2 ** Math.min(n, 10));

  // ── one-time initialisation: cutoff and the tail's starting point ──
  async function init(): Promise<void> {
    const desired = Math.floor(clock.now() / 1000) - o.config.backfillDays * 86_400;
    const storedCutoff = Number(await store.getState(STATE_KEYS.backfillCutoff));
    // '' = not done (set when the range is extended; sync-state rows are never deleted).
    backfillDone = Boolean(await store.getState(STATE_KEYS.backfillDone));
    if (!Number.isFinite(storedCutoff) || storedCutoff <= 0) {
      cutoff = desired;
      await store.setState({ [STATE_KEYS.backfillCutoff]: String(cutoff) });
    } else if (desired < storedCutoff - 86_400) {
      // BACKFILL_DAYS was raised: extend the backfill further back from where it stopped.
      cutoff = desired;
      backfillDone = false;
      await store.setState({ [STATE_KEYS.backfillCutoff]: String(cutoff), [STATE_KEYS.backfillDone]: '' });
      logger.info({ backfill_days: o.config.backfillDays }, 'backfill range extended');
    } else {
      cutoff = storedCutoff;
    }
    tailCursor = decodeCursor(await store.getState(STATE_KEYS.tailCursor));
    tailStart = (await store.getState(STATE_KEYS.tailStart)) ?? undefined;
    if (!tailCursor) {
      // The tail takes everything newer than the newest finalized signature now; the backfill everything from it back.
      const [newest] = await rpc.getSignaturesForAddress(programId, { limit: 1, commitment: 'finalized', signal: abort.signal });
      if (newest) {
        tailCursor = { signature: newest.signature, slot: newest.slot, blockTime: newest.blockTime };
        tailStart = newest.signature;
        await store.setState({ [STATE_KEYS.tailCursor]: encodeCursor(tailCursor), [STATE_KEYS.tailStart]: tailStart });
      }
    }
    if (backfillDone) resolveBackfilled();
  }

  // ── backfill ──
  async function backfillLoop(): Promise<void> {
    if (backfillDone) return;
    backfillRunning = true;
    const progress = createProgress({ common, mode: o.progress ?? 'auto', cutoff });
    try {
      for (let failures = 0; !stopped; ) {
        try {
          const cursor = decodeCursor(await store.getState(STATE_KEYS.backfillCursor));
          await runBackfill(ctx, { pageSize, cutoff, cursor, top: tailStart, blockedDelayMs: 500, commitSignatures: o.backfillCommitSignatures, onProgress: (p) => progress.update(p) });
          backfillDone = true;
          lastSync = clock.now();
          resolveBackfilled();
          void repriceNow().catch(() => undefined);
          return;
        } catch (e) {
          if (isAbort(e)) return;
          lastError = (e as Error).message;
          logger.error({ err: lastError, failures }, 'backfill failed; resuming from the last checkpoint');
          await sleep(backoff(failures++), abort.signal).catch(() => undefined);
        }
      }
    } finally {
      backfillRunning = false;
      progress.stop();
    }
  }

  // ── tail passes, serialised ──
  let passChain: Promise<void> = Promise.resolve();
  let passFailures = 0;
  async function doPass(trigger: 'poll' | 'request'): Promise<void> {
    if (stopped) return;
    metrics.syncPasses.inc({ trigger });
    const passStart = clock.now();
    try {
      const head = await rpc.getSlot({ commitment: 'confirmed', signal: abort.signal });
      headSlot = head;
      const r = await runTailPass(ctx, { cursor: tailCursor, cutoff, pageSize });
      tailCursor = r.cursor;
      if (r.newestBlockTime !== null) newestEventMs = Math.max(newestEventMs ?? 0, r.newestBlockTime * 1000);
      if (!r.blocked) {
        caughtUpSlot = Math.max(caughtUpSlot ?? 0, head);
        caughtUpAtMs = passStart;
        lastSync = clock.now();
      }
      lastError = null;
      passFailures = 0;
      updateLagMetrics();
      if (r.signatures > 0) logger.debug({ signatures: r.signatures, events: r.events, blocked: r.blocked }, 'tail pass');
    } catch (e) {
      if (isAbort(e)) return;
      lastError = (e as Error).message;
      passFailures++;
      logger.warn({ err: lastError, failures: passFailures }, 'tail pass failed');
      // Some chunks may have committed: the store's checkpoint is the truth.
      tailCursor = decodeCursor(await store.getState(STATE_KEYS.tailCursor).catch(() => undefined)) ?? tailCursor;
      await sleep(backoff(passFailures - 1), abort.signal).catch(() => undefined);
    }
  }
  const enqueuePass = (trigger: 'poll' | 'request'): Promise<void> => {
    const run = passChain.then(() => doPass(trigger));
    passChain = run.catch(() => undefined);
    return run;
  };

  /** Back-to-back wake-ups (a busy logsSubscribe) still leave this much between pass starts, ms. */
  const MIN_PASS_GAP_MS = 250;
  async function tailLoop(): Promise<void> {
    while (!stopped) {
      const began = Date.now();
      await enqueuePass('poll');
      await waitWake(o.config.pollIntervalMs);
      const gap = began + MIN_PASS_GAP_MS - Date.now();
      if (gap > 0 && !stopped) await sleep(gap, abort.signal).catch(() => undefined);
    }
  }

  // ── re-pricing ──
  async function repriceNow(): Promise<number> {
    const pairs = await store.unpricedHours(500);
    if (pairs.length === 0) return 0;
    await mints.ensure(
      pairs.map((p) => p.mint),
      abort.signal,
    );
    const { repriced } = await pricer.ensure(pairs.filter((p) => mints.decimalsOf(p.mint) !== undefined));
    if (repriced > 0) logger.info({ games: repriced }, 'games re-priced');
    return repriced;
  }
  async function repriceLoop(): Promise<void> {
    const every = o.repriceIntervalMs ?? 60_000;
    while (!stopped) {
      await sleep(every, abort.signal).catch(() => undefined);
      if (stopped) return;
      await repriceNow().catch((e) => {
        if (!isAbort(e)) logger.warn({ err: (e as Error).message }, 're-pricing failed');
      });
    }
  }

  function updateLagMetrics() {
    const s = state();
    if (s.lagSlots !== null) metrics.indexerLagSlots.set(s.lagSlots);
    if (s.lagSeconds !== null) metrics.indexerLagSeconds.set(s.lagSeconds);
  }

  // ── the controller the API sees ──
  const triggered = createTriggeredPasses({ clock, minIntervalMs: o.syncMinIntervalMs ?? 10_000, run: () => enqueuePass('request') });
  function state(): SyncState {
    const now = clock.now();
    const upTo = Math.max(caughtUpAtMs ?? -Infinity, newestEventMs ?? -Infinity);
    return {
      syncing: backfillRunning || triggered.running(),
      lastSync,
      lagSlots: headSlot !== null && caughtUpSlot !== null ? Math.max(0, headSlot - caughtUpSlot) : null,
      lagSeconds: Number.isFinite(upTo) ? Math.max(0, Math.round((now - upTo) / 1000)) : null,
      backfillDone,
      lastError,
    };
  }
  return {
    controller: { state, trigger: async () => triggered.trigger() },
    async start() {
      if (started) return;
      started = true;
      const main = (async () => {
        for (let failures = 0; !stopped; failures++) {
          try {
            await init();
            break;
          } catch (e) {
            if (isAbort(e)) return;
            lastError = (e as Error).message;
            logger.error({ err: lastError }, 'indexer start-up failed; retrying');
            await sleep(backoff(failures), abort.signal).catch(() => undefined);
          }
        }
        if (stopped) return;
        if (o.config.solanaWsUrl) {
          ws = subscribeLogs({ common, url: o.config.solanaWsUrl, address: programId, commitment: 'confirmed', onLogs: wake, onSubscribed: wake });
        }
        logger.info({ program: programId, cutoff, backfill_done: backfillDone, tail_from: tailCursor?.signature ?? null }, 'indexer started');
        await Promise.all([backfillLoop(), tailLoop(), repriceLoop()]);
      })();
      loops.push(main);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      triggered.stop();
      abort.abort();
      wake();
      await ws?.close();
      await Promise.allSettled(loops);
      await passChain;
    },
    backfilled: () => backfilledP,
    syncNow: () => triggered.runNow(),
    repriceNow,
  };
}
