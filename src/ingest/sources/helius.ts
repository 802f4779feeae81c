import { digestTransaction, type Fetched, type FetchedTx, type IngestContext } from '../batch.js';
import { ADDRESS_TRANSACTIONS_MAX_FULL, type AddressTransaction, type AddressTransactionsQuery, type SignatureInfo } from '../../solana/index.js';
import type { HistoryListing, HistoryPage, HistorySource } from './types.js';

/**
 * HISTORY_SOURCE=helius: Helius `getTransactionsForAddress` (docs/protocol.md §7) with
 * `transactionDetails: 'full'`, `sortOrder: 'desc'`, up to 100 whole transactions per request,
 * failed ones included (`filters.status: 'any'`: their signatures are recorded like the rpc
 * source's), the cutoff as `filters.blockTime.gte`. Within a run pages follow the provider's
 * `paginationToken`; a restart resumes with `filters.slot.lte` = the cursor's slot: that slot's
 * transactions newer than the cursor are already stored and are skipped as known signatures.
 * Cost: ⌈n / 100⌉ requests for n transactions (plus one getSignatureStatuses at a fresh start).
 */
export function createHeliusHistory(ctx: IngestContext, pageSize: number): HistorySource {
  const limit = Math.max(1, Math.min(ADDRESS_TRANSACTIONS_MAX_FULL, pageSize));
  return {
    kind: 'helius',
    pageSize: limit,
    page(from, o): HistoryPage {
      const result = (async () => {
        const q: AddressTransactionsQuery = { sortOrder: 'desc', limit, commitment: 'finalized', signal: ctx.signal, filters: { blockTime: { gte: o.cutoff }, status: 'any' } };
        let topSlot: number | null = null;
        if (from.next) q.paginationToken = from.next;
        else if (from.cursor) q.filters!.slot = { lte: from.cursor.slot };
        else if (o.top) {
          // The top's slot bounds the first page: newer transactions are the tail's.
          [topSlot] = await ctx.rpc.getSignatureSlots([o.top], { signal: ctx.signal });
          if (topSlot !== null) q.filters!.slot = { lte: topSlot };
        }
        const res = await ctx.rpc.getTransactionsForAddress(ctx.programId, q);
        let items = res.data;
        let blocked = false;
        if (topSlot !== null && o.top) {
          // Everything at or below the top's slot is listed after it; a page without it means the provider's index is behind the node.
          const i = items.findIndex((t) => signatureOf(t) === o.top);
          if (i >= 0) items = items.slice(i);
          else if (items.length > 0) blocked = true;
        }
        const firstOld = items.findIndex((t) => t.blockTime !== null && t.blockTime < o.cutoff);
        if (firstOld >= 0) items = items.slice(0, firstOld);
        if (blocked) items = [];
        // The token alone says whether more follows (a page may be short and still not the last).
        const reachedEnd = !blocked && (firstOld >= 0 || res.paginationToken === null);
        const sigs = items.map(signatureInfo);
        const listing: HistoryListing = { sigs, reachedEnd, next: reachedEnd || blocked ? undefined : (res.paginationToken ?? undefined), ...(blocked ? { blocked } : {}) };
        return { listing, items, sigs };
      })();
      const listing = result.then((r) => r.listing);
      const fetched = result.then(async ({ items, sigs }): Promise<Fetched> => {
        const known = sigs.length ? await ctx.store.knownSignatures(sigs.map((s) => s.signature)) : new Set<string>();
        const txs = new Map<string, FetchedTx | null>();
        items.forEach((t, i) => {
          const s = sigs[i]!;
          if (!known.has(s.signature) && (s.err === null || s.err === undefined)) txs.set(s.signature, digestTransaction(t));
        });
        return { sigs, known, txs };
      });
      return { listing, fetched };
    },
    requestsFor: (n) => Math.ceil(n / limit) + 1,
  };
}

const signatureOf = (t: AddressTransaction): string => t.transaction.signatures[0]!;

/** The getSignaturesForAddress-shaped entry of a full item (blockTime Unix seconds). */
function signatureInfo(t: AddressTransaction): SignatureInfo {
  return { signature: signatureOf(t), slot: t.slot, err: t.meta?.err ?? null, memo: null, blockTime: t.blockTime, confirmationStatus: 'finalized' };
}
