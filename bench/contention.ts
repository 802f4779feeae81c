// The benchmark's contention phases (docs/benchmarks.md): the API while the indexer backfills
// into the same store, and one key's p99 while another key keeps its whole allowance busy.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { spawnChild, type ApiEntry, type Child } from './children.js';
import type { Dataset } from './dataset.js';
import { latencyOf, latencySamples, measureLatency, type Latency, type LatencySamples } from './load.js';
import type { Operation } from './operations.js';

/** Both phases' target: p99 ≤ 20 ms (under ingest also ≤ 2× the idle p99). */
export const CONTENTION_P99_MS = 20;

interface SimUrls {
  rpcUrl: string;
  hermesUrl: string;
  jupiterUrl: string;
}

export interface UnderIngestRow {
  name: string;
  idle: Latency;
  underIngest: Latency;
  /** underIngest.p99 ÷ idle.p99. */
  ratio: number;
  /** The backfill was still running when this row's last request was answered. */
  ingestRunning: boolean;
  /** Commits of the indexer (a rise of the stored games) seen while this row was measured, over all rounds. */
  commits: number;
  /** ≤ 2× idle and ≤ 20 ms (judged only while the ingest ran). */
  met: boolean;
}

export interface UnderIngestFigures {
  /** Games in the chain the indexer backfills (its own simulator, answers rendered ahead). */
  chainGames: number;
  /** Games the indexer stored of the chain (its backfill given ≤ 2 more minutes after the rows). */
  gamesIngested: number;
  /** Games the indexer stored while the operations were measured, and the rate. */
  gamesDuringRun: number;
  gamesPerSec: number;
  /** Commits of the indexer seen during the measurement (rises of the stored games between rows). */
  commits: number;
  /** Rounds of the idle measurement (each every row, `requests` requests per row), and at most as many under ingest (fewer once the backfill ends). */
  rounds: number;
  /** Whether the backfill was still running when the last operation was measured. */
  ingestCoveredRun: boolean;
  seconds: number;
  rows: UnderIngestRow[];
  /** SQLite only (its `data_version`); null on PostgreSQL, whose commits the phase counts by the stored games alone. */
  writes: WritesBesideTails | null;
  /** Where the indexer wrote: a copy of the SQLite file, or the PostgreSQL dataset's own schema. */
  store: 'sqlite' | 'postgres';
}

/** A write is beside a request when it happened at most this long before the request was sent, or while it was answered (ms). */
export const WRITE_NEAR_MS = 500;

/**
 * Whether the slowest requests under ingest meet the indexer's writes more often than requests
 * do in general: a reader's page cache is emptied when another connection has written, and a
 * checkpoint follows some commits. If the tails came from that, `tailsBesideWrite / tails`
 * would be far above `requestsBesideWrite / requests`.
 */
export interface WritesBesideTails {
  /** Changes of the copy's `PRAGMA data_version` during the measurement, seen by a separate read-only connection polled every 5 ms: each is one committed write of another connection (the indexer's games, prices, progress). */
  writes: number;
  /** Requests under ingest at or above their row's p99. */
  tails: number;
  /** Of those, how many had a write beside them (WRITE_NEAR_MS). */
  tailsBesideWrite: number;
  /** Every request under ingest. */
  requests: number;
  /** Of those, how many had a write beside them: the base rate the tails compare with. */
  requestsBesideWrite: number;
}

/** Counts the requests (and each row's p99-or-slower ones) with a write at `writesAt` (ms since the epoch) beside them. */
function writesBesideTails(rows: LatencySamples[][], writesAt: number[]): WritesBesideTails {
  const out: WritesBesideTails = { writes: writesAt.length, tails: 0, tailsBesideWrite: 0, requests: 0, requestsBesideWrite: 0 };
  for (const samples of rows) {
    const p99 = latencyOf(...samples).p99;
    for (const s of samples) {
      s.times.forEach((ms, i) => {
        const start = s.starts[i]!;
        const beside = writesAt.some((w) => w >= start - WRITE_NEAR_MS && w <= start + ms);
        const tail = Math.round(ms * 100) / 100 >= p99;
        out.requests++;
        out.requestsBesideWrite += Number(beside);
        out.tails += Number(tail);
        out.tailsBesideWrite += Number(tail && beside);
      });
    }
  }
  return out;
}

