import type { Command } from 'commander';
import { loadConfig } from '../../config/index.js';
import { createCommon, createLogger } from '../../core/index.js';
import { createStore } from '../../store/index.js';

/**
 * `gamba-analytics rollups rebuild` (docs/design.md §7; docs/benchmarks.md): recomputes every rollup and counter
 * from the raw events of the DATABASE_URL store, in one transaction (readers keep seeing the
 * old rollups until it commits). Stop the indexer first on SQLite: the rebuild holds the write
 * lock for its whole run.
 */
export function registerRollups(program: Command): void {
  const rollups = program.command('rollups').description('derived tables (rollups and counters)');
  rollups
    .command('rebuild')
    .description('recompute every rollup and counter from raw events, in one transaction')
    .action(async () => {
      const config = loadConfig();
      const common = createCommon({ logger: createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, destination: process.stderr }) });
      const store = await createStore({ common, config: config.store });
      try {
        const t0 = Date.now();
        await store.rebuildRollups();
        const c = await store.queries.counts();
        process.stdout.write(`Rebuilt rollups from ${c.totalGames} games and ${c.totalPoolChanges} pool changes in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n`);
      } finally {
        await store.close();
      }
    });
}
