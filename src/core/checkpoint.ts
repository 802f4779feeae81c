/**
 * A position in a program's signature list, the unit of the indexer's checkpoints: the backfill
 * and the tail each keep one in the store's sync-state table, committed with the events it covers
 * (docs/design.md §5). Pure data and its text form, so every layer (the RPC sources, the indexer,
 * the tests) speaks the same type.
 */

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
