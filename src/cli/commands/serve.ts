import { type Command, InvalidArgumentError } from 'commander';
import { buildApp, startMetricsServer, startServer } from '../../api/index.js';
import { type Config, loadConfig } from '../../config/index.js';
import { createCommon, createLogger, type Common } from '../../core/index.js';
import { createIdleSyncController, type SyncController } from '../../ingest/index.js';
import { createKeyService, type KeyService } from '../../keys/index.js';
import { createStore } from '../../store/index.js';
import { forkApiWorkers, isApiWorker } from '../cluster.js';
import { createConfiguredLimiter } from '../limiter.js';
import { exitOnSignals } from '../process.js';
import { startIndexingRuntime } from '../runtime.js';

interface ServeOptions {
  port?: number;
  host?: string;
  indexer: boolean;
  workers?: number;
}

/**
 * `gamba-analytics serve` (the default of `npm start`): opens (and migrates) the store, runs
 * the indexer in-process (against SOLANA_RPC_URL, or the built-in simulator when it is unset:
 * demo mode), and serves the REST API on HOST:PORT. `--no-indexer` serves the API only, for
 * deployments that run `gamba-analytics index` elsewhere. SIGTERM/SIGINT stop it cleanly.
 */
export function registerServe(program: Command): void {
  program
    .command('serve', { isDefault: true })
    .description('serve the REST API and run the indexer (configuration from the environment: PORT, HOST, DATABASE_URL, SOLANA_RPC_URL, …)')
    .option('--port <port>', 'listen port (overrides PORT)', parsePort)
    .option('--host <host>', 'listen address (overrides HOST)')
    .option('--no-indexer', 'serve the API only (another process runs `gamba-analytics index`)')
    .option('--workers <n>', 'fork N API worker processes sharing the port (node:cluster); this process runs the indexer', parseWorkers)
    .action(async (opts: ServeOptions) => {
      const overrides: Partial<Config> = {};
      if (opts.port !== undefined) overrides.port = opts.port;
      if (opts.host !== undefined) overrides.host = opts.host;
      const config = loadConfig(process.env, overrides);
      // A forked API worker (serve --workers) re-runs this command: API only, never the indexer.
      if (isApiWorker()) await serve(config, false, { worker: true });
      else await serve(config, opts.indexer, { workers: opts.workers });
    });
}

async function serve(config: Readonly<Config>, withIndexer: boolean, role: { worker?: boolean; workers?: number }): Promise<void> {
  const logger = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY === true });
  const common = createCommon({ logger });
  exitOnSignals(common);
  try {
    // createStore registers its own close step on common.shutdown.
    // Short SQLite lock waits: they block the event loop that also answers HTTP (the indexer retries).
    // An API-only process keeps a small SQLite page cache (hot pages stay in the OS page cache).
    const store = await createStore({ common, config: config.store, busyTimeoutMs: 250, cacheMiB: withIndexer ? 64 : 16 });
    // Key records are reused for 5 s: no store query per request; a revocation applies within 5 s.
    const keys = createKeyService({ store: store.keys, clock: common.clock, recordTtlMs: 5_000 });
    let sync: SyncController = createIdleSyncController(common.clock);
    const demo = withIndexer && !config.solanaRpcUrl;
    if (withIndexer) {
      const runtime = await startIndexingRuntime({ common, config, store });
      sync = runtime.indexer.controller;
    }
    if (config.metricsPort !== undefined && !role.worker) {
      // One listener per host, in the primary (with --workers the workers' HTTP metrics stay in
      // their own processes: docs/deployment.md).
      const metrics = await startMetricsServer({ common, port: config.metricsPort });
      logger.info({ url: `${metrics.url}/metrics` }, 'Prometheus metrics listening');
    }
    if (role.workers) {
      // Primary of `serve --workers N`: the workers serve HTTP; closing them comes first on shutdown.
      const pool = forkApiWorkers(common, role.workers, config.host);
      common.shutdown.register('http', () => pool.close());
      const url = await pool.listening;
      logger.info({ url, workers: role.workers, store: config.store.kind, indexer: withIndexer, demo }, 'API listening');
      process.stdout.write(`Gamba Analytics API listening on ${url} (docs: ${url}/docs) with ${role.workers} worker processes\n`);
      await announceKey(common, keys, url, demo, (await store.keys.count()) === 0);
      return;
    }
    const limiter = createConfiguredLimiter(common, config);
    const app = await buildApp({ common, store, keys, limiter, sync, options: { cache: { ttlMs: config.cacheTtlMs } } });
    const server = await startServer({ app, host: config.host, port: config.port });
    // Registered last, closed first: stop accepting before the indexer and the store go away.
    common.shutdown.register('http', () => server.close());
    logger.info({ url: server.url, store: config.store.kind, indexer: withIndexer, demo, ...(role.worker ? { worker_pid: process.pid } : {}) }, 'API listening');
    if (role.worker) return; // the primary prints the banner and the key once
    process.stdout.write(`Gamba Analytics API listening on ${server.url} (docs: ${server.url}/docs)\n`);
    await announceKey(common, keys, server.url, demo, (await store.keys.count()) === 0);
  } catch (err) {
    await common.shutdown.close();
    throw err;
  }
}

/**
 * First run: in demo mode a store without keys gets one standard key, printed once with a
 * ready curl line (only its hash is stored). Elsewhere keys are the operator's call.
 */
async function announceKey(common: Common, keys: KeyService, url: string, demo: boolean, noKeys: boolean): Promise<void> {
  if (!noKeys) return;
  if (!demo) {
    process.stdout.write('No API key exists yet: create one with `npx gamba-analytics keys create --name me --tier standard`\n');
    return;
  }
  const { id, key } = await keys.create({ name: 'demo', tier: 'standard' });
  common.logger.info({ key_id: id }, 'minted a demo API key (printed once on stdout)');
  process.stdout.write(
    [
      '',
      `Your API key (shown once, only its hash is stored): ${key}`,
      'Try it:',
      `  curl -H "X-API-Key: ${key}" ${url}/stats`,
      `  curl -H "X-API-Key: ${key}" ${url}/pools    # every pool: its address is the ?pool= of /pool, /daily, /ratio …`,
      '',
    ].join('\n'),
  );
}

/** Commander parser: API worker processes, 1..256. */
function parseWorkers(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) throw new InvalidArgumentError('must be an integer between 1 and 256');
  return Number(value);
}

/** Commander parser: a TCP port 0..65535 (0 = any free port). */
function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be an integer between 0 and 65535');
  return Number(value);
}
