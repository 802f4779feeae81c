import { AppError, type Common } from '../core/index.js';
import type { Config } from '../config/index.js';
import { createPriceSources } from '../prices/index.js';
import { createRpcClient, type RpcClient } from '../solana/index.js';
import type { Store } from '../store/index.js';
import { createIndexer, type Indexer, type IndexerOptions } from './indexer.js';
import { createLeaderElection, type LeaderElection } from './leader.js';

export interface StartIndexingOptions {
  common: Common;
  /** SOLANA_RPC_URL is required here (demo mode's simulator is started by the CLI, which passes its URLs in). */
  config: Readonly<Config>;
  store: Store;
  /** Extra mint → Pyth feed id entries (the simulator's mints in demo mode). */
  feeds?: Readonly<Record<string, string>>;
  /** Passed through to createIndexer (page size, progress mode, intervals). */
  indexer?: Partial<Omit<IndexerOptions, 'common' | 'config' | 'store' | 'rpc' | 'prices'>>;
  /**
   * PostgreSQL stores: leader election (docs/deployment.md) — the indexer runs only while this process
   * holds the leader lock (src/ingest/leader.ts). `false` turns it off. Ignored for SQLite.
   */
  leader?: false | { pollIntervalMs?: number; heartbeatMs?: number; onChange?: (role: 'standby' | 'leader') => void };
}

export interface Indexing {
  indexer: Indexer;
  rpc: RpcClient;
  /** Stops the indexer (also registered with common.shutdown). */
  close(): Promise<void>;
}

/**
 * Builds the RPC client, the price-source chain and the indexer from the configuration and
 * starts it; registers its stop step with `common.shutdown`. Used by `serve` and `index`.
 * Throws AppError CONFIG_INVALID when SOLANA_RPC_URL is not set.
 */
export async function startIndexing(o: StartIndexingOptions): Promise<Indexing> {
  const { common, config, store } = o;
  if (!config.solanaRpcUrl) throw new AppError('CONFIG_INVALID', 'SOLANA_RPC_URL is required to index a chain (or run the demo without it via `serve`, or `index --simulate`)');
  const rpc = createRpcClient({
    common,
    url: config.solanaRpcUrl,
    concurrency: config.rpcConcurrency,
    maxRps: config.rpcMaxRps,
    timeoutMs: 30_000,
  });
  const prices = createPriceSources({
    common,
    hermesUrl: config.hermesUrl,
    pythApiKey: config.pythApiKey,
    jupiterUrl: config.jupiterUrl,
    jupiterApiKey: config.jupiterApiKey,
    overridesFile: config.priceOverridesFile,
    feeds: o.feeds,
  });
  const make = () => createIndexer({ syncMinIntervalMs: config.syncMinIntervalMs, ...o.indexer, common, config, store, rpc, prices });
  const leader = o.leader === false ? undefined : o.leader ?? {};
  const indexer =
    leader && store.dialect === 'postgres' && config.store.kind === 'postgres'
      ? createElectedIndexer(common, make, createLeaderElection({ common, url: config.store.url, schema: config.store.schema, ...leader }), leader.onChange)
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
function createElectedIndexer(common: Common, make: () => Indexer, election: LeaderElection, onChange?: (role: 'standby' | 'leader') => void): Indexer {
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
