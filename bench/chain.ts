import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GAMBA_PROGRAM_ID } from '../src/protocol/index.js';
import { spawnChild } from './children.js';
import { cpuMs, measureThroughput } from './load.js';

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
  /** CPU time (user + system, /proc) of the indexer process over the measured run per game, µs. */
  indexerCpuUsPerGame: number;
  /** Same for the simulator process (serving the answers it rendered ahead). */
  simulatorCpuUsPerGame: number;
  /** Share of one core each process used over the run, % (100 = a whole core). */
  indexerCpuPercent: number;
  simulatorCpuPercent: number;
  /** Seconds the simulator spent rendering its answers ahead, before the run. */
  renderAheadSeconds: number;
  indexerSetup: string;
}

/**
 * Ingest throughput (docs/benchmarks.md target ≥ 5,000 games/s): the simulator (one day of history,
 * `games` settled games, its own process, history pass finished and every getTransaction answer
 * rendered ahead first: `renderAhead`, docs/simulator.md) is backfilled over JSON-RPC by the real
 * indexer (`startIndexing`, its own process) into a fresh SQLite file. Time = from the indexer's
 * start to `backfilled()`; both processes' CPU time (/proc) over that run is reported per game.
 */
export async function measureIngest(o: { games: number; concurrency: number; profileDir?: string; nodeFlags?: string[]; log: (m: string) => void }): Promise<IngestFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'gamba-bench-ingest-'));
  // One directory per process: tsx's loader thread writes its own (small) profile next to the main thread's.
  const prof = (name: string) => [...(o.nodeFlags ?? []), ...(o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(o.profileDir, name)}`] : [])];
  const sim = await spawnChild({
    script: 'bench/entries/simulator.ts',
    args: [JSON.stringify({ seed: 2, days: 1, playsPerDay: o.games, liveRate: 0, renderAhead: true })],
    ready: /^rpc (.*)$/,
    nodeArgs: prof('simulator'),
  });
  try {
    const urls = JSON.parse(sim.ready[1]!) as SimUrls;
    const renderAheadSeconds = Number((await sim.waitLine(/^ready (\d+)/, 3_600_000))[1]) / 1000;
    o.log(`ingest: simulator ready (${o.games} games in one day of history, answers rendered ahead in ${renderAheadSeconds.toFixed(1)} s); indexing over JSON-RPC…`);
    const feeds = Object.fromEntries(urls.mints.filter((m) => m.pythFeedId).map((m) => [m.mint, m.pythFeedId!]));
    const idx = await spawnChild({
      script: 'bench/entries/indexer.ts',
      args: [JSON.stringify({ ...urls, feeds, dbPath: join(dir, 'ingest.db'), concurrency: o.concurrency, backfillDays: 2 })],
      ready: /^start$/,
      timeoutMs: 120_000,
      nodeArgs: prof('indexer'),
    });
    const cpu0 = { idx: cpuMs(idx.pid), sim: cpuMs(sim.pid) };
    const done = await idx.waitLine(/^done (\d+) (\d+) (\d+)$/, 3_600_000);
    const cpu = { idx: cpuMs(idx.pid) - cpu0.idx, sim: cpuMs(sim.pid) - cpu0.sim };
    // SIGTERM: it exits through process.exit (and writes its CPU profile on the way out).
    await idx.stop();
    const [, g, s, ms] = done.map(Number) as [number, number, number, number];
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
      indexerCpuUsPerGame: Math.round((cpu.idx * 1000) / Math.max(1, g)),
      simulatorCpuUsPerGame: Math.round((cpu.sim * 1000) / Math.max(1, g)),
      indexerCpuPercent: Math.round((100 * cpu.idx) / ms),
      simulatorCpuPercent: Math.round((100 * cpu.sim) / ms),
      renderAheadSeconds,
      indexerSetup: 'simulator (answers rendered ahead) and indexer each in their own process; indexer = startIndexing (backfill, finalized, pages of 1,000 signatures committed 10 at a time, batches of 100 getTransaction), SQLite',
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
