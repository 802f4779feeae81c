/**
 * Writes a fixture's events into a store as the indexer commits them: in batches that never split
 * a transaction, each batch announced on the indexer's event hub (`committed`) the way `serve`
 * relays the indexer's commits to the live streams (docs/design.md §11).
 */
import type { IndexerEventHub } from '../../src/ingest/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import type { Store } from '../../src/store/index.js';
import type { Fixture } from './fixture.js';

/** Writes `events` (in chain order) in batches of about `batchSize`; announces each on `hub` when given. */
export async function writeAnnounced(store: Store, fixture: Fixture, events: LocatedEvent[], hub?: IndexerEventHub, batchSize = 50): Promise<void> {
  const bySig = new Map(fixture.signatures.map((s) => [s.signature, s]));
  for (let i = 0; i < events.length; ) {
    let j = Math.min(i + batchSize, events.length);
    while (j < events.length && events[j]!.signature === events[j - 1]!.signature) j++;
    const batch = events.slice(i, j);
    await store.writeBatch({ events: batch, signatures: [...new Set(batch.map((e) => e.signature))].map((s) => bySig.get(s)!) });
    if (hub) {
      const games = batch.filter((e) => e.name === 'GameSettled').length;
      const newest = batch[batch.length - 1]!;
      hub.emit('committed', { games, poolChanges: batch.length - games, repricedGames: 0, newestSlot: newest.slot, newestTimeMs: newest.blockTime * 1000 });
    }
    i = j;
  }
}
