// The real indexer in its own process, backfilling the benchmark's simulator into a fresh
// SQLite file. argv[2]: JSON { rpcUrl, hermesUrl, jupiterUrl, feeds, dbPath, concurrency, backfillDays }.
// Prints `start` when the indexer starts (the measured run begins), then `done <games> <signatures> <ms>`
// when the backfill reached its cutoff, and exits on SIGTERM (the bench reads this process's CPU
// time from /proc in between).
import { loadConfig } from '../../src/config/index.js';
import { createCommon, createLogger } from '../../src/core/index.js';
import { indexingOptions } from '../../src/cli/runtime.js';
import { startIndexing } from '../../src/ingest/index.js';
import { createStore } from '../../src/store/index.js';

const a = JSON.parse(process.argv[2]!) as {
  rpcUrl: string;
  hermesUrl: string;
  jupiterUrl: string;
  feeds: Record<string, string>;
  dbPath: string;
  concurrency: number;
  backfillDays: number;
};
const common = createCommon({ logger: createLogger({ level: 'warn' }) });
const config = loadConfig(
  {},
  {
    solanaRpcUrl: a.rpcUrl,
    hermesUrl: a.hermesUrl,
    jupiterUrl: a.jupiterUrl,
    // A loopback simulator, not a provider: no client-side rate cap worth the name.
    rpcMaxRps: 100_000,
    rpcConcurrency: a.concurrency,
    backfillDays: a.backfillDays,
    // The tail has nothing to do here (no live games); keep it out of the way.
    pollIntervalMs: 600_000,
    store: { kind: 'sqlite', path: a.dbPath },
  },
);
const store = await createStore({ common, config: config.store });
process.stdout.write('start\n');
const t0 = performance.now();
const { indexer, close } = await startIndexing(indexingOptions(config, { common, store, feeds: a.feeds, indexer: { progress: 'off' } }));
await indexer.backfilled();
const ms = performance.now() - t0;
const c = await store.queries.counts();
await close();
await store.close();
process.stdout.write(`done ${c.totalGames} ${c.totalSignatures} ${Math.round(ms)}\n`);
// Exit through process.exit so --cpu-prof writes its profile.
process.once('SIGTERM', () => process.exit(0));
setTimeout(() => process.exit(0), 60_000);
