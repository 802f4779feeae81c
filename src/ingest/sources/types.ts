import type { Cursor } from '../../core/index.js';
import type { Fetched } from '../batch.js';
import type { SignatureInfo } from '../../solana/index.js';

/** HISTORY_SOURCE: how the backfill reads history (docs/indexer.md "Chain sources"). */
export type HistorySourceKind = 'rpc' | 'helius';

/** The history source kinds, for the configuration's schema. */
export const HISTORY_SOURCES: readonly HistorySourceKind[] = ['rpc', 'helius'];

/**
 * Where a history page starts. Within a run the backfill follows `next` (the previous page's
 * continuation, opaque to it); after a restart or a blocked page it starts again from the stored
 * `cursor`; with neither, from the top of the range (`top`, the tail's starting signature).
 */
export interface HistoryFrom {
  next?: string;
  cursor?: Cursor;
}

/** What a page lists: its in-range signatures, newest → oldest, at `finalized`. */
export interface HistoryListing {
  sigs: SignatureInfo[];
  /** The page ended the range: the start of history or the cutoff reached. */
  reachedEnd: boolean;
  /** Continuation for the page after this one (undefined when `reachedEnd`). */
  next: string | undefined;
  /**
   * The source cannot serve this page yet (the top of the range is not listed: a provider's
   * index behind the node): commit nothing, wait and ask again from the cursor.
   */
  blocked?: boolean;
}

/** One page of history: its listing first (the next page can start), its decoded transactions later. */
export interface HistoryPage {
  listing: Promise<HistoryListing>;
  fetched: Promise<Fetched>;
}

/** What a page request needs besides its start. */
export interface HistoryPageOptions {
  /** Unix seconds: transactions older than this are out of range. */
  cutoff: number;
  /** The top of the range (first page of a fresh backfill only): signatures newer than it belong to the tail. */
  top?: string;
}

/**
 * The backfill's seam over the chain (docs/indexer.md "Chain sources"): pages of the program's
 * history, newest → oldest, at `finalized`, with their transactions fetched and decoded. The
 * backfill around it owns checkpoints, commits, retries of blocked pages and progress, so
 * every source gets the same guarantees.
 */
export interface HistorySource {
  readonly kind: HistorySourceKind;
  /** Transactions one page holds at most. */
  readonly pageSize: number;
  /** Starts fetching a page; both promises reject with what the RPC client throws (AppError). */
  page(from: HistoryFrom, o: HistoryPageOptions): HistoryPage;
  /** JSON-RPC requests a backfill of `transactions` transactions costs with this source (fault-free). */
  requestsFor(transactions: number): number;
}
