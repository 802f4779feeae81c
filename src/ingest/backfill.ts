import { isoMs, sleep } from '../core/index.js';
import type { SignatureInfo } from '../solana/index.js';
import { commit, fetchTransactions, prepare, type Fetched, type IngestContext, type Prepared } from './batch.js';
import { encodeCursor, type Cursor } from '../core/index.js';
import { STATE_KEYS } from './checkpoint.js';

/** Settings of one backfill run (runBackfill). */
export interface BackfillOptions {
  /** Signatures per getSignaturesForAddress page, 1..1000 (default 1000, the RPC maximum). */
  pageSize: number;
  /** Unix seconds: transactions older than this are not indexed (BACKFILL_DAYS ago, fixed at the first start). */
  cutoff: number;
  /** Where to resume (the oldest processed signature), undefined = from the newest finalized one. */
  cursor: Cursor | undefined;
  /**
   * The tail's starting signature (newest finalized at the first start). Without a cursor the
   * backfill's first page starts at it, leaving newer signatures to the tail.
   */
  top?: string;
  /** Wait before asking again after a page stopped at a null transaction, ms. */
  blockedDelayMs: number;
  /**
   * Signatures committed per store transaction: consecutive pages are written together until
   * they hold at least this many (default COMMIT_SIGNATURES). The run's first page, a page that
   * ends the range and one that stops at a null transaction commit what is held at once.
   */
  commitSignatures?: number;
  onProgress?(p: BackfillProgress): void;
}

/** What a backfill run has covered so far, reported after every commit (progress.ts). */
export interface BackfillProgress {
  /** blockTime (s) of the oldest signature processed so far. */
  oldestBlockTime: number | null;
  /** blockTime (s) of the first signature seen by this run (the top of the range). */
  newestBlockTime: number | null;
  signatures: number;
  events: number;
}

interface Page extends Fetched {
  /** The page ended the range: fewer signatures than asked (start of history) or the cutoff reached. */
  reachedEnd: boolean;
}

/**
 * Pages fetched ahead of the one being committed. The store write runs on the event loop
 * (better-sqlite3 is synchronous), so while page N commits, the RPC node can only work on
 * requests already sent: with one page ahead it went idle ≈ 40 % of the ingest benchmark
 * waiting for the next page's requests (docs/benchmarks.md "Ingest"). Two keep it busy; memory
 * stays bounded to three pages of transactions.
 */
const PAGES_AHEAD = 2;

/**
 * Signatures per backfill transaction (docs/indexer.md "Backfill"). A commit writes every page
 * the transaction dirtied to SQLite's WAL, and the game listing indexes, the signature index
 * and the per-player rollups are keyed by player, signature or amount, so a batch touches
 * pages all over them: at one page (≈ 500 games) per transaction the WAL took ≈ 44 KB per game,
 * at ten pages ≈ 9 KB (`bench/write-rate.ts`, docs/benchmarks.md "Ingest"). Ten pages hold
 * ≈ 5,000 games; the checkpoint still moves with every commit, so a crash loses nothing.
 */
export const COMMIT_SIGNATURES = 10_000;

/** One page in the pipeline: its signature list first, its transactions later. */
interface PageTask {
  sigs: Promise<{ sigs: SignatureInfo[]; inRange: SignatureInfo[]; reachedEnd: boolean }>;
  page: Promise<Page>;
  /** The task of the page after this one, started once this one's signatures are known. */
  next?: Promise<PageTask | null>;
}

/**
 * The backfill (docs/design.md §5): pages `getSignaturesForAddress(program, { before, limit, commitment:
 * 'finalized' })` from the newest signature back to `cutoff`, fetches each page's transactions
 * and commits the page's events together with the new cursor (its oldest signature) in one
 * store transaction. The next PAGES_AHEAD pages' signatures and transactions are fetched while
 * the current one is being committed. A page whose transaction comes back null commits up to
 * it, drops the pages fetched ahead and asks again from there. Returns when the range is done
 * or the signal aborts (throws ABORTED).
 */
