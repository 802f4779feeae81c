import { type Command, InvalidArgumentError } from 'commander';
import { collectDefaultMetrics } from 'prom-client';
import { buildApp, startMetricsServer, startServer } from '../../api/index.js';
import { type Config, loadConfig } from '../../config/index.js';
import { createCommon, createLogger, type Common } from '../../core/index.js';
// The light entry of ingest: the HTTP process never loads the indexer (docs/architecture.md "Process topology").
import { createIdleSyncController, type SyncController } from '../../ingest/controller.js';
import { createKeyService } from '../../keys/index.js';
import { createStore, type Store } from '../../store/index.js';
import { superviseChild } from '../children.js';
import { forkApiWorkers, isApiWorker } from '../cluster.js';
import { createIndexerMirror, isIndexerRequest, isIndexerUpdate, type IndexerMirror, type IndexerUpdate } from '../indexer-link.js';
import { createConfiguredLimiter } from '../limiter.js';
import { exitOnSignals } from '../process.js';
import { DEMO_SIMULATION, demoStartTime, printDemoBanner, startSimulatorProcess, type SimulatorProcess } from '../simulator-process.js';

interface ServeOptions {
  port?: number;
  host?: string;
  indexer: boolean;
  workers?: number;
}

/**
 * `gamba-analytics serve` (the default of `npm start`; docs/architecture.md "Process topology"):
 * migrates the store, runs the indexer as a supervised child process (`index --supervised`,
 * against SOLANA_RPC_URL, or in demo mode against the built-in simulator, itself a child
 * process), and serves the REST API on HOST:PORT from a read-only store. This process never
 * loads the indexer or the simulator. `--no-indexer` serves the API only, for deployments that
 * run `gamba-analytics index` elsewhere. SIGTERM/SIGINT stop HTTP, then the indexer (its batch
 * commits or rolls back), then the simulator; exit 0.
 */