/**
 * Seconds the idle measurement lasts at least (whole rounds): about three of the indexer's commit
 * intervals at 1M games (4,900 games every 4–5 s), so the same rounds under ingest span commits.
 */
export const UNDER_INGEST_MIN_SECONDS = 15;

/** Most rounds of the measurement (each every row once). */
const UNDER_INGEST_MAX_ROUNDS = 12;

async function getJson(baseUrl: string, path: string, key: string): Promise<any> {
  const res = await fetch(baseUrl + path, { headers: { 'x-api-key': key } });
  return res.json();
}

function copySqlite(from: string, dir: string): string {
  const to = join(dir, 'gamba.db');
  for (const suffix of ['', '-wal']) if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix);
  return to;
}

/**
 * "API under ingest": uncached latency of every operation on a copy of the dataset, first with the
 * API alone (`serve --no-indexer`), then as `serve` runs when it also indexes (`serve` with
 * SOLANA_RPC_URL: the API and the indexer as the CLI wires them, whatever the process topology
 * is) while its indexer backfills a chain of `chainGames` games from its own simulator (one day,
 * answers rendered ahead, so the indexer runs at full speed) into the same SQLite file. The
 * indexer commits in transactions seconds apart, so the rows are measured in rounds (every row
 * `requests` requests per round, new URLs each round): idle until the rounds have lasted
 * UNDER_INGEST_MIN_SECONDS, then as many rounds from the indexer's first commit (fewer if the
 * backfill ends); a short run would otherwise fall between two commits. The commits seen during
 * each row are counted. A SQLite dataset is copied first: the cached file stays as it was built.
 * A PostgreSQL dataset is written in place (its schema is the run's own, dropped at the end), so
 * the caller runs this phase last; there the commits are counted by the stored games alone (no
 * `data_version`: `writes` is null).
 */
