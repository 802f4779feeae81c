import { type Command, InvalidArgumentError } from 'commander';
import { buildApp, startServer } from '../../api/index.js';
import { type Config, loadConfig } from '../../config/index.js';
import { createCommon, createLogger } from '../../core/index.js';
import { createIdleSyncController } from '../../ingest/index.js';
import { createKeyService } from '../../keys/index.js';
import { createMemoryRateLimiter } from '../../ratelimit/index.js';
import { createStore } from '../../store/index.js';

/**
 * `gamba-analytics serve`: opens (and migrates) the store, serves the REST API on HOST:PORT,
 * stops cleanly on SIGTERM/SIGINT (DESIGN §9: stop accepting, finish in-flight requests,
 * close the store, exit 0). Configuration comes from the environment (src/config); flags win.
 */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the REST API (configuration from the environment: PORT, HOST, DATABASE_URL, LOG_LEVEL, …)')
    .option('--port <port>', 'listen port (overrides PORT)', parsePort)
    .option('--host <host>', 'listen address (overrides HOST)')
    .action(async (opts: { port?: number; host?: string }) => {
      const overrides: Partial<Config> = {};
      if (opts.port !== undefined) overrides.port = opts.port;
      if (opts.host !== undefined) overrides.host = opts.host;
      const config = loadConfig(process.env, overrides);
      await serve(config);
    });
}

async function serve(config: Readonly<Config>): Promise<void> {
  const logger = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY === true });
  const common = createCommon({ logger });
  const { shutdown } = common;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    shutdown.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  try {
    // createStore registers its own close step on common.shutdown.
    const store = await createStore({ common, config: config.store });
    const limiter = createMemoryRateLimiter({ clock: common.clock });
    shutdown.register('rate-limiter', () => limiter.close());
    const keys = createKeyService({ store: store.keys, clock: common.clock });
    const sync = createIdleSyncController(common.clock);
    const app = await buildApp({ common, store, keys, limiter, sync });
    const server = await startServer({ app, host: config.host, port: config.port });
    // Registered last, closed first: stop accepting before the store goes away.
    shutdown.register('http', () => server.close());
    logger.info({ url: server.url, store: config.store.kind }, 'API listening');
    process.stdout.write(`Gamba Analytics API listening on ${server.url} (docs: ${server.url}/docs)\n`);
    if ((await store.keys.count()) === 0) {
      process.stdout.write('No API key exists yet: create one with `npx gamba-analytics keys create --name me --tier standard`\n');
    }
  } catch (err) {
    await shutdown.close();
    throw err;
  }
}

/** Commander parser: a TCP port 0..65535 (0 = any free port). */
function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be an integer between 0 and 65535');
  return Number(value);
}
