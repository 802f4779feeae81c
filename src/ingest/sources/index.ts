/**
 * Chain sources of the indexer (docs/indexer.md "Chain sources"): how the backfill reads
 * history (HISTORY_SOURCE) and how the tail learns of new transactions (LIVE_SOURCE), chosen by
 * configuration behind one seam each.
 */
import type { IngestContext } from '../batch.js';
import { createHeliusHistory } from './helius.js';
import { createRpcHistory } from './rpc.js';
import type { HistorySource, HistorySourceKind } from './types.js';

export { createHeliusHistory } from './helius.js';
export { createRpcHistory } from './rpc.js';
export { createYellowstoneLive, LIVE_SOURCES, type LiveSourceKind, type YellowstoneLive, type YellowstoneOptions } from './yellowstone.js';
export { HISTORY_SOURCES, type HistoryFrom, type HistoryListing, type HistoryPage, type HistoryPageOptions, type HistorySource, type HistorySourceKind } from './types.js';

/** The history source of `kind` over the ingest context; `pageSize` is the rpc source's signatures per page (helius pages hold ≤ 100). */
export function createHistorySource(kind: HistorySourceKind, ctx: IngestContext, pageSize: number): HistorySource {
  return kind === 'helius' ? createHeliusHistory(ctx, pageSize) : createRpcHistory(ctx, pageSize);
}
