import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { Logger } from '../../core/index.js';
import { storeUnavailable } from '../driver-errors.js';
import type { Queries } from '../types.js';
import { deserializeError, type ReaderAnswer, type ReaderMethod, type ReaderSettings, type ReaderTask } from './protocol.js';

/**
 * SQLite reads off the event loop (docs/architecture.md "Reader pool"): `readers` threads
 * (piscina), each with its own read-only connection running src/store/queries. A query that has
 * not answered within `timeoutMs` (wait for a free thread included) rejects with
 * STORE_UNAVAILABLE (docs/hardening.md "Store deadline"); a running one is abandoned and its
 * thread is free again once SQLite returns (a lock wait ends at the readers' busy timeout).
 */
export interface ReaderPool {
  readonly queries: Queries;
  /** One read of the schema page through a reader, within the deadline (for /ready). */
  ping(): Promise<void>;
  /** Reader threads: how many queries run at once (the API sizes its slots on it). */
  readonly slots: number;
  /**
   * Resolves once every thread has loaded the query module and opened its connection (or failed
   * to: logged, the deadline then answers for it). Loading takes longer than a deadline from
   * TypeScript sources, so a fresh pool would otherwise miss its first deadlines.
   */
  readonly warm: Promise<void>;
  close(): Promise<void>;
}

/** Options of createReaderPool: thread count, the deadline of a query (ms), the logger, and each thread's SQLite settings. */
export interface ReaderPoolOptions extends ReaderSettings {
  readers: number;
  /** Deadline of one query, ms (STORE_TIMEOUT_MS). */
  timeoutMs: number;
  logger: Logger;
}

/** The worker entry next to this module: `worker.js` in dist/bundle/ (or dist/store/readers/), `worker.ts` (through tsx) when running from sources. */
function workerEntry(): { filename: string; execArgv?: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const filename = new URL(`./worker.${fromSource ? 'ts' : 'js'}`, import.meta.url).href;
  if (!fromSource) return { filename };
  // Resolved from this file, not the working directory: tests and tools start from anywhere.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { filename, execArgv: ['--import', tsx] };
}

/** V8 young generation of a reader thread, MiB (Node's default grows to 48 MiB per thread under load). */
const READER_YOUNG_MB = 8;
/** V8 old generation of a reader thread, MiB: modules, prepared statements and one answer at a time. */
const READER_OLD_MB = 256;

/** Longest wait for the threads to load and open their connections at start, ms. */
const WARM_UP_TIMEOUT_MS = 30_000;

/** Every read query, checked against Queries at compile time (a new query cannot be forgotten here). */
const QUERY_METHODS = Object.keys({
  counts: true, freshness: true, stats: true, player: true, players: true, settledGames: true, fairnessAudit: true, poolChanges: true, platforms: true, platformsByPool: true,
  tokens: true, ratio: true, total: true, daily: true, pools: true, pool: true, chartPlays: true, chartDailyUsd: true, chartDaoUsd: true,
  houseEdge: true, biggestWins: true, lpPrice: true, poolReturns: true,
  coverageSignatures: true, coverageSummary: true, coverageReport: true,
} satisfies Record<keyof Queries, true>) as (keyof Queries)[];

/** Starts `readers` threads (piscina) that run `store.queries` on their own `query_only` connections, each query within the deadline (docs/architecture.md "Reader pool"); a late query fails with AppError STORE_UNAVAILABLE. */
export function createReaderPool(o: ReaderPoolOptions): ReaderPool {
  const settings: ReaderSettings = { path: o.path, busyTimeoutMs: o.busyTimeoutMs, cacheMiB: o.cacheMiB, copiesMiB: o.copiesMiB };
  const pool = new Piscina({
    ...workerEntry(),
    workerData: settings,
    minThreads: o.readers,
    maxThreads: o.readers,
    // Threads live as long as the pool: a reader's connection and page cache are its warm state.
    idleTimeout: Number.POSITIVE_INFINITY,
    concurrentTasksPerWorker: 1,
    // A reader's garbage is one query's rows: a small young generation is enough, and each thread's
    // V8 heap then stays small (docs/benchmarks.md "API memory"); the old generation is bounded too.
    resourceLimits: { maxYoungGenerationSizeMb: READER_YOUNG_MB, maxOldGenerationSizeMb: READER_OLD_MB },
  });
  // A thread that dies (it cannot throw: run() returns errors as values) is replaced by piscina.
  pool.on('error', (err: unknown) => o.logger.error({ err }, 'store reader thread failed'));
  let closed = false;
  /** Tasks handed to piscina and not yet finished, abandoned ones included: never more than the threads. */
  let busy = 0;
  /** Tasks waiting for a free thread; a task past its deadline leaves this queue (it never starts). */
  const waiting: (() => void)[] = [];
  const next = () => {
    while (busy < o.readers && waiting.length > 0) waiting.shift()!();
  };

  /**
   * Runs one task on a free thread, answering within `timeoutMs`. A task past its deadline is
   * abandoned, not cancelled: piscina could only terminate its thread, and a thread terminated
   * while inside better-sqlite3 takes the process down (V8 fatal error when the driver throws
   * into a terminating isolate). The thread finishes the statement (a lock wait ends at the
   * readers' busy timeout) and then takes the next task.
   */
  const run = (method: ReaderMethod, args: unknown[], timeoutMs = o.timeoutMs): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (closed) return reject(storeUnavailable('the store is closed'));
      const task: ReaderTask = { method, args };
      let settled = false;
      const start = () => {
        busy++;
        (pool.run(task) as Promise<ReaderAnswer>)
          .then(
            (answer) => {
              if (settled) return;
              settled = true;
              clearTimeout(timer);
              if (answer.ok) resolve(answer.value);
              else reject(deserializeError(answer.error));
            },
            (err: unknown) => {
              if (settled) return;
              settled = true;
              clearTimeout(timer);
              reject(storeUnavailable(`SQLite reader failed (${method}): ${(err as Error)?.message ?? String(err)}`, err));
            },
          )
          .finally(() => {
            busy--;
            next();
          });
      };
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        const queued = waiting.indexOf(start);
        if (queued >= 0) waiting.splice(queued, 1);
        reject(storeUnavailable(`no answer from the SQLite readers within ${timeoutMs} ms (${method}${queued >= 0 ? ', all readers busy' : ''})`));
      }, timeoutMs);
      if (busy < o.readers) start();
      else waiting.push(start);
    });

  const queries = Object.fromEntries(QUERY_METHODS.map((m) => [m, (...args: unknown[]) => run(m, args)])) as unknown as Queries;
  // One ping per thread at once: each thread takes one (concurrentTasksPerWorker 1).
  const warm = Promise.all(Array.from({ length: o.readers }, () => run('ping', [], WARM_UP_TIMEOUT_MS))).then(
    () => undefined,
    (err: unknown) => o.logger.warn({ err }, 'store reader threads did not warm up; reads answer within the deadline or fail'),
  );
  return {
    queries,
    slots: o.readers,
    warm,
    ping: async () => void (await run('ping', [])),
    async close() {
      if (closed) return;
      closed = true;
      await pool.destroy();
    },
  };
}
