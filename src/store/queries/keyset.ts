import { AppError } from '../../core/index.js';
import type { KeysetPosition, KeyValue, SettledGamesOrderBy } from '../types.js';

/**
 * The key of each keyset-paged listing (docs/design.md §4 cursor extension; docs/architecture.md
 * "Bounded reads"): its columns in order, from the ordering key to the last tie-breaker. A
 * `KeysetPosition` holds one value per column; the API validates and encodes positions with the
 * value kinds below (`keysetKinds`), the queries check them again before building SQL.
 */
export const GAME_KEYS: Record<SettledGamesOrderBy, readonly ('multiplier_bps' | 'usd_profit' | 'time_ms' | 'signature' | 'event_index')[]> = {
  time: ['time_ms', 'signature', 'event_index'],
  multiplier: ['multiplier_bps', 'time_ms', 'signature', 'event_index'],
  usd_profit: ['usd_profit', 'time_ms', 'signature', 'event_index'],
};

/** `/events/poolChanges` key: newest first by (time, signature, event index). */
export const POOL_CHANGE_KEYS = ['time_ms', 'signature', 'event_index'] as const;

/**
 * The kind of each value of a position: `string`, `number` (a finite double: USD), or `integer`
 * (a safe integer: ms, bps, event index — the integer columns would reject anything else, so a
 * crafted cursor must be refused before it reaches the database).
 */
export type KeyKind = 'number' | 'integer' | 'string';

const kindOf = (column: string): KeyKind => (column === 'signature' || column === 'pool' ? 'string' : column === 'usd_profit' ? 'number' : 'integer');

/** The listings paged by keyset (docs/design.md §4 cursor extension). */
export type KeysetListing = 'settledGames' | 'poolChanges' | 'pools' | 'players' | 'platforms' | 'tokens' | 'coverageDiffs';

/**
 * Value kinds of each listing's position: settledGames by ordering (`orderBy`, ignored by the
 * others), poolChanges, pools, platforms and tokens (the sort key, then the address), players (the
 * sort value as the database's text — exact on PostgreSQL's numeric token sums — then the player),
 * coverageDiffs (the UTC day number, then the signature: docs/design.md "Coverage and reconciliation").
 */
export function keysetKinds(listing: KeysetListing, orderBy: SettledGamesOrderBy = 'time'): KeyKind[] {
  if (listing === 'settledGames') return GAME_KEYS[orderBy].map(kindOf);
  if (listing === 'poolChanges') return POOL_CHANGE_KEYS.map(kindOf);
  if (listing === 'players') return ['string', 'string'];
  if (listing === 'coverageDiffs') return ['integer', 'string'];
  return ['number', 'string'];
}

/** True when `values` has one value of the right kind per key (KeyKind: strings, finite numbers, safe integers). */
export function matchesKinds(values: readonly unknown[], kinds: readonly KeyKind[]): values is KeyValue[] {
  return (
    values.length === kinds.length &&
    values.every((v, i) =>
      kinds[i] === 'string' ? typeof v === 'string' : typeof v === 'number' && (kinds[i] === 'integer' ? Number.isSafeInteger(v) : Number.isFinite(v)),
    )
  );
}

/**
 * The values of `after`, checked against the listing's key. A mismatch is the caller's bug (the
 * API decodes cursors with `keysetKinds`): throws AppError INVALID_KEYSET, which the API answers as 500.
 */
export function positionValues(after: KeysetPosition, kinds: readonly KeyKind[]): KeyValue[] {
  if (!matchesKinds(after.values, kinds)) {
    throw new AppError('INVALID_KEYSET', `keyset position does not match the listing's key (${kinds.join(', ')})`, { details: { kinds: [...kinds] } });
  }
  return after.values;
}
