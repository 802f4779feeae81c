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
  indexer?: Partial<StartIndexingOptions['indexer']>;
}

/** What `indexingOptions` adds to the configuration: the process's parts and per-run overrides. */
export interface IndexingParts {
  common: Common;
  store: Store;
  /** Extra mint → Pyth feed id entries (the simulator's mints in demo mode). */
  feeds?: Readonly<Record<string, string>>;
  /** Overrides of createIndexer's settings (page size, progress mode, intervals). */
  indexer?: Partial<StartIndexingOptions['indexer']>;
  leader?: StartIndexingOptions['leader'];
}

/** The configuration mapped onto startIndexing's plain options (ingest does not read the configuration itself). */
export function indexingOptions(config: Readonly<Config>, parts: IndexingParts): StartIndexingOptions {
  return {
    common: parts.common,
    store: parts.store,
    rpc: { url: config.solanaRpcUrl, concurrency: config.rpcConcurrency, maxRps: config.rpcMaxRps },
    prices: {
      hermesUrl: config.hermesUrl,
      pythApiKey: config.pythApiKey,
      jupiterUrl: config.jupiterUrl,
      jupiterApiKey: config.jupiterApiKey,
      overridesFile: config.priceOverridesFile,
      feeds: parts.feeds,
    },
    indexer: {
      backfillDays: config.backfillDays,
      pollIntervalMs: config.pollIntervalMs,
      historySource: config.historySource,
      ...(config.liveSource === 'yellowstone' && config.yellowstoneUrl ? { yellowstone: { url: config.yellowstoneUrl, token: config.yellowstoneToken } } : {}),
      wsUrl: config.solanaWsUrl,
      syncMinIntervalMs: config.syncMinIntervalMs,
      ...parts.indexer,
    },
    ...(config.store.kind === 'postgres' ? { postgres: { url: config.store.url, schema: config.store.schema } } : {}),
    ...(parts.leader !== undefined ? { leader: parts.leader } : {}),
  };
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
  return startIndexing(indexingOptions(config, { common: o.common, store: o.store, feeds: chain?.feeds, indexer: o.indexer }));
}
