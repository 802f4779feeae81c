import type { Common } from '../core/index.js';
import { createPricer, type PriceSource } from '../prices/index.js';
import { GAMBA_PROGRAM_ID } from '../protocol/index.js';
import { subscribeLogs, type LogsSubscription, type RpcClient } from '../solana/index.js';
import type { Store } from '../store/index.js';
import type { IngestContext } from './batch.js';
import type { SyncController, SyncState } from './controller.js';
import { createBackfillLoop, createLoopRun, createRepriceLoop, createTailLoop, loadCheckpoints, toSyncState, type RangeState } from './loops/index.js';
import { createMintRegistry } from './mints.js';
import type { ProgressMode } from './progress.js';
import { createHistorySource, createYellowstoneLive, type HistorySourceKind, type YellowstoneLive, type YellowstoneOptions } from './sources/index.js';
import { createTriggeredPasses } from './sync-passes.js';

/** What createIndexer takes: its dependencies and plain settings (src/cli maps the configuration onto them). */
export interface IndexerOptions {
  common: Common;
  store: Store;
  rpc: RpcClient;
  /** The price-source chain (createPriceSources); results are cached per (mint, hour) in the store. */
  prices: PriceSource;
  /** BACKFILL_DAYS: how far back the backfill goes, days before the first start (or further when raised). */
  backfillDays: number;
  /** POLL_INTERVAL_MS: time between tail passes when nothing wakes the tail earlier, ms. */
  pollIntervalMs: number;
  /** SOLANA_WS_URL: `logsSubscribe` wakes the tail on new program logs; undefined = polling only. */
  wsUrl?: string;
  /** Program to index (default Gamba v2). */
  programId?: string;
  /** getSignaturesForAddress page size and the tail's commit unit, 1..1000 (default 1000); a helius history page holds ≤ 100. */
  pageSize?: number;
  /** HISTORY_SOURCE: how the backfill reads history, `rpc` (default) or `helius` (docs/indexer.md "Chain sources"). */
  historySource?: HistorySourceKind;
  /**
   * LIVE_SOURCE=yellowstone: the tail is fed by a Yellowstone gRPC subscription (YELLOWSTONE_URL,
   * YELLOWSTONE_TOKEN), gap-filled from history on every (re)connection; undefined = polling only
   * (docs/indexer.md "Chain sources").
   */
  yellowstone?: YellowstoneOptions;
  /** RPC_MAX_RPS, requests per second: the backfill's start-up cost estimate is printed at this rate; undefined = no estimate. */
  estimateAtRps?: number;
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

/** A running indexer: its loops, the controller the API sees, and hooks for tests and the CLI. */
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
 * same time without a gap. Every checkpoint is committed with its events. Each loop lives in
 * src/ingest/loops with its own state; this composes them and reads time from `common.clock` only.
 */
export function createIndexer(o: IndexerOptions): Indexer {
  const { common, store, rpc } = o;
  const { logger, clock, metrics } = common;
  const programId = o.programId ?? GAMBA_PROGRAM_ID;
  const pageSize = Math.max(1, Math.min(1000, o.pageSize ?? 1000));
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
  const run = createLoopRun(ctx, o.errorDelayMs ?? 1000);
  const range: RangeState = { cutoff: 0, tailStart: undefined };

  const reprice = createRepriceLoop(run, { intervalMs: o.repriceIntervalMs ?? 60_000 });
  const backfill = createBackfillLoop(run, {
    source: createHistorySource(o.historySource ?? 'rpc', ctx, pageSize),
    maxRps: o.estimateAtRps,
    commitSignatures: o.backfillCommitSignatures,
    progress: o.progress ?? 'auto',
    range,
    onDone: () => void reprice.repriceNow().catch(() => undefined),
  });
  const tail = createTailLoop(run, { pageSize, pollIntervalMs: o.pollIntervalMs, range, afterPass: updateLagMetrics });
  const triggered = createTriggeredPasses({ clock, minIntervalMs: o.syncMinIntervalMs ?? 10_000, run: () => tail.enqueuePass('request') });

  function state(): SyncState {
    return toSyncState(clock.now(), { backfill: backfill.state, tail: tail.state, status: run.status, triggeredRunning: triggered.running() });
  }
  function updateLagMetrics() {
    const s = state();
    if (s.lagSlots !== null) metrics.indexerLagSlots.set(s.lagSlots);
    if (s.lagSeconds !== null) metrics.indexerLagSeconds.set(s.lagSeconds);
  }

  /** Start-up (retried with backoff), then the three loops until stop. */
  async function main(): Promise<void> {
    for (let failures = 0; !run.stopped(); failures++) {
      try {
        await loadCheckpoints(run, { backfillDays: o.backfillDays, range, backfill: backfill.state, tail: tail.state });
        backfill.settle();
        break;
      } catch (e) {
        if (run.isAbort(e)) return;
        run.status.lastError = (e as Error).message;
        logger.error({ err: run.status.lastError }, 'indexer start-up failed; retrying');
        await run.pause(run.backoff(failures));
      }
    }
    if (run.stopped()) return;
    if (o.yellowstone) live = createYellowstoneLive(run, tail, o.yellowstone);
    if (o.wsUrl) {
      ws = subscribeLogs({ common, url: o.wsUrl, address: programId, commitment: 'confirmed', onLogs: tail.wake, onSubscribed: tail.wake });
    }
    logger.info({ program: programId, history_source: o.historySource ?? 'rpc', live_source: o.yellowstone ? 'yellowstone' : 'poll', cutoff: range.cutoff, backfill_done: backfill.state.done, tail_from: tail.state.cursor?.signature ?? null }, 'indexer started');
    await Promise.all([backfill.run(), tail.run(), reprice.run(), live?.run()]);
  }

  let ws: LogsSubscription | undefined;
  let live: YellowstoneLive | undefined;
  let running: Promise<void> | undefined;
  return {
    controller: { state, trigger: async () => triggered.trigger() },
    async start() {
      running ??= main();
    },
    async stop() {
      if (run.stopped()) return;
      triggered.stop();
      abort.abort();
      tail.wake();
      live?.close();
      await ws?.close();
      await Promise.allSettled([running]);
      await tail.drained();
    },
    backfilled: () => backfill.backfilled,
    syncNow: () => triggered.runNow(),
    repriceNow: reprice.repriceNow,
  };
}