export async function runBackfill(ctx: IngestContext, o: BackfillOptions): Promise<void> {
  const { logger } = ctx.common;
  const progress: BackfillProgress = { oldestBlockTime: o.cursor?.blockTime ?? null, newestBlockTime: null, signatures: 0, events: 0 };

  // A prefetched page that gets discarded must not surface as an unhandled rejection.
  const quiet = <T>(p: Promise<T>) => {
    p.catch(() => undefined);
    return p;
  };
  const startPage = (before: string | undefined): PageTask => {
    const sigs = quiet(
      (async () => {
        const sigs = await ctx.rpc.getSignaturesForAddress(ctx.programId, { before, limit: o.pageSize, commitment: 'finalized', signal: ctx.signal });
        let inRange: SignatureInfo[] = sigs;
        if (before === undefined && o.top) {
          const i = sigs.findIndex((s) => s.signature === o.top);
          if (i > 0) inRange = sigs.slice(i);
        }
        const firstOld = inRange.findIndex((s) => s.blockTime !== null && s.blockTime < o.cutoff);
        if (firstOld >= 0) inRange = inRange.slice(0, firstOld);
        return { sigs, inRange, reachedEnd: firstOld >= 0 || sigs.length < o.pageSize };
      })(),
    );
    const page = quiet(sigs.then(async (s) => ({ ...(await fetchTransactions(ctx, s.inRange, 'finalized')), reachedEnd: s.reachedEnd })));
    return { sigs, page };
  };
  /** The page after `t` (null when `t` ends the range), started at most once. */
  const follow = (t: PageTask): Promise<PageTask | null> =>
    (t.next ??= quiet(
      t.sigs.then((s) => {
        const last = s.sigs[s.sigs.length - 1];
        return s.reachedEnd || !last ? null : startPage(last.signature);
      }),
    ));
  const prefetch = (t: PageTask, depth: number): void => {
    if (depth <= 0) return;
    void follow(t).then(
      (n) => n && prefetch(n, depth - 1),
      () => undefined,
    );
  };

  const commitSignatures = Math.max(1, o.commitSignatures ?? COMMIT_SIGNATURES);
  let cursor = o.cursor;
  let task = startPage(cursor?.signature);
  /** Pages prepared but not committed yet (their signatures, in order). */
  let held: Prepared | undefined;
  let committed = 0;
  for (;;) {
    const page = await task.page;
    if (progress.newestBlockTime === null) progress.newestBlockTime = page.sigs[0]?.blockTime ?? null;
    if (!page.reachedEnd) prefetch(task, PAGES_AHEAD);

    const p = held ? appendPrepared(held, prepare(page)) : prepare(page);
    const done = !p.blocked && page.reachedEnd;
    // The first page of a run commits alone: the newest games are queryable at once (docs/design.md §5).
    if (!done && !p.blocked && committed > 0 && p.covered < commitSignatures) {
      // Keep the page for the next transaction; its signatures are not checkpointed yet.
      held = p;
      task = await nextTask(task);
      continue;
    }
    held = undefined;
    const state: Record<string, string> = {};
    if (p.last) {
      cursor = { signature: p.last.signature, slot: p.last.slot, blockTime: p.last.blockTime };
      state[STATE_KEYS.backfillCursor] = encodeCursor(cursor);
    }
    if (done) state[STATE_KEYS.backfillDone] = isoMs(ctx.common.clock.now());
    if (p.covered > 0 || done) await commit(ctx, p, state);
    committed++;

    progress.signatures += p.covered;
    progress.events += p.events.length;
    if (p.last?.blockTime != null) progress.oldestBlockTime = p.last.blockTime;
    o.onProgress?.(progress);

    if (done) {
      logger.info({ signatures: progress.signatures, events: progress.events, oldest_block_time: progress.oldestBlockTime }, 'backfill complete');
      return;
    }
    if (p.blocked) {
      // Drop the pages fetched ahead: they start after signatures we still have to commit.
      logger.debug({ before: cursor?.signature }, 'backfill page blocked on a null transaction; asking again');
      await sleep(o.blockedDelayMs, ctx.signal);
      task = startPage(cursor?.signature);
      continue;
    }
    task = await nextTask(task);
  }

  async function nextTask(t: PageTask): Promise<PageTask> {
    const next = await follow(t);
    if (next === null) throw new Error('backfill: a page that did not end the range has no next page');
    return next;
  }
}

/** `b` (the page after `a`) appended to `a`: one transaction's worth of signatures, in order. */
function appendPrepared(a: Prepared, b: Prepared): Prepared {
  for (const e of b.events) a.events.push(e);
  for (const s of b.signatures) a.signatures.push(s);
  for (const [reason, n] of Object.entries(b.skipped)) a.skipped[reason] = (a.skipped[reason] ?? 0) + n;
  return { ...a, covered: a.covered + b.covered, last: b.last ?? a.last, blocked: b.blocked };
}
