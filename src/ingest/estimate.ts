import type { IngestContext } from './batch.js';
import type { Cursor } from '../core/index.js';
import type { HistorySource, HistorySourceKind } from './sources/index.js';

/** What a backfill is expected to cost with the configured source, printed at start (docs/indexer.md "Chain sources"). */
export interface BackfillEstimate {
  source: HistorySourceKind;
  /** Transactions left in the range (counted when fewer than one sample, else extrapolated). */
  transactions: number;
  /** JSON-RPC requests they cost with `source`. */
  requests: number;
  /** RPC_MAX_RPS the time assumes, requests per second. */
  maxRps: number;
  /** requests / maxRps: the least time the backfill takes at that cap, seconds. */
  seconds: number;
}

/** Signatures sampled (one getSignaturesForAddress page, the RPC maximum) to measure the program's transaction rate. */
const SAMPLE = 1000;

/**
 * Estimates the rest of a backfill with one getSignaturesForAddress request at `finalized` from
 * the cursor (or the newest signature): the program's transactions per second over the sample,
 * times the seconds left down to `cutoff` (Unix s), priced with the source's requests per
 * transaction (HistorySource.requestsFor). Throws what the RPC client throws.
 */
export async function estimateBackfill(ctx: IngestContext, o: { source: HistorySource; cursor: Cursor | undefined; cutoff: number; maxRps: number }): Promise<BackfillEstimate> {
  const sigs = await ctx.rpc.getSignaturesForAddress(ctx.programId, { before: o.cursor?.signature, limit: SAMPLE, commitment: 'finalized', signal: ctx.signal });
  const inRange = sigs.filter((s) => s.blockTime === null || s.blockTime >= o.cutoff);
  let transactions = inRange.length;
  const newest = inRange[0]?.blockTime;
  const oldest = inRange[inRange.length - 1]?.blockTime;
  if (sigs.length === SAMPLE && inRange.length === sigs.length && newest != null && oldest != null) {
    const span = Math.max(1, newest - oldest);
    transactions = Math.round((inRange.length / span) * Math.max(0, newest - o.cutoff));
  }
  const requests = transactions === 0 ? 0 : o.source.requestsFor(transactions);
  return { source: o.source.kind, transactions, requests, maxRps: o.maxRps, seconds: Math.round(requests / o.maxRps) };
}
