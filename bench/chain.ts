import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GAMBA_PROGRAM_ID } from '../src/protocol/index.js';
import { spawnChild } from './children.js';
import { measureThroughput } from './load.js';

interface SimUrls {
  rpcUrl: string;
  hermesUrl: string;
  jupiterUrl: string;
  mints: { mint: string; pythFeedId: string | null }[];
}

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

export interface IngestFigures {
  games: number;
  signatures: number;
  seconds: number;
  gamesPerSec: number;
  txPerSec: number;
  concurrency: number;
  /** Extra node flags of both processes (e.g. --max-semi-space-size=64). */
  nodeFlags: string[];
  simulatorRssBytes: number;
  indexerSetup: string;
}

/**
 * Ingest throughput (docs/benchmarks.md target ≥ 5,000 games/s): the simulator (one day of history,
 * `games` settled games, its own process, history pass finished first) is backfilled over
 * JSON-RPC by the real indexer (`startIndexing`, its own process) into a fresh SQLite file.
 * Time = from the indexer's start to `backfilled()`.
 */
export async function measureIngest(o: { games: number; concurrency: number; profileDir?: string; nodeFlags?: string[]; log: (m: string) => void }): Promise<IngestFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'gamba-bench-ingest-'));
  // One directory per process: tsx's loader thread writes its own (small) profile next to the main thread's.
  const prof = (name: string) => [...(o.nodeFlags ?? []), ...(o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(o.profileDir, name)}`] : [])];
  const sim = await spawnChild({
    script: 'bench/entries/simulator.ts',
    args: [JSON.stringify({ seed: 2, days: 1, playsPerDay: o.games, liveRate: 0 })],
    ready: /^rpc (.*)$/,
    nodeArgs: prof('simulator'),
  });
  try {
    const urls = JSON.parse(sim.ready[1]!) as SimUrls;
    await sim.waitLine(/^ready/);
    o.log(`ingest: simulator ready (${o.games} games in one day of history); indexing over JSON-RPC…`);
    const feeds = Object.fromEntries(urls.mints.filter((m) => m.pythFeedId).map((m) => [m.mint, m.pythFeedId!]));
    const idx = await spawnChild({
      script: 'bench/entries/indexer.ts',
      args: [JSON.stringify({ ...urls, feeds, dbPath: join(dir, 'ingest.db'), concurrency: o.concurrency, backfillDays: 2 })],
      ready: /^done (\d+) (\d+) (\d+)$/,
      timeoutMs: 3_600_000,
      nodeArgs: prof('indexer'),
    });
    // It exits by itself (and writes its CPU profile on the way out); SIGTERM only if it hangs.
    const hang = setTimeout(() => void idx.stop(), 30_000);
    await idx.exited;
    clearTimeout(hang);
    const [, g, s, ms] = idx.ready.map(Number) as [number, number, number, number];
    const seconds = ms / 1000;
    return {
      games: g,
      signatures: s,
      seconds,
      gamesPerSec: Math.round(g / seconds),
      txPerSec: Math.round(s / seconds),
      concurrency: o.concurrency,
      nodeFlags: o.nodeFlags ?? [],
      simulatorRssBytes: sim.rss(),
      indexerSetup: 'simulator and indexer each in their own process; indexer = startIndexing (backfill, finalized, batches of 100 getTransaction), SQLite',
    };
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SimulatorFigures {
  games: number;
  days: number;
  playsPerDay: number;
  /** Spawn → port open, ms (includes Node + tsx start-up). */
  listenMs: number;
  /** Spawn → first getSignaturesForAddress answer, ms. */
  firstSignaturesMs: number;
  /** Spawn → getTransaction of the newest signature answered, ms (waits for the history pass). */
  firstNewestTransactionMs: number;
  /** Spawn → history pass done (`ready()`), ms. */
  readyMs: number;
  rssBytes: number;
  peakRssBytes: number;
  /** Single getTransaction per HTTP request, distinct signatures. */
  getTransaction: { reqPerSec: number; p99: number };
  /** Batches of 100 getTransaction, transactions per second. */
  getTransactionBatch100: { txPerSec: number; p99: number };
}

/** The simulator's own figures at the dataset's size (docs/simulator.md "Scale"). */
export async function measureSimulator(o: { days: number; playsPerDay: number; durationS: number; log: (m: string) => void }): Promise<SimulatorFigures> {
  const t0 = performance.now();
  const sim = await spawnChild({
    script: 'bench/entries/simulator.ts',
    args: [JSON.stringify({ seed: 1, days: o.days, playsPerDay: o.playsPerDay, liveRate: 0 })],
    ready: /^rpc (.*)$/,
  });
  try {
    const listenMs = performance.now() - t0;
    const { rpcUrl } = JSON.parse(sim.ready[1]!) as SimUrls;
    const readyP = sim.waitLine(/^ready/, 3_600_000);
    const first = await rpc<{ signature: string }[]>(rpcUrl, 'getSignaturesForAddress', [GAMBA_PROGRAM_ID, { limit: 1000 }]);
    const firstSignaturesMs = performance.now() - t0;
    await rpc(rpcUrl, 'getTransaction', [first[0]!.signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'finalized' }]);
    const firstNewestTransactionMs = performance.now() - t0;
    await readyP;
    const readyMs = performance.now() - t0;
    o.log(`simulator: history pass done after ${(readyMs / 1000).toFixed(1)} s; measuring getTransaction…`);
    const sigs = first.map((s) => s.signature);
    while (sigs.length < 5000) {
      const page = await rpc<{ signature: string }[]>(rpcUrl, 'getSignaturesForAddress', [GAMBA_PROGRAM_ID, { limit: 1000, before: sigs[sigs.length - 1] }]);
      if (page.length === 0) break;
      sigs.push(...page.map((s) => s.signature));
    }
    const cfg = { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'finalized' };
    const single = sigs.map((s, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'getTransaction', params: [s, cfg] }));
    const batches: string[] = [];
    for (let i = 0; i + 100 <= sigs.length; i += 100) {
      batches.push(JSON.stringify(sigs.slice(i, i + 100).map((s, j) => ({ jsonrpc: '2.0', id: j, method: 'getTransaction', params: [s, cfg] }))));
    }
    const headers = { 'content-type': 'application/json' };
    const a = await measureThroughput({ url: rpcUrl, method: 'POST', bodies: single, headers, durationS: o.durationS, connections: 8 });
    const b = await measureThroughput({ url: rpcUrl, method: 'POST', bodies: batches, headers, durationS: o.durationS, connections: 4 });
    return {
      games: o.days * o.playsPerDay,
      days: o.days,
      playsPerDay: o.playsPerDay,
      listenMs: Math.round(listenMs),
      firstSignaturesMs: Math.round(firstSignaturesMs),
      firstNewestTransactionMs: Math.round(firstNewestTransactionMs),
      readyMs: Math.round(readyMs),
      rssBytes: sim.rss(),
      peakRssBytes: sim.peakRss(),
      getTransaction: { reqPerSec: a.reqPerSec, p99: a.p99 },
      getTransactionBatch100: { txPerSec: b.reqPerSec * 100, p99: b.p99 },
    };
  } finally {
    await sim.stop();
  }
}