export function registerServe(program: Command): void {
  program
    .command('serve', { isDefault: true })
    .description('serve the REST API and run the indexer (configuration from the environment: PORT, HOST, DATABASE_URL, SOLANA_RPC_URL, …)')
    .option('--port <port>', 'listen port (overrides PORT)', parsePort)
    .option('--host <host>', 'listen address (overrides HOST)')
    .option('--no-indexer', 'serve the API only (another process runs `gamba-analytics index`)')
    .option('--workers <n>', 'fork N API worker processes sharing the port (node:cluster); this process supervises the indexer and relays its state', parseWorkers)
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

/** How long the indexer child may take to commit or roll back its batch and exit on shutdown, ms (docs/hardening.md: exit within 10 s). */
const INDEXER_STOP_GRACE_MS = 4000;
/** Env var telling an API worker that the primary relays an indexer's state and triggers. */
const RELAY_ENV = 'GAMBA_INDEXER_RELAY';

async function serve(config: Readonly<Config>, withIndexer: boolean, role: { worker?: boolean; workers?: number }): Promise<void> {
  const logger = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY === true });
  const common = createCommon({ logger });
  exitOnSignals(common);
  let demoKey: string | undefined;
  let announced = false;
  try {
    if (role.worker) return await serveWorker(common, config);
    const demo = withIndexer && !config.solanaRpcUrl;
    // 1. Read-write, briefly: migrations, the demo chain's start time and the demo's first key.
    const setup = await prepareStore(common, config, demo);
    demoKey = setup.demoKey;

    // 2. The demo's simulator and the indexer, each in its own process (docs/architecture.md "Process topology").
    let mirror: IndexerMirror | undefined;
    let relay: ((m: IndexerUpdate) => void) | undefined;
    if (withIndexer) {
      let simulator: SimulatorProcess | undefined;
      if (demo) {
        simulator = await startSimulatorProcess({ common, simulation: { startTimeMs: setup.demoStartTimeMs!, ...DEMO_SIMULATION } });
        printDemoBanner(common, simulator.endpoints().rpcUrl);
      }
      const sim = simulator;
      const indexer = superviseChild({
        common,
        name: 'indexer',
        args: () => ['index', '--supervised', ...(sim ? ['--demo-chain', JSON.stringify(sim.endpoints())] : [])],
        onMessage(m) {
          if (!isIndexerUpdate(m)) return;
          mirror!.receive(m);
          relay?.(m);
        },
        onExit: () => mirror!.down(),
      });
      mirror = createIndexerMirror({ common, send: (m) => indexer.send(m) });
      common.shutdown.register('indexer', () => indexer.stop(INDEXER_STOP_GRACE_MS));
      sim?.onRestart(() => indexer.restart());
    }

    // 3. This process's metrics (its event-loop delay among prom-client's defaults) and the indexer child's, on METRICS_PORT.
    collectDefaultMetrics({ register: common.metrics.registry });
    if (config.metricsPort !== undefined) {
      const link = mirror;
      const metrics = await startMetricsServer({ common, port: config.metricsPort, sources: link ? [() => link.metrics()] : [] });
      logger.info({ url: `${metrics.url}/metrics` }, 'Prometheus metrics listening');
    }

    if (role.workers) {
      // Primary of `serve --workers N`: the workers serve HTTP; this process relays between them and the indexer.
      if (!config.redisUrl) {
        logger.warn(
          { workers: role.workers },
          `serve --workers without REDIS_URL: each worker keeps its own rate-limit buckets, so a key may get up to ${role.workers} × its limits (set REDIS_URL to share them)`,
        );
      }
      let lastState: IndexerUpdate | undefined;
      const link = mirror;
      const pool = forkApiWorkers(common, role.workers, config.host, {
        env: link ? { [RELAY_ENV]: '1' } : {},
        onMessage(m, reply) {
          if (!link || !isIndexerRequest(m)) return;
          link.request(m.type).then(
            (answer) => reply({ ...answer, id: m.id }),
            (err: Error) => reply(m.type === 'indexer.trigger' ? { type: 'indexer.triggered', id: m.id, error: err.message } : { type: 'indexer.metrics', id: m.id, metrics: [] }),
          );
        },
        onOnline(send) {
          if (lastState) send(lastState);
        },
      });
      relay = (m) => {
        if (m.type === 'indexer.state') lastState = m;
        if (m.type === 'indexer.state' || m.type === 'indexer.committed') pool.broadcast(m);
      };
      common.shutdown.register('http', () => pool.close());
      const url = await pool.listening;
      logger.info({ url, workers: role.workers, store: config.store.kind, indexer: withIndexer, demo }, 'API listening');
      process.stdout.write(`Gamba Analytics API listening on ${url} (docs: ${url}/docs, dashboard: ${url}/) with ${role.workers} worker processes\n`);
      announceKey(demoKey, url, setup.noKeys);
      announced = true;
      return;
    }

    // 4. HTTP over a read-only store.
    const store = await openApiStore(common, config);
    // Key records are reused for 5 s: no store query per request; a revocation applies within 5 s.
    const keys = createKeyService({ store: store.keys, clock: common.clock, recordTtlMs: 5_000 });
    const limiter = createConfiguredLimiter(common, config);
    const sync = mirror?.sync ?? createIdleSyncController(common.clock);
    const app = await buildApp({ common, store, keys, limiter, sync, events: mirror?.events, options: { cache: { ttlMs: config.cacheTtlMs }, publicUrl: config.publicUrl, stream: { heartbeatMs: config.streamHeartbeatMs, maxPerKey: config.streamMaxPerKey } } });
    const server = await startServer({ app, host: config.host, port: config.port });
    // Registered last, closed first: stop accepting before the indexer, the simulator and the store go away.
    common.shutdown.register('http', () => server.close());
    logger.info({ url: server.url, store: config.store.kind, indexer: withIndexer, demo }, 'API listening');
    process.stdout.write(`Gamba Analytics API listening on ${server.url} (docs: ${server.url}/docs, dashboard: ${server.url}/)\n`);
    announceKey(demoKey, server.url, setup.noKeys);
    announced = true;
  } catch (err) {
    // A demo key minted for a start that failed is still shown once (only its hash is stored).
    if (demoKey && !announced) process.stdout.write(`\nYour API key (shown once, only its hash is stored): ${demoKey}\n`);
    await common.shutdown.close();
    throw err;
  }
}

