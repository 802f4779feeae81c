import type { Config } from '../config/index.js';
import type { Common } from '../core/index.js';
import { startIndexing, type Indexing, type StartIndexingOptions } from '../ingest/index.js';
import type { Store } from '../store/index.js';
import type { ChainEndpoints } from './simulator-process.js';

/** What `startIndexingRuntime` needs: the common bag, config, a read-write store and, in demo mode, the simulator's endpoints. */
export interface IndexingRuntimeOptions {
  common: Common;
  config: Readonly<Config>;
  store: Store;
  /** The demo chain (a simulator process's endpoints) to index instead of SOLANA_RPC_URL. */
  chain?: ChainEndpoints;
  indexer?: StartIndexingOptions['indexer'];
}

/**
 * The indexer as `index` runs it — on its own, or as the child process of `serve`
 * (docs/architecture.md "Process topology"). With `chain` (demo mode, docs/design.md §1) it
 * indexes the simulator at those endpoints, with the demo's settings.
 */
export async function startIndexingRuntime(o: IndexingRuntimeOptions): Promise<Indexing> {
  let config = o.config;
  const chain = o.chain;
  if (chain) {
    config = {
      ...config,
      solanaRpcUrl: chain.rpcUrl,
      solanaWsUrl: chain.wsUrl,
      hermesUrl: chain.hermesUrl,
      pythApiKey: undefined,
      jupiterUrl: chain.jupiterUrl,
      jupiterApiKey: undefined,
      // A loopback simulator, not a provider: RPC_MAX_RPS's default (sized for public mainnet) would only slow the demo.
      rpcMaxRps: Math.max(config.rpcMaxRps, 10_000),
      // The simulated history is all there is: a cutoff just before it makes progress and ETA honest.
      backfillDays: Math.min(config.backfillDays, chain.days + 1),
    };
  }
  return startIndexing({ common: o.common, config, store: o.store, feeds: chain?.feeds, indexer: o.indexer });
}