export async function measureUnderIngest(o: {
  ds: Dataset;
  ops: Operation[];
  key: string;
  requests: number;
  chainGames: number;
  concurrency: number;
  logLevel: string;
  /** How the API server children run (compiled dist/ or tsx). */
  api: ApiEntry;
  log: (m: string) => void;
}): Promise<UnderIngestFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'gamba-bench-under-ingest-'));
  const headers = { 'x-api-key': o.key };
  let sim: Child | undefined;
  try {
    const path = o.ds.store.kind === 'sqlite' ? copySqlite(o.ds.store.path, dir) : undefined;
    const serveEnv = { DATABASE_URL: path === undefined ? (o.ds.store as { url: string }).url : `sqlite:${path}`, LOG_LEVEL: o.logLevel, CACHE_TTL_MS: '0' };
    const idle = new Map<string, LatencySamples[]>(o.ops.map((op) => [op.name, []]));
    let rounds = 0;
    let before: number;
    const a = await spawnChild({ ...o.api, args: ['serve', '--no-indexer', '--host', '127.0.0.1', '--port', '0'], env: { ...serveEnv, SOLANA_RPC_URL: undefined }, ready: /listening on (http:\/\/[^\s)]+)/ });
    try {
      const t0 = performance.now();
      while (rounds < UNDER_INGEST_MAX_ROUNDS && (rounds === 0 || performance.now() - t0 < UNDER_INGEST_MIN_SECONDS * 1000)) {
        for (const op of o.ops) idle.get(op.name)!.push(await latencySamples(a.ready[1]!, (i) => op.path(i), o.requests, headers, 3, rounds * o.requests));
        rounds++;
      }
      // The copy's games before the indexer runs (the dataset's own).
      before = Number((await getJson(a.ready[1]!, '/sync/status', o.key)).data?.totalGames ?? 0);
    } finally {
      await a.stop();
    }

    o.log(`under ingest: simulator with ${o.chainGames.toLocaleString('en-US')} games, rendering its answers ahead…`);
    sim = await spawnChild({
      script: 'bench/entries/simulator.ts',
      args: [JSON.stringify({ seed: 3, days: 1, playsPerDay: o.chainGames, liveRate: 0, renderAhead: true })],
      ready: /^rpc (.*)$/,
    });
    const urls = JSON.parse(sim.ready[1]!) as SimUrls;
    await sim.waitLine(/^ready/, 3_600_000);
    const b = await spawnChild({
      ...o.api,
      args: ['serve', '--host', '127.0.0.1', '--port', '0'],
      env: {
        ...serveEnv,
        SOLANA_RPC_URL: urls.rpcUrl,
        HERMES_URL: urls.hermesUrl,
        JUPITER_URL: urls.jupiterUrl,
        BACKFILL_DAYS: '2',
        RPC_CONCURRENCY: String(o.concurrency),
        RPC_MAX_RPS: '100000',
      },
      ready: /listening on (http:\/\/[^\s)]+)/,
    });
    try {
      const url = b.ready[1]!;
      const games = async () => Number((await getJson(url, '/sync/status', o.key)).data?.totalGames ?? 0);
      // Measure once the indexer is writing (its first transaction committed).
      for (let waited = 0; (await games()) === before && waited < 120_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
      // Every write to the SQLite copy from before g0 on (writesBesideTails), seen from a
      // connection of its own: each commit the rows count below is among them.
      const Sqlite = (await import('better-sqlite3')).default;
      const probe = path === undefined ? undefined : new Sqlite(path, { readonly: true, fileMustExist: true });
      const writesAt: number[] = [];
      let version = probe?.pragma('data_version', { simple: true });
      const poll = setInterval(() => {
        const v = probe?.pragma('data_version', { simple: true });
        if (v !== version) (version = v, writesAt.push(performance.timeOrigin + performance.now()));
      }, 5);
      const g0 = await games();
      const t0 = performance.now();
      const under = new Map<string, { samples: LatencySamples[]; commits: number; running: boolean }>(o.ops.map((op) => [op.name, { samples: [], commits: 0, running: true }]));
      let seen = g0;
      let commits = 0;
      let syncing = true;
      for (let r = 0; r < rounds && syncing; r++) {
        for (const op of o.ops) {
          const row = under.get(op.name)!;
          row.samples.push(await latencySamples(url, (i) => op.path(i), o.requests, headers, 3, r * o.requests));
          // One /status read: the stored games (a rise is a commit) and whether the backfill runs.
          const status = await getJson(url, '/status', o.key);
          const g = Number(status.totalGames ?? 0);
          const committed = g !== seen;
          if (committed) (row.commits++, commits++, (seen = g));
          syncing = status.syncing === true;
          row.running = syncing;
          o.log(`under ingest, round ${r + 1} of ${rounds}, ${op.name}: p99 ${latencyOf(row.samples[row.samples.length - 1]!).p99} ms${committed ? ', beside a commit' : ''}${syncing ? '' : ' — the backfill had ended'}`);
        }
      }
      const seconds = (performance.now() - t0) / 1000;
      clearInterval(poll);
      probe?.close();
      const writes = probe === undefined ? null : writesBesideTails([...under.values()].map((u) => u.samples), writesAt);
      if (writes) o.log(`under ingest: ${writes.writes} writes; ${writes.tailsBesideWrite} of ${writes.tails} requests at or above their row's p99 had one beside them, ${writes.requestsBesideWrite} of ${writes.requests} of all requests`);
      const gamesDuringRun = (await games()) - g0;
      const status = await getJson(url, '/status', o.key);
      o.log(`under ingest: ${commits} commit(s) of the indexer, ${gamesDuringRun} games in ${seconds.toFixed(1)} s`);
      const rows: UnderIngestRow[] = o.ops.map((op) => {
        const u = under.get(op.name)!;
        const i = latencyOf(...idle.get(op.name)!);
        const l = latencyOf(...u.samples);
        const ratio = Math.round((100 * l.p99) / Math.max(0.01, i.p99)) / 100;
        o.log(`under ingest ${op.name}: p99 ${l.p99} ms (idle ${i.p99} ms, ×${ratio})${u.running ? '' : ' — the backfill had ended'}`);
        return { name: op.name, idle: i, underIngest: l, ratio, ingestRunning: u.running, commits: u.commits, met: l.p99 <= CONTENTION_P99_MS && ratio <= 2 };
      });
      // Then let the backfill finish (bounded) to report what the indexer stored of the chain.
      for (let waited = 0; (await getJson(url, '/status', o.key)).syncing === true && waited < 120_000; waited += 250) await new Promise((r) => setTimeout(r, 250));
      return {
        chainGames: o.chainGames,
        gamesIngested: (await games()) - before,
        gamesDuringRun,
        gamesPerSec: Math.round(gamesDuringRun / seconds),
        commits,
        rounds,
        ingestCoveredRun: status.syncing === true,
        seconds,
        rows,
        writes,
        store: o.ds.store.kind,
      };
    } finally {
      await b.stop();
    }
  } finally {
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface NoisyNeighbourFigures {
  /** Key A's operations (the most expensive uncached ones) and its load. */
  aOperations: string[];
  aConnections: number;
  aReqPerSec: number;
  aNon2xx: number;
  rows: { name: string; alone: Latency; withNeighbour: Latency; met: boolean }[];
}

/**
 * "Noisy neighbour": key A keeps its whole allowance busy — `connections` keep-alive connections
 * (the per-key concurrency cap, docs/hardening.md "Limits") sending the most expensive operations
 * with varying URLs, uncached (CACHE_TTL_MS=0), an enterprise key so the rate limit never stops
 * it — while key B's uncached p99 on `bOps` is measured (first alone, then with A running).
 * Target: B's p99 ≤ 20 ms. `serve --no-indexer` on the dataset, as the CLI runs it.
 */
export async function measureNoisyNeighbour(o: {
  ds: Dataset;
  keyA: string;
  keyB: string;
  aOps: Operation[];
  bOps: Operation[];
  requests: number;
  connections: number;
  logLevel: string;
  /** How the API server child runs (compiled dist/ or tsx). */
  api: ApiEntry;
  log: (m: string) => void;
}): Promise<NoisyNeighbourFigures> {
  const databaseUrl = o.ds.store.kind === 'sqlite' ? `sqlite:${o.ds.store.path}` : o.ds.store.url;
  const server = await spawnChild({
    ...o.api,
    args: ['serve', '--no-indexer', '--host', '127.0.0.1', '--port', '0'],
    env: { DATABASE_URL: databaseUrl, LOG_LEVEL: o.logLevel, CACHE_TTL_MS: '0', SOLANA_RPC_URL: undefined },
    ready: /listening on (http:\/\/[^\s)]+)/,
  });
  try {
    const url = server.ready[1]!;
    const b = { 'x-api-key': o.keyB };
    const alone = new Map<string, Latency>();
    for (const op of o.bOps) alone.set(op.name, await measureLatency(url, (i) => op.path(i), o.requests, b));

    // A's load runs until B's measurement is done (bounded: 10 minutes at most).
    const paths = o.aOps.flatMap((op) => Array.from({ length: 100 }, (_, i) => op.path(i)));
    let stopA!: () => void;
    const aDone = new Promise<autocannon.Result>((resolve, reject) => {
      const inst = autocannon(
        { url, connections: o.connections, duration: 600, headers: { 'x-api-key': o.keyA }, requests: paths.map((p) => ({ method: 'GET' as const, path: p })) },
        (err: unknown, r: autocannon.Result) => (err ? reject(err) : resolve(r)),
      );
      stopA = () => inst.stop();
    });
    // Let A fill its allowance first.
    await new Promise((r) => setTimeout(r, 1000));
    const rows: NoisyNeighbourFigures['rows'] = [];
    try {
      for (const op of o.bOps) {
        const l = await measureLatency(url, (i) => op.path(i), o.requests, b);
        rows.push({ name: op.name, alone: alone.get(op.name)!, withNeighbour: l, met: l.p99 <= CONTENTION_P99_MS });
        o.log(`noisy neighbour: key B ${op.name} p99 ${l.p99} ms (alone ${alone.get(op.name)!.p99} ms)`);
      }
    } finally {
      stopA();
    }
    const r = await aDone;
    return { aOperations: o.aOps.map((op) => op.name), aConnections: o.connections, aReqPerSec: Math.round(r.requests.average), aNon2xx: r.non2xx, rows };
  } finally {
    await server.stop();
  }
}
