/**
 * The store's write jobs, one file each: a batch of events with its rollups (batch.ts), the
 * re-pricing of stored games when prices arrive (reprice.ts), and the rebuild of every derived
 * table from raw events (rebuild.ts), and the bulk load's deferred list indexes (bulk.ts).
 */
export { setStateIn, writeBatch } from './batch.js';
export { putPrices } from './reprice.js';
export { putCoverage } from './coverage.js';
export { rebuildRollups, rebuildRollupsIn } from './rebuild.js';
export { deferReadIndexes } from './bulk.js';
