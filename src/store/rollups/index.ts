/**
 * The store's derived tables (docs/architecture.md "Storage"): their definitions as data
 * (definitions.ts), the in-memory accumulators the write path and the rebuild flush
 * (accumulators.ts), and the per-pool rollup with its TVL (pool.ts).
 */
export * from './definitions.js';
export * from './accumulators.js';
export * from './pool.js';
