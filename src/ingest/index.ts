export {
  type CommittedWrite,
  type IndexerEventHub,
  type IndexerEventMap,
  type IndexerEvents,
  type SyncController,
  type SyncState,
  type SyncTrigger,
  createIdleSyncController,
  createIndexerEvents,
} from './controller.js';
export { createTriggeredPasses, type TriggeredPasses } from './sync-passes.js';
export { createIndexer, type Indexer, type IndexerOptions } from './indexer.js';
export { startIndexing, type Indexing, type StartIndexingOptions } from './start.js';
export { STATE_KEYS } from './checkpoint.js';
export { indexedRange, MAX_LISTED_DIFFS, verifyCoverage, type VerifyOptions, type VerifyOutcome } from './verify.js';
export type { ProgressMode } from './progress.js';
export type { BackfillEstimate } from './estimate.js';
export { HISTORY_SOURCES, LIVE_SOURCES, type HistorySource, type HistorySourceKind, type LiveSourceKind, type YellowstoneOptions } from './sources/index.js';
