import { AppError, type Common } from '../core/index.js';
import { createPriceSources, type PriceSourcesOptions } from '../prices/index.js';
import { createRpcClient, type RpcClient } from '../solana/index.js';
import { createLeaderLock, type LeaderLock, type Store } from '../store/index.js';
import { createIndexer, type Indexer, type IndexerOptions } from './indexer.js';

/** What startIndexing takes: plain settings (src/cli/runtime.ts maps the configuration onto them). */
export interface StartIndexingOptions {
  common: Common;
  store: Store;
  /**
   * The JSON-RPC endpoint: SOLANA_RPC_URL (required here: demo mode's simulator is started by the
   * CLI, which passes its URL in), RPC_CONCURRENCY, RPC_MAX_RPS (requests per second).
   */
  rpc: { url: string | undefined; concurrency: number; maxRps: number };
  /** The price-source chain's settings (HERMES_URL, JUPITER_URL, their keys, PRICE_OVERRIDES_FILE, extra mint → Pyth feed ids). */
  prices: Omit<PriceSourcesOptions, 'common' | 'fetch'>;
  /** createIndexer's settings (BACKFILL_DAYS, POLL_INTERVAL_MS, SOLANA_WS_URL, SYNC_MIN_INTERVAL_MS, page size, progress mode, intervals). */
  indexer: Omit<IndexerOptions, 'common' | 'store' | 'rpc' | 'prices'>;
  /** Where the PostgreSQL store lives (DATABASE_URL without `schema=`, and that schema), for the leader lock; undefined for SQLite. */
  postgres?: { url: string; schema?: string };
  /**
   * PostgreSQL stores: leader election (docs/deployment.md) — the indexer runs only while this process
   * holds the leader lock (src/store/leader-lock.ts). `false` turns it off. Ignored for SQLite.
   */
  leader?: false | { pollIntervalMs?: number; heartbeatMs?: number; onChange?: (role: 'standby' | 'leader') => void };
}

/** A started indexer and its RPC client. */
export interface Indexing {
  indexer: Indexer;
  rpc: RpcClient;
  /** Stops the indexer (also registered with common.shutdown). */
  close(): Promise<void>;
}

/**
 * Builds the RPC client, the price-source chain and the indexer from plain options and starts
 * it; registers its stop step with `common.shutdown`. Used by `serve` and `index` (through
 * src/cli/runtime.ts). Throws AppError CONFIG_INVALID when the RPC URL (SOLANA_RPC_URL) is not set.
 */
export async function startIndexing(o: StartIndexingOptions): Promise<Indexing> {
  const { common, store } = o;
  if (!o.rpc.url) throw new AppError('CONFIG_INVALID', 'SOLANA_RPC_URL is required to index a chain (or run the demo without it via `serve`, or `index --simulate`)');
  const rpc = createRpcClient({
    common,
    url: o.rpc.url,
    concurrency: o.rpc.concurrency,
    maxRps: o.rpc.maxRps,
    timeoutMs: 30_000,
  });
  const prices = createPriceSources({ ...o.prices, common });
  const make = () => createIndexer({ estimateAtRps: o.rpc.maxRps, ...o.indexer, common, store, rpc, prices });
  const leader = o.leader === false ? undefined : o.leader ?? {};
  const indexer =
    leader && store.dialect === 'postgres' && o.postgres
      ? createElectedIndexer(common, make, createLeaderLock({ common, url: o.postgres.url, schema: o.postgres.schema, ...leader }), leader.onChange)
      : make();
  await indexer.start();
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= indexer.stop());
  common.shutdown.register('indexer', close);
  return { indexer, rpc, close };
}

/** What the API sees of a standby: no indexer here (yet). */
const STANDBY_STATE = { syncing: false, lastSync: null, lagSlots: null, lagSeconds: null } as const;

/**
 * An Indexer that runs a fresh inner indexer (`make`) only while this process leads
 * (docs/deployment.md). `start()` returns at once and waits for the lock in the background; when the
 * lock connection is lost the inner indexer is stopped (its store transaction commits or
 * rolls back whole) and the process stands by again. A new leader resumes from the
 * checkpoints in the store, so nothing is lost or written twice.
 */
function createElectedIndexer(common: Common, make: () => Indexer, election: LeaderLock, onChange?: (role: 'standby' | 'leader') => void): Indexer {
  const abort = new AbortController();
  let stopped = false;
  let loop: Promise<void> | undefined;
  let current: { indexer: Indexer; ended: Promise<void> } | undefined;
  let waiters: (() => void)[] = [];
  let stopSignal!: () => void;
  const stoppedP = new Promise<void>((r) => (stopSignal = r));

  async function run(): Promise<void> {
    while (!stopped) {
      onChange?.('standby');
      let leadership;
      try {
        leadership = await election.acquire(abort.signal);
      } catch {
        return; // aborted: stopping
      }
      const indexer = make();
      let endGeneration!: () => void;
      current = { indexer, ended: new Promise<void>((r) => (endGeneration = r)) };
      await indexer.start();
      onChange?.('leader');
      for (const w of waiters) w();
      waiters = [];
      await Promise.race([leadership.lost, stoppedP]);
      current = undefined;
      await indexer.stop();
      endGeneration();
      await leadership.release();
    }
  }

  /** The inner indexer once this process leads (rejects when stopped first). */
  async function leading(): Promise<{ indexer: Indexer; ended: Promise<void> }> {
    for (;;) {
      if (current) return current;
      if (stopped) throw new AppError('ABORTED', 'indexer stopped');
      await new Promise<void>((r) => {
        waiters.push(r);
        void stoppedP.then(r);
      });
    }
  }

  return {
    controller: {
      state: () => current?.indexer.controller.state() ?? { ...STANDBY_STATE },
      // A standby has no indexer to trigger: the leader's own tail loop does the work.
      trigger: async () => current?.indexer.controller.trigger() ?? { passId: 'standby', alreadyRunning: false, scheduled: false, startedAt: common.clock.now() },
    },
    async start() {
      loop ??= run().catch((err: unknown) => common.logger.error({ err }, 'leader-elected indexer failed'));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      abort.abort();
      stopSignal();
      await loop;
    },
    async backfilled() {
      // Across leadership changes: done when some generation completes its backfill.
      for (;;) {
        const g = await leading();
        if (await Promise.race([g.indexer.backfilled().then(() => true), g.ended.then(() => false)])) return;
      }
    },
    syncNow: async () => (await leading()).indexer.syncNow(),
    repriceNow: async () => (await leading()).indexer.repriceNow(),
  };
}
