/**
 * Checkpoints of the indexer, kept in the store's sync-state table and committed in the same
 * `writeBatch` as the events they cover (docs/design.md §5), so a crash at any moment resumes
 * without loss or duplicate.
 */
export const STATE_KEYS = {
  /** Oldest signature the backfill has processed (its `before` for the next page). */
  backfillCursor: 'ingest.backfill.cursor',
  /** Unix seconds: the backfill stops at transactions older than this (fixed at the first start). */
  backfillCutoff: 'ingest.backfill.cutoff',
  /** ISO time the backfill reached its cutoff (or the start of the program's history). */
  backfillDone: 'ingest.backfill.done',
  /** Newest signature the tail has processed (its `until`). Set to the newest finalized signature when the first backfill starts. */
  tailCursor: 'ingest.tail.cursor',
  /** The signature the tail started from (never changes): the top of the backfill's range. */
  tailStart: 'ingest.tail.start',
} as const;
