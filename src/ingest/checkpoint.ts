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

/** A position in the program's signature list. `blockTime` Unix seconds (null when the node has none). */
export interface Cursor {
  signature: string;
  slot: number;
  blockTime: number | null;
}

/** A cursor as stored in the sync-state table: JSON `{ signature, slot, blockTime }` (read back by decodeCursor). */
export function encodeCursor(c: Cursor): string {
  return JSON.stringify({ signature: c.signature, slot: c.slot, blockTime: c.blockTime });
}

/** undefined for a missing or unreadable value (the indexer then starts that part afresh). */
export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<Cursor>;
    if (typeof v.signature !== 'string' || typeof v.slot !== 'number') return undefined;
    return { signature: v.signature, slot: v.slot, blockTime: typeof v.blockTime === 'number' ? v.blockTime : null };
  } catch {
    return undefined;
  }
}
