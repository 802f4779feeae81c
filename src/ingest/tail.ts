import type { GeyserSlot, SignatureInfo } from '../solana/index.js';
import { commit, digestTransaction, fetchTransactions, prepare, type FetchedTx, type IngestContext } from './batch.js';
import { encodeCursor, type Cursor } from '../core/index.js';
import { STATE_KEYS } from './checkpoint.js';

/** Settings of one tail pass (runTailPass). */
export interface TailPassOptions {
  /** Newest processed signature; undefined = nothing yet (then `cutoff` bounds the walk). */
  cursor: Cursor | undefined;
  /** Unix seconds; only used while there is no cursor. */
  cutoff: number;
  pageSize: number;
}

/** What one tail pass did, and the cursor it left. */
export interface TailPassResult {
  cursor: Cursor | undefined;
  /** Signatures covered by this pass. */
  signatures: number;
  events: number;
  /** A null transaction stopped the pass before the head: the next pass continues from `cursor`. */
  blocked: boolean;
  /** blockTime (s) of the newest event stored by this pass, when any. */
  newestBlockTime: number | null;
}

/**
 * One live-tail pass (docs/design.md §5): polls `getSignaturesForAddress(program, { until: cursor,
 * commitment: 'confirmed' })`, pages back with `before` while full pages arrive, and also stops
 * at a slot below the cursor's (a node silently ignores an `until` it cannot find, and would
 * otherwise walk the whole history). New signatures are processed oldest → newest in chunks of
 * `pageSize`, each committed with the new tail cursor in one store transaction. Signatures of
 * the cursor's own slot may show up again; the store's known-signature check skips them.
 */
export async function runTailPass(ctx: IngestContext, o: TailPassOptions): Promise<TailPassResult> {
  const collected: SignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await ctx.rpc.getSignaturesForAddress(ctx.programId, {
      until: o.cursor?.signature,
      before,
      limit: o.pageSize,
      commitment: 'confirmed',
      signal: ctx.signal,
    });
    let stop = page.length < o.pageSize;
    for (const s of page) {
      if (o.cursor ? s.slot < o.cursor.slot || s.signature === o.cursor.signature : s.blockTime !== null && s.blockTime < o.cutoff) {
        stop = true;
        break;
      }
      collected.push(s);
    }
    if (stop || page.length === 0) break;
    before = page[page.length - 1]!.signature;
  }

  const result: TailPassResult = { cursor: o.cursor, signatures: 0, events: 0, blocked: false, newestBlockTime: null };
  collected.reverse();
  for (let i = 0; i < collected.length; i += o.pageSize) {
    const chunk = collected.slice(i, i + o.pageSize);
    const p = prepare(await fetchTransactions(ctx, chunk, 'confirmed'));
    const state: Record<string, string> = {};
    if (p.last) {
      result.cursor = { signature: p.last.signature, slot: p.last.slot, blockTime: p.last.blockTime };
      state[STATE_KEYS.tailCursor] = encodeCursor(result.cursor);
    }
    if (p.covered > 0) await commit(ctx, p, state);
    result.signatures += p.covered;
    result.events += p.events.length;
    for (const e of p.events) result.newestBlockTime = Math.max(result.newestBlockTime ?? 0, e.blockTime);
    if (p.blocked) {
      result.blocked = true;
      break;
    }
  }
  return result;
}

/**
 * Commits one slot pushed by the live stream (LIVE_SOURCE=yellowstone, docs/indexer.md "Chain
 * sources"): its transactions, already fetched and in block order, are decoded and written with
 * the tail cursor in one store transaction, exactly as a tail pass writes a chunk (known
 * signatures skipped, failed ones recorded). The cursor only moves forward: a slot at or below
 * it (already covered by a gap-fill pass) writes what is new and keeps the cursor.
 */
export async function commitStreamSlot(ctx: IngestContext, s: GeyserSlot, cursor: Cursor | undefined): Promise<TailPassResult> {
  const result: TailPassResult = { cursor, signatures: 0, events: 0, blocked: false, newestBlockTime: null };
  if (s.transactions.length === 0) return result;
  const sigs: SignatureInfo[] = s.transactions.map((t) => ({
    signature: t.signature,
    slot: s.slot,
    err: t.meta?.err ?? null,
    memo: null,
    blockTime: t.blockTime,
    confirmationStatus: 'confirmed',
  }));
  const known = await ctx.store.knownSignatures(sigs.map((x) => x.signature));
  const txs = new Map<string, FetchedTx | null>();
  for (const t of s.transactions) if (!known.has(t.signature)) txs.set(t.signature, digestTransaction(t));
  const p = prepare({ sigs, known, txs });
  const state: Record<string, string> = {};
  if (p.last && (!cursor || p.last.slot > cursor.slot)) {
    result.cursor = { signature: p.last.signature, slot: p.last.slot, blockTime: p.last.blockTime };
    state[STATE_KEYS.tailCursor] = encodeCursor(result.cursor);
  }
  if (p.signatures.length > 0 || Object.keys(state).length > 0) await commit(ctx, p, state);
  result.signatures = p.signatures.length;
  result.events = p.events.length;
  for (const e of p.events) result.newestBlockTime = Math.max(result.newestBlockTime ?? 0, e.blockTime);
  return result;
}
