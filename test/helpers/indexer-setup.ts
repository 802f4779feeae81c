import { createCommon, createLogger, type Clock, type Common } from '../../src/core/index.js';
import { createIndexer, type Indexer, type IndexerOptions } from '../../src/ingest/index.js';
import { createOverridesSource, type OverridesFile, type PriceSource } from '../../src/prices/index.js';
import { createRpcClient } from '../../src/solana/index.js';
import type { HourlyPrice, Store } from '../../src/store/index.js';

/** The fixture's hourly prices as an overrides table (a real price source, fed from the test's truth). */
export function overridesFromPrices(prices: HourlyPrice[]): OverridesFile {
  const table: Record<string, { hours: Record<string, number> }> = {};
  for (const p of prices) (table[p.mint] ??= { hours: {} }).hours[String(p.hourMs)] = p.usdPrice;
  return table;
}

export interface IndexerSetup {
  rpcUrl: string;
  store: Store;
  clock?: Clock;
  prices?: PriceSource;
  overrides?: OverridesFile;
  wsUrl?: string;
  backfillDays?: number;
  pollIntervalMs?: number;
  options?: Partial<IndexerOptions>;
  /** Give one to read its metrics afterwards (clock/logger defaults apply otherwise). */
  common?: Common;
}

/** An indexer over a real RPC endpoint (the ledger or the simulator), fast retries, no progress output. */
export function buildIndexer(s: IndexerSetup): Indexer {
  const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const common = s.common ?? createCommon({ logger, ...(s.clock ? { clock: s.clock } : {}) });
  const rpc = createRpcClient({ common, url: s.rpcUrl, concurrency: 4, maxRps: 100_000, timeoutMs: 5000, retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 8 } });
  const prices = s.prices ?? createOverridesSource({ common, table: s.overrides ?? {} });
  return createIndexer({
    common,
    backfillDays: s.backfillDays ?? 3650,
    pollIntervalMs: s.pollIntervalMs ?? 200,
    wsUrl: s.wsUrl,
    store: s.store,
    rpc,
    prices,
    progress: 'off',
    nullRetryDelayMs: 10,
    errorDelayMs: 20,
    ...s.options,
  });
}

/** Polls `fn` until it returns true (or throws after `timeoutMs`). */
export async function waitFor(fn: () => Promise<boolean> | boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
