import { AppError, decodeCursor, MS_PER_DAY, type Common } from '../core/index.js';
import { GAMBA_PROGRAM_ID } from '../protocol/index.js';
import type { RpcClient, SignatureInfo } from '../solana/index.js';
import type { CoverageDay, CoverageDiff, CoverageResult, Store } from '../store/index.js';
import { STATE_KEYS } from './checkpoint.js';

/** Seconds per UTC day. */
const S_PER_DAY = MS_PER_DAY / 1000;

/**
 * Most differences a run stores for listing (GET /audit/coverage). A store restored from an old
 * backup can miss millions of signatures; the per-day counts stay exact, the list stops here.
 */
export const MAX_LISTED_DIFFS = 100_000;

/** What `verifyCoverage` takes: the store (read-write: it stores the result), an RPC client (its rate cap applies), an optional day range. */
export interface VerifyOptions {
  common: Common;
  store: Store;
  rpc: RpcClient;
  /** The program whose signatures are walked (default the Gamba v2 program, docs/protocol.md). */
  programId?: string;
  /** First UTC day number to verify (default: the first day of the indexed range). */
  sinceDay?: number;
  /** Last UTC day number to verify (default: the day of the tail's checkpoint). */
  untilDay?: number;
  /** getSignaturesForAddress page size (1..1000, default 1000). */
  pageSize?: number;
  /** false: compute and return without storing (default true). */
  save?: boolean;
  signal?: AbortSignal;
}

/** A verification's result plus what it left out: signatures newer than the tail's checkpoint (not yet indexed, never a gap). */
export interface VerifyOutcome extends CoverageResult {
  /** Chain signatures past the indexed range's newest end (the tail will take them). */
  pending: number;
}

/**
 * The indexed range (docs/design.md "Coverage and reconciliation"), from the indexer's checkpoints
 * (docs/design.md §5): up to the tail's checkpoint (`toSlot`, its signature `tailSignature`) and
 * down to the backfill's cutoff (Unix s) once the backfill is done, else to the slot after its
 * cursor (a partly processed slot is left to the next run). null when nothing is indexed yet.
 */
export async function indexedRange(store: Store): Promise<{ fromSlot: number; toSlot: number; minBlockTime: number; tailSignature: string; sinceDay: number; untilDay: number } | null> {
  const tail = decodeCursor(await store.getState(STATE_KEYS.tailCursor));
  if (!tail) return null;
  const cutoff = Number(await store.getState(STATE_KEYS.backfillCutoff)) || 0;
  const done = Boolean(await store.getState(STATE_KEYS.backfillDone));
  const untilDay = Math.floor((tail.blockTime ?? Date.now() / 1000) / S_PER_DAY);
  if (done) return { fromSlot: 0, toSlot: tail.slot, minBlockTime: cutoff, tailSignature: tail.signature, sinceDay: Math.floor(cutoff / S_PER_DAY), untilDay };
  const back = decodeCursor(await store.getState(STATE_KEYS.backfillCursor));
  if (!back) return null;
  return { fromSlot: back.slot + 1, toSlot: tail.slot, minBlockTime: cutoff, tailSignature: tail.signature, sinceDay: Math.floor((back.blockTime ?? cutoff) / S_PER_DAY), untilDay };
}

/**
 * `gamba-analytics verify` (docs/design.md "Coverage and reconciliation"): walks the program's
 * signatures on chain (getSignaturesForAddress, newest first, at `confirmed` as the tail reads
 * them) over the indexed range and the requested days, and compares each UTC day with the
 * store's processed signatures of that day (`store.queries.coverageSignatures`): counts (all and
 * failed — `err` set — on chain; by kind in the store), gaps (on chain, not in the store) and
 * surpluses (in the store, not on chain), listed by signature. Memory holds one day of
 * signatures at a time. Stores the result (`store.putCoverage`) unless `save` is false.
 * Throws AppError RPC_* / STORE_UNAVAILABLE as the client and the store do; AppError
 * COVERAGE_NOTHING_INDEXED when the store has no checkpoint yet.
 */
