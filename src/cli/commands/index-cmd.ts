import { type Command, InvalidArgumentError } from 'commander';
import { startMetricsServer } from '../../api/index.js';
import { type Config, loadConfig } from '../../config/index.js';
import { createCommon, createLogger } from '../../core/index.js';
import { createStore } from '../../store/index.js';
import { exitOnSignals } from '../process.js';
import { startIndexingRuntime } from '../runtime.js';

/**
 * `gamba-analytics index`: runs only the indexer (deployments that split API and indexer;
 * docs/indexer.md). SOLANA_RPC_URL is required unless `--simulate` starts the built-in simulator.
 * SIGTERM/SIGINT stop it cleanly: in-flight RPC calls are aborted and the store transaction
 * in progress commits or rolls back as a whole (docs/design.md §9); exit 0.
 */
export function registerIndex(program: Command): void {
  program
    .command('index')
    .description('run only the indexer: backfill, then live tail (configuration from the environment: SOLANA_RPC_URL, DATABASE_URL, BACKFILL_DAYS, …)')
    .option('--simulate', 'index the built-in chain simulator instead of SOLANA_RPC_URL')
    .option('--backfill-days <days>', 'how far back to index (overrides BACKFILL_DAYS)', parseDays)
    .option('--progress <mode>', 'backfill progress: auto (bar on a TTY, log lines otherwise), bar, log, off', 'auto')
    .option('--sim-days <days>', 'with --simulate: days of simulated history', parseDays)
    .option('--sim-plays <n>', 'with --simulate: simulated games per day', parseCount)
    .option('--whales', 'with --simulate: add the BONK whale (seven 1.5·10^18-unit games, exact u64 sums past 2^63)')
    .action(async (opts: { simulate?: boolean; backfillDays?: number; progress: string; simDays?: number; simPlays?: number; whales?: boolean }) => {
      const overrides: Partial<Config> = {};
      if (opts.backfillDays !== undefined) overrides.backfillDays = opts.backfillDays;
      const config = loadConfig(process.env, overrides);
      if (!opts.simulate && !config.solanaRpcUrl) {
        throw new Error('SOLANA_RPC_URL is required for `index` (or pass --simulate to index the built-in simulator)');
      }
      if (!['auto', 'bar', 'log', 'off'].includes(opts.progress)) throw new Error('--progress must be auto, bar, log or off');
      if (opts.whales && !opts.simulate) throw new InvalidArgumentError('--whales needs --simulate');
      const simulator = {
        ...(opts.simDays !== undefined ? { days: opts.simDays } : {}),
        ...(opts.simPlays !== undefined ? { playsPerDay: opts.simPlays } : {}),
        ...(opts.whales ? { whales: true } : {}),
      };
      await runIndexer(config, opts.simulate === true, opts.progress as 'auto', simulator);
    });
}

async function runIndexer(
  config: Readonly<Config>,
  simulate: boolean,
  progress: 'auto' | 'bar' | 'log' | 'off',
  simulator: { days?: number; playsPerDay?: number; whales?: boolean },
): Promise<void> {
  const logger = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY === true });
  const common = createCommon({ logger });
  exitOnSignals(common);
  try {
    const store = await createStore({ common, config: config.store });
    await startIndexingRuntime({ common, config, store, simulate, simulator, indexer: { progress } });
    if (config.metricsPort !== undefined) {
      const metrics = await startMetricsServer({ common, port: config.metricsPort });
      logger.info({ url: `${metrics.url}/metrics` }, 'Prometheus metrics listening');
    }
    logger.info({ store: config.store.kind }, 'indexer running (SIGTERM/SIGINT to stop)');
  } catch (err) {
    await common.shutdown.close();
    throw err;
  }
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 10_000_000) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

function parseDays(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 3650) throw new InvalidArgumentError('must be an integer between 1 and 3650');
  return Number(value);
}
