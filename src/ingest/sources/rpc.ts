import { fetchTransactions, type IngestContext } from '../batch.js';
import type { SignatureInfo } from '../../solana/index.js';
import type { HistoryListing, HistorySource } from './types.js';

/**
 * HISTORY_SOURCE=rpc, the standard door every node has (Solana RPC docs; docs/protocol.md §1):
 * `getSignaturesForAddress(program, { before, limit: pageSize, commitment: 'finalized' })` lists a page,
 * then one `getTransaction` per signature (in JSON-RPC batches of ≤ 100) fetches it.
 * Cost: ⌈n / pageSize⌉ + n requests for n transactions.
 */
export function createRpcHistory(ctx: IngestContext, pageSize: number): HistorySource {
  return {
    kind: 'rpc',
    pageSize,
    page(from, o) {
      const before = from.next ?? from.cursor?.signature;
      const listing = (async (): Promise<HistoryListing> => {
        const sigs = await ctx.rpc.getSignaturesForAddress(ctx.programId, { before, limit: pageSize, commitment: 'finalized', signal: ctx.signal });
        let inRange: SignatureInfo[] = sigs;
        if (before === undefined && o.top) {
          const i = sigs.findIndex((s) => s.signature === o.top);
          if (i > 0) inRange = sigs.slice(i);
        }
        const firstOld = inRange.findIndex((s) => s.blockTime !== null && s.blockTime < o.cutoff);
        if (firstOld >= 0) inRange = inRange.slice(0, firstOld);
        const reachedEnd = firstOld >= 0 || sigs.length < pageSize;
        const last = sigs[sigs.length - 1];
        return { sigs: inRange, reachedEnd: reachedEnd || !last, next: reachedEnd || !last ? undefined : last.signature };
      })();
      return { listing, fetched: listing.then((l) => fetchTransactions(ctx, l.sigs, 'finalized')) };
    },
    requestsFor: (n) => Math.ceil(n / pageSize) + n,
  };
}
