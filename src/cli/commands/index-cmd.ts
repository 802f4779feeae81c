import { type Command, InvalidArgumentError, Option } from 'commander';
import { startMetricsServer } from '../../api/index.js';
import { type Config, loadConfig } from '../../config/index.js';
import { createCommon, createLogger, type Common } from '../../core/index.js';
import type { SyncController } from '../../ingest/controller.js';
import { createStore } from '../../store/index.js';
import { announceCommits, exposeIndexer, type IndexerUpdate } from '../indexer-link.js';
import { exitOnSignals, exitWithParent } from '../process.js';
import { type ChainEndpoints, DEMO_SIMULATION, demoStartTime, printDemoBanner, startSimulatorProcess } from '../simulator-process.js';

interface IndexFlags {
  simulate?: boolean;
  backfillDays?: number;
  historySource?: 'rpc' | 'helius';
  progress: string;
  simDays?: number;
  simPlays?: number;
  whales?: boolean;
  supervised?: boolean;
  demoChain?: ChainEndpoints;
}

/**
 * `gamba-analytics index`: runs only the indexer (deployments that split API and indexer;
 * docs/indexer.md), and is also what `serve` runs as its indexer child process (`--supervised`,
 * docs/architecture.md "Process topology"). SOLANA_RPC_URL is required unless `--simulate` starts
 * the built-in simulator (in its own child process). SIGTERM/SIGINT stop it cleanly: in-flight
 * RPC calls are aborted and the store transaction in progress commits or rolls back as a whole
 * (docs/design.md §9); exit 0.
 */
export function registerIndex(program: Command): void {
  program
    .command('index')
    .description('run only the indexer: backfill, then live tail (configuration from the environment: SOLANA_RPC_URL, DATABASE_URL, BACKFILL_DAYS, …)')
    .option('--simulate', 'index the built-in chain simulator (started as a child process) instead of SOLANA_RPC_URL')
    .option('--backfill-days <days>', 'how far back to index (overrides BACKFILL_DAYS)', parseDays)
    .addOption(new Option('--history-source <source>', 'how the backfill reads history (overrides HISTORY_SOURCE; docs/indexer.md "Chain sources")').choices(['rpc', 'helius']))
    .option('--progress <mode>', 'backfill progress: auto (bar on a TTY, log lines otherwise), bar, log, off', 'auto')
    .option('--sim-days <days>', 'with --simulate: days of simulated history', parseDays)
    .option('--sim-plays <n>', 'with --simulate: simulated games per day', parseCount)
    .option('--whales', 'with --simulate: add the BONK whale (seven 1.5·10^18-unit games, exact u64 sums past 2^63)')
    // Internal: how `serve` runs its indexer child (src/cli/indexer-link.ts).
    .addOption(new Option('--supervised', 'run as the indexer child process of `serve` (state, commits and triggers over IPC)').hideHelp())
    .addOption(new Option('--demo-chain <json>', 'index this simulator (endpoints as JSON) with the demo settings').argParser(parseChain).hideHelp())
    .action(async (opts: IndexFlags) => {
      const overrides: Partial<Config> = {};
      if (opts.backfillDays !== undefined) overrides.backfillDays = opts.backfillDays;
      if (opts.historySource !== undefined) overrides.historySource = opts.historySource;
      const config = loadConfig(process.env, overrides);
      if (!opts.simulate && !opts.demoChain && !config.solanaRpcUrl) {
        throw new Error('SOLANA_RPC_URL is required for `index` (or pass --simulate to index the built-in simulator)');
      }
      if (!['auto', 'bar', 'log', 'off'].includes(opts.progress)) throw new Error('--progress must be auto, bar, log or off');
      if (opts.whales && !opts.simulate) throw new InvalidArgumentError('--whales needs --simulate');
      if (opts.supervised && typeof process.send !== 'function') throw new Error('--supervised needs an IPC channel to the parent process');
      await runIndexer(config, opts);
    });
}

async function runIndexer(config: Readonly<Config>, opts: IndexFlags): Promise<void> {
  const logger = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY === true });
  const common = createCommon({ logger });
  exitOnSignals(common);
  if (opts.supervised) exitWithParent(common);
  try {
    // Loaded here, not at the top: `serve` (the HTTP process) imports this command's
    // registration and must not load the indexer (docs/architecture.md "Process topology").
    const { startIndexingRuntime } = await import('../runtime.js');
    let store = await createStore({ common, config: config.store });
    const progress = opts.progress as 'auto' | 'bar' | 'log' | 'off';
    let chain = opts.demoChain;
    let simulator: Awaited<ReturnType<typeof startSimulatorProcess>> | undefined;
    if (opts.simulate && !chain) {
      const startTimeMs = await demoStartTime(store, common.clock.now());
      const simulation = { startTimeMs, days: opts.simDays ?? DEMO_SIMULATION.days, playsPerDay: opts.simPlays ?? DEMO_SIMULATION.playsPerDay, whales: opts.whales === true };
      simulator = await startSimulatorProcess({ common, simulation });
      chain = simulator.endpoints();
      printDemoBanner(common, chain.rpcUrl);
    }
    const send = (m: IndexerUpdate) => {
      if (!process.connected) return;
      try {
        process.send!(m);
      } catch {
        /* the parent is gone: exitWithParent stops this process */
      }
    };
    if (opts.supervised) store = announceCommits(store, (write) => send({ type: 'indexer.committed', write }));
    let indexing = await startIndexingRuntime({ common, config, store, chain, indexer: { progress } });
    // A restarted simulator listens on new ports: index it there (resuming from the checkpoints).
    simulator?.onRestart((endpoints) => {
      const previous = indexing;
      void (async () => {
        await previous.close();
        indexing = await startIndexingRuntime({ common, config, store, chain: endpoints, indexer: { progress } });
      })().catch((err: unknown) => logger.error({ err }, 'could not restart the indexer on the restarted simulator'));
    });
    if (opts.supervised) {
      const controller: SyncController = { state: () => indexing.indexer.controller.state(), trigger: () => indexing.indexer.controller.trigger() };
      exposeIndexer({ common, controller, send, onRequest: (fn) => process.on('message', fn) });
    } else if (config.metricsPort !== undefined) {
      await startMetrics(common, config.metricsPort);
    }
    logger.info({ store: config.store.kind, supervised: opts.supervised === true }, 'indexer running (SIGTERM/SIGINT to stop)');
  } catch (err) {
    await common.shutdown.close();
    throw err;
  }
}

async function startMetrics(common: Common, port: number): Promise<void> {
  const metrics = await startMetricsServer({ common, port });
  common.logger.info({ url: `${metrics.url}/metrics` }, 'Prometheus metrics listening');
}

/** `--demo-chain`: the ChainEndpoints JSON `serve` passes to its indexer child. */
function parseChain(value: string): ChainEndpoints {
  let v: Partial<ChainEndpoints>;
  try {
    v = JSON.parse(value) as Partial<ChainEndpoints>;
  } catch {
    throw new InvalidArgumentError('must be JSON');
  }
  if (typeof v.rpcUrl !== 'string' || typeof v.wsUrl !== 'string' || typeof v.hermesUrl !== 'string' || typeof v.jupiterUrl !== 'string' || typeof v.days !== 'number' || typeof v.feeds !== 'object' || v.feeds === null) {
    throw new InvalidArgumentError('must be {rpcUrl, wsUrl, hermesUrl, jupiterUrl, feeds, days}');
  }
  return v as ChainEndpoints;
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 10_000_000) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

function parseDays(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 3650) throw new InvalidArgumentError('must be an integer between 1 and 3650');
  return Number(value);
}
