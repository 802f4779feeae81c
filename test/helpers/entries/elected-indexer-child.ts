// An indexer process wired as `gamba-analytics index` wires it (startIndexing over the
// environment's configuration mapped by src/cli/runtime.ts, leader election on PostgreSQL), printing its role changes
// ("STANDBY", "LEADER") and "DONE" once the backfill and one tail pass completed.
import { loadConfig } from '../../../src/config/index.js';
import { createCommon, createLogger } from '../../../src/core/index.js';
import { indexingOptions } from '../../../src/cli/runtime.js';
import { startIndexing } from '../../../src/ingest/index.js';
import { createStore } from '../../../src/store/index.js';

const config = loadConfig(process.env);
const common = createCommon({ logger: createLogger({ level: process.env.CHILD_LOG_LEVEL ?? 'warn' }) });
const store = await createStore({ common, config: config.store });
const { indexer } = await startIndexing(
  indexingOptions(config, {
    common,
    store,
    indexer: { pageSize: Number(process.env.PAGE_SIZE ?? 1000), backfillCommitSignatures: Number(process.env.COMMIT_SIGNATURES ?? 10_000), progress: 'off' },
    leader: { pollIntervalMs: Number(process.env.LEADER_POLL_MS ?? 3000), onChange: (role) => process.stdout.write(`${role.toUpperCase()}\n`) },
  }),
);
await indexer.backfilled();
await indexer.syncNow();
process.stdout.write('DONE\n');
await common.shutdown.close();
process.exit(0);
