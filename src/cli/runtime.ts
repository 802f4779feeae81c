import type { Config } from '../config/index.js';
import { systemClock, type Common } from '../core/index.js';
import { startIndexing, type Indexer, type IndexerOptions } from '../ingest/index.js';
import { startSimulator } from '../simulator/index.js';
import type { Store } from '../store/index.js';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/**
 * The demo's simulated history: 90 days × 500 games/day (~90k transactions) backfills in a few
 * minutes on a laptop while the newest games are queryable within seconds (the backfill goes
 * newest first); the simulator's own default (365 days × 3000/day) would take an hour and GBs.
 */
export const DEMO_SIMULATION = { days: 90, playsPerDay: 500 } as const;

export interface IndexingRuntimeOptions {
  common: Common;
  config: Readonly<Config>;
  store: Store;
  /**
   * 'auto' (default): start the built-in simulator when SOLANA_RPC_URL is unset (demo mode,
   * docs/design.md §1); true: always index the simulator; false: require SOLANA_RPC_URL.
   */
  simulate?: boolean | 'auto';
  /** Options for the demo simulator (seed, days, liveRate…), over DEMO_SIMULATION. */
  simulator?: Parameters<typeof startSimulator>[0];
  indexer?: Partial<Omit<IndexerOptions, 'common' | 'config' | 'store' | 'rpc' | 'prices'>>;
}

export interface IndexingRuntime {
  indexer: Indexer;
  /** Present in demo mode. */
  simulator?: Simulator;
  /** Stops the indexer, then the simulator (both are also registered with common.shutdown). */
  close(): Promise<void>;
}

/**
 * The indexer as `serve` and `index` run it. In demo mode it first starts the chain simulator
 * on a loopback port (RPC, WebSocket, Hermes- and Jupiter-compatible price endpoints) and
 * points the indexer at it, printing a banner that says so and how to index mainnet instead.
 */
export async function startIndexingRuntime(o: IndexingRuntimeOptions): Promise<IndexingRuntime> {
  const { common } = o;
  const demo = o.simulate === true || ((o.simulate ?? 'auto') === 'auto' && !o.config.solanaRpcUrl);
  let config = o.config;
  let simulator: Simulator | undefined;
  let feeds: Record<string, string> | undefined;
  if (demo) {
    // The simulated chain is a function of (seed, start time): the start time is kept in the
    // store, so a restarted demo serves the same chain (its history, then the live games since
    // on the wall clock) instead of a different chain mixed into the same store.
    const startKey = 'demo.simulator_start_ms';
    const stored = await o.store.getState(startKey);
    const startTimeMs = stored !== undefined ? Number(stored) : common.clock.now();
    if (stored === undefined) await o.store.setState({ [startKey]: String(startTimeMs) });
    const simOptions = { port: 0, ...DEMO_SIMULATION, startTimeMs, clock: systemClock, ...o.simulator };
    simulator = await startSimulator(simOptions);
    const sim = simulator;
    common.shutdown.register('simulator', () => sim.stop());
    config = {
      ...config,
      solanaRpcUrl: sim.rpcUrl,
      solanaWsUrl: sim.wsUrl,
      hermesUrl: sim.hermesUrl,
      pythApiKey: undefined,
      jupiterUrl: sim.jupiterUrl,
      jupiterApiKey: undefined,
      // A loopback simulator, not a provider: RPC_MAX_RPS's default (sized for public mainnet) would only slow the demo.
      rpcMaxRps: Math.max(config.rpcMaxRps, 10_000),
      // The simulated history is all there is: a cutoff just before it makes progress and ETA honest.
      backfillDays: Math.min(config.backfillDays, (simOptions.days ?? DEMO_SIMULATION.days) + 1),
    };
    feeds = Object.fromEntries(sim.mints.filter((m) => m.pythFeedId).map((m) => [m.mint, m.pythFeedId!]));
    printDemoBanner(common, sim.rpcUrl);
  }
  const { indexer, close: closeIndexer } = await startIndexing({ common, config, store: o.store, feeds, indexer: o.indexer });
  return {
    indexer,
    simulator,
    async close() {
      await closeIndexer();
      await simulator?.stop();
    },
  };
}

function printDemoBanner(common: Common, rpcUrl: string): void {
  common.logger.warn({ rpc_url: rpcUrl }, 'demo mode: indexing the built-in chain simulator (set SOLANA_RPC_URL to index mainnet)');
  process.stdout.write(
    [
      '',
      '┌──────────────────────────────────────────────────────────────────────────┐',
      '│ DEMO MODE: no SOLANA_RPC_URL is set, so the built-in chain simulator is  │',
      `│ running on ${rpcUrl.padEnd(62)}│`,
      '│ and is being indexed. Its games, players and prices are simulated.       │',
      '│                                                                          │',
      '│ To index the real Gamba program on Solana mainnet instead:               │',
      '│   SOLANA_RPC_URL=https://<your-rpc-provider> PYTH_API_KEY=… npm start    │',
      '│ (use a fresh DATABASE_URL: simulated and real data must not be mixed)    │',
      '└──────────────────────────────────────────────────────────────────────────┘',
      '',
    ].join('\n'),
  );
}
