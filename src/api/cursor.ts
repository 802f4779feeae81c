import { type KeyKind, type KeysetPosition, type KeyValue, matchesKinds, type SortDirection } from '../store/index.js';
import { invalidParameter } from './errors.js';

/**
 * Keyset cursors (docs/design.md §4 cursor extension): the opaque `cursor` / `nextCursor` text of
 * `/events/settledGames`, `/events/poolChanges`, `/pools`, `/players`, `/platforms` and `/tokens` is base64url JSON `{ o, s, k }` of the
 * ordering (`o`: orderBy or sortBy; `poolChanges` uses `time`), the direction (`s`) and the last row's
 * key values (`k`, the store's KeysetPosition). Opaque to clients; stable while new games arrive.
 */
interface CursorBody {
  o: string;
  s: SortDirection;
  k: KeyValue[];
}

const NOT_A_CURSOR = 'must be a nextCursor value returned by this endpoint';

/** The `nextCursor` text of a listing's next page: ordering `o`, direction `s`, the store's `next` position. */
export function encodeCursor(o: string, s: SortDirection, position: KeysetPosition): string {
  return Buffer.from(JSON.stringify({ o, s, k: position.values } satisfies CursorBody)).toString('base64url');
}

/** `encodeCursor`, or null when the store answered no next position (the last page). */
export function nextCursor(o: string, s: SortDirection, position: KeysetPosition | null): string | null {
  return position === null ? null : encodeCursor(o, s, position);
}

/**
 * A `cursor` parameter → the store's keyset position, for ordering `o`, direction `s` and the
 * listing's key value kinds (store `keysetKinds`). Throws AppError INVALID_PARAMETER (details.parameter
 * 'cursor') when it is not a cursor of this listing, or was issued for another ordering.
 */
export function decodeCursor(cursor: string, o: string, s: SortDirection, kinds: readonly KeyKind[]): KeysetPosition {
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorBody;
  } catch {
    throw invalidParameter('cursor', NOT_A_CURSOR);
  }
  if (!body || typeof body !== 'object' || !Array.isArray(body.k) || !matchesKinds(body.k, kinds)) throw invalidParameter('cursor', NOT_A_CURSOR);
  if (body.o !== o || body.s !== s) throw invalidParameter('cursor', `was issued for orderBy=${body.o}&sorting=${body.s}; repeat those parameters with it`);
  return { values: body.k };
}
