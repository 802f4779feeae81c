/**
 * Chain order of events as a sortable string: (slot, signature, eventIndex). Within a slot
 * the true block position is not available from getTransaction, so signature (byte-wise
 * string order) breaks ties deterministically. The space separator sorts below every
 * base58 character, so string order of keys equals tuple order. Used by ru_pool_hour.
 */
export function orderKey(slot: number, signature: string, eventIndex: number): string {
  return `${String(slot).padStart(12, '0')} ${signature} ${String(eventIndex).padStart(4, '0')}`;
}