/**
 * A forked API worker of `serve --workers N`: HTTP only, over a read-only store; the indexer's
 * state and triggers go through the primary when it runs one (RELAY_ENV).
 */
async function serveWorker(common: Common, config: Readonly<Config>): Promise<void> {
  const store = await openApiStore(common, config);
  const keys = createKeyService({ store: store.keys, clock: common.clock, recordTtlMs: 5_000 });
  let sync: SyncController = createIdleSyncController(common.clock);
  let mirror: IndexerMirror | undefined;
  if (process.env[RELAY_ENV] === '1') {
    mirror = createIndexerMirror({
      common,
      send(m) {
        if (!process.connected) return false;
        try {
          return process.send!(m);
        } catch {
          return false;
        }
      },
    });
    const link = mirror;
    process.on('message', (m: unknown) => {
      if (isIndexerUpdate(m)) link.receive(m);
    });
    sync = mirror.sync;
  }
  const limiter = createConfiguredLimiter(common, config);
  const app = await buildApp({ common, store, keys, limiter, sync, events: mirror?.events, options: { cache: { ttlMs: config.cacheTtlMs }, publicUrl: config.publicUrl, stream: { heartbeatMs: config.streamHeartbeatMs, maxPerKey: config.streamMaxPerKey } } });
  const server = await startServer({ app, host: config.host, port: config.port });
  common.shutdown.register('http', () => server.close());
  common.logger.info({ url: server.url, worker_pid: process.pid, indexer_relay: mirror !== undefined }, 'API listening');
}

/**
 * The API's store: read-only (docs/architecture.md "Process topology", "Reader pool"). SQLite
 * queries run on STORE_READERS threads off the event loop; every read answers within
 * STORE_TIMEOUT_MS or fails with STORE_UNAVAILABLE (docs/hardening.md "Store deadline"). Key
 * lookups on this thread's own connection wait at most 250 ms for a lock.
 */
function openApiStore(common: Common, config: Readonly<Config>): Promise<Store> {
  return createStore({ common, config: config.store, access: 'readonly', readers: config.storeReaders, copiesMiB: config.storeCopiesMiB, timeoutMs: config.storeTimeoutMs });
}

/**
 * The read-write part of `serve`, before anything else runs: migrations, the demo chain's start
 * time (docs/architecture.md "Process topology") and, in demo mode on a store without keys, one
 * standard key (only its hash is stored). The store is closed again.
 */
async function prepareStore(common: Common, config: Readonly<Config>, demo: boolean): Promise<{ noKeys: boolean; demoKey?: string; demoStartTimeMs?: number }> {
  const store = await createStore({ common, config: config.store });
  try {
    const noKeys = (await store.keys.count()) === 0;
    if (!demo) return { noKeys };
    const demoStartTimeMs = await demoStartTime(store, common.clock.now());
    if (!noKeys) return { noKeys, demoStartTimeMs };
    const { id, key } = await createKeyService({ store: store.keys, clock: common.clock }).create({ name: 'demo', tier: 'standard' });
    common.logger.info({ key_id: id }, 'minted a demo API key (printed once on stdout)');
    return { noKeys, demoKey: key, demoStartTimeMs };
  } finally {
    await store.close();
  }
}

/**
 * First run: in demo mode a store without keys got one standard key, printed once here with a
 * ready curl line. Elsewhere keys are the operator's call.
 */
function announceKey(demoKey: string | undefined, url: string, noKeys: boolean): void {
  if (demoKey) {
    process.stdout.write(
      [
        '',
        `Your API key (shown once, only its hash is stored): ${demoKey}`,
        'Try it:',
        `  curl -H "X-API-Key: ${demoKey}" ${url}/stats`,
        `  curl -H "X-API-Key: ${demoKey}" ${url}/pools    # every pool: its address is the ?pool= of /pool, /daily, /ratio …`,
        `Dashboard: open ${url}/ in a browser and paste the key (kept in that tab only).`,
        '',
      ].join('\n'),
    );
  } else if (noKeys) {
    process.stdout.write('No API key exists yet: create one with `npx gamba-analytics keys create --name me --tier standard`\n');
  }
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
