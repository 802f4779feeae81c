import { AppError, type Common } from '../core/index.js';
import type { Config } from '../config/index.js';
import { createPriceSources } from '../prices/index.js';
import { createRpcClient, type RpcClient } from '../solana/index.js';
import type { Store } from '../store/index.js';
import { createIndexer, type Indexer, type IndexerOptions } from './indexer.js';

export interface StartIndexingOptions {
  common: Common;
  /** SOLANA_RPC_URL is required here (demo mode's simulator is started by the CLI, which passes its URLs in). */
  config: Readonly<Config>;
  store: Store;
  /** Extra mint → Pyth feed id entries (the simulator's mints in demo mode). */
  feeds?: Readonly<Record<string, string>>;
  /** Passed through to createIndexer (page size, progress mode, intervals). */
  indexer?: Partial<Omit<IndexerOptions, 'common' | 'config' | 'store' | 'rpc' | 'prices'>>;
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
  const indexer = createIndexer({ ...o.indexer, common, config, store, rpc, prices });
  await indexer.start();
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= indexer.stop());
  common.shutdown.register('indexer', close);
  return { indexer, rpc, close };
}
