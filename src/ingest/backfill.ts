import { isoMs, sleep } from '../core/index.js';
import { commit, prepare, type Fetched, type IngestContext, type Prepared } from './batch.js';
import { encodeCursor, type Cursor } from '../core/index.js';
import { STATE_KEYS } from './checkpoint.js';
import type { HistoryFrom, HistoryListing, HistorySource } from './sources/index.js';

/** Settings of one backfill run (runBackfill). */
export interface BackfillOptions {
  /** Where pages of history come from (HISTORY_SOURCE: sources/index.ts). */
  source: HistorySource;
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
  /** JSON-RPC requests the indexer's client sent since this run started (batch items one by one, retries included; the tail's polls too). */
  requests: number;
}

interface Page extends Fetched {
  /** The page ended the range: the start of history or the cutoff reached. */
  reachedEnd: boolean;
  /** The source could not serve the page yet (sources/types.ts HistoryListing `blocked`). */
  blocked: boolean;
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

/** One page in the pipeline: its listing first, its transactions later. */
interface PageTask {
  listing: Promise<HistoryListing>;
  page: Promise<Page>;
  /** The task of the page after this one, started once this one's signatures are known. */
  next?: Promise<PageTask | null>;
}

/**
 * The backfill (docs/design.md §5): pages the program's history from the newest signature back to
 * `cutoff` through the configured source (`o.source`: getSignaturesForAddress + getTransaction,
 * or Helius getTransactionsForAddress; docs/indexer.md "Chain sources") at `finalized`, and
 * commits each page's events together with the new cursor (its oldest signature) in one store
 * transaction. The next PAGES_AHEAD pages are fetched while the current one is being committed.
 * A page whose transaction comes back null (or that its source cannot serve yet) commits up to
 * it, drops the pages fetched ahead and asks again from there. Returns when the range is done
 * or the signal aborts (throws ABORTED).
 */
export async function runBackfill(ctx: IngestContext, o: BackfillOptions): Promise<void> {
  const { logger } = ctx.common;
  const progress: BackfillProgress = { oldestBlockTime: o.cursor?.blockTime ?? null, newestBlockTime: null, signatures: 0, events: 0, requests: 0 };
  const requestsAtStart = ctx.rpc.requests;

  // A prefetched page that gets discarded must not surface as an unhandled rejection.
  const quiet = <T>(p: Promise<T>) => {
    p.catch(() => undefined);
    return p;
  };
  const startPage = (from: HistoryFrom): PageTask => {
    const h = o.source.page(from, { cutoff: o.cutoff, top: from.next === undefined && from.cursor === undefined ? o.top : undefined });
    const listing = quiet(h.listing);
    quiet(h.fetched);
    const page = quiet(Promise.all([h.listing, h.fetched]).then(([l, f]) => ({ ...f, reachedEnd: l.reachedEnd, blocked: l.blocked === true })));
    return { listing, page };
  };
  /** The page after `t` (null when `t` ends the range), started at most once. */
  const follow = (t: PageTask): Promise<PageTask | null> =>
    (t.next ??= quiet(t.listing.then((l) => (l.reachedEnd || l.blocked || l.next === undefined ? null : startPage({ next: l.next })))));
  const prefetch = (t: PageTask, depth: number): void => {
    if (depth <= 0) return;
    void follow(t).then(
      (n) => n && prefetch(n, depth - 1),
      () => undefined,
    );
  };

  const commitSignatures = Math.max(1, o.commitSignatures ?? COMMIT_SIGNATURES);
  let cursor = o.cursor;
  let task = startPage({ cursor });
  /** Pages prepared but not committed yet (their signatures, in order). */
  let held: Prepared | undefined;
  let committed = 0;
  for (;;) {
    const page = await task.page;
    if (progress.newestBlockTime === null) progress.newestBlockTime = page.sigs[0]?.blockTime ?? null;
    if (!page.reachedEnd && !page.blocked) prefetch(task, PAGES_AHEAD);

    const own = prepare(page);
    if (page.blocked) own.blocked = true;
    const p = held ? appendPrepared(held, own) : own;
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
    progress.requests = ctx.rpc.requests - requestsAtStart;
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
      task = startPage({ cursor });
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