export async function verifyCoverage(o: VerifyOptions): Promise<VerifyOutcome> {
  const { store, rpc, common } = o;
  const t0 = common.clock.now();
  const range = await indexedRange(store);
  if (!range) {
    throw new AppError('COVERAGE_NOTHING_INDEXED', 'nothing is indexed yet: run the indexer first (no tail checkpoint in the store)');
  }
  const sinceDay = Math.max(range.sinceDay, o.sinceDay ?? range.sinceDay);
  const untilDay = Math.min(range.untilDay, o.untilDay ?? range.untilDay);
  const programId = o.programId ?? GAMBA_PROGRAM_ID;
  const limit = o.pageSize ?? 1000;
  const days: CoverageDay[] = [];
  const diffs: CoverageDiff[] = [];
  let gaps = 0;
  let surpluses = 0;
  let chainSignatures = 0;
  let storeSignatures = 0;
  let pending = 0;
  // Listed before the tail's checkpoint (newer than it): not indexed yet, on either side.
  const pendingSigs = new Set<string>();
  let seenTail = false;

  // Chain signatures of the days not compared yet (in practice one: days arrive newest first).
  const chainByDay = new Map<number, Map<string, SignatureInfo>>();
  let nextDay = untilDay;
  const flush = async (day: number, chain: Map<string, SignatureInfo>) => {
    const stored = (await store.queries.coverageSignatures({ day, fromSlot: range.fromSlot, toSlot: range.toSlot, minBlockTime: range.minBlockTime })).filter((s) => !pendingSigs.has(s.signature));
    // A day without a signature on either side is complete and says nothing: not recorded (the
    // indexed range starts BACKFILL_DAYS back, often long before the program's first transaction).
    if (chain.size === 0 && stored.length === 0) return;
    const d: CoverageDay = { day, chainTotal: chain.size, chainFailed: 0, storeEvents: 0, storeEmpty: 0, storeFailed: 0, gaps: 0, surpluses: 0, failedMismatches: 0 };
    const inStore = new Map(stored.map((s) => [s.signature, s]));
    for (const s of chain.values()) {
      const failed = s.err !== null && s.err !== undefined;
      if (failed) d.chainFailed++;
      const mine = inStore.get(s.signature);
      if (!mine) {
        d.gaps++;
        if (diffs.length < MAX_LISTED_DIFFS) diffs.push({ day, signature: s.signature, slot: s.slot, side: 'gap', failed });
      } else if ((mine.kind === 'failed') !== failed) d.failedMismatches++;
    }
    for (const s of stored) {
      if (s.kind === 'events') d.storeEvents++;
      else if (s.kind === 'failed') d.storeFailed++;
      else d.storeEmpty++;
      if (!chain.has(s.signature)) {
        d.surpluses++;
        if (diffs.length < MAX_LISTED_DIFFS) diffs.push({ day, signature: s.signature, slot: s.slot, side: 'surplus', failed: s.kind === 'failed' });
      }
    }
    gaps += d.gaps;
    surpluses += d.surpluses;
    chainSignatures += d.chainTotal;
    storeSignatures += stored.length;
    days.push(d);
  };
  /** Flushes every day from `nextDay` down to `downTo` (days without any chain signature included). */
  const flushDownTo = async (downTo: number) => {
    while (nextDay >= downTo && nextDay >= sinceDay) {
      await flush(nextDay, chainByDay.get(nextDay) ?? new Map<string, SignatureInfo>());
      chainByDay.delete(nextDay);
      nextDay--;
    }
  };

  let before: string | undefined;
  walk: for (;;) {
    const page = await rpc.getSignaturesForAddress(programId, { limit, before, commitment: 'confirmed', signal: o.signal });
    for (const s of page) {
      if (!seenTail) {
        if (s.signature === range.tailSignature) seenTail = true;
        else if (s.slot >= range.toSlot) {
          // Newer than the tail's checkpoint: the tail has not taken it yet.
          pending++;
          pendingSigs.add(s.signature);
          continue;
        }
      }
      if (s.slot > range.toSlot) {
        pending++;
        continue;
      }
      if (s.slot < range.fromSlot) break walk;
      // Nodes report null blockTime only for very old slots: such signatures cannot be dated (the indexer skips their events too).
      if (s.blockTime === null || s.blockTime === undefined) continue;
      if (s.blockTime < range.minBlockTime) break walk;
      const day = Math.floor(s.blockTime / S_PER_DAY);
      if (day > untilDay) continue;
      if (day < sinceDay) break walk;
      // Days arrive newest first: every day above this one is complete on the chain side. (Block
      // times follow slots; a signature dated after a day already compared would be counted as
      // that day's gap by no one, so the comparison waits one day: it runs for days ≥ day + 2.)
      if (day + 1 < nextDay) await flushDownTo(day + 2);
      let sigs = chainByDay.get(day);
      if (!sigs) chainByDay.set(day, (sigs = new Map()));
      sigs.set(s.signature, s);
    }
    if (page.length < limit) break;
    before = page[page.length - 1]!.signature;
  }
  await flushDownTo(sinceDay);

  // Newest first; how far back (and forward) every day is complete.
  const clean = (d: CoverageDay) => d.gaps === 0 && d.surpluses === 0 && d.failedMismatches === 0;
  let completeSinceDay: number | null = null;
  for (const d of days) {
    if (!clean(d)) break;
    completeSinceDay = d.day;
  }
  let completeThroughDay: number | null = null;
  for (let i = days.length - 1; i >= 0; i--) {
    if (!clean(days[i]!)) break;
    completeThroughDay = days[i]!.day;
  }
  const result: VerifyOutcome = {
    run: {
      verifiedAtMs: common.clock.now(),
      sinceDay,
      untilDay,
      fromSlot: range.fromSlot,
      toSlot: range.toSlot,
      daysVerified: untilDay - sinceDay + 1,
      completeSinceDay,
      completeThroughDay,
      chainSignatures,
      storeSignatures,
      gaps,
      surpluses,
      listed: diffs.length,
      durationMs: common.clock.now() - t0,
    },
    days,
    diffs,
    pending,
  };
  if (o.save ?? true) await store.putCoverage(result);
  return result;
}
