// `npm run bench` — see docs/benchmarks.md. Loopback only; every phase is time-bounded.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { createCommon, systemClock } from '../src/core/index.js';
import { createKeyService } from '../src/keys/index.js';
import { createStore } from '../src/store/index.js';
import type { StoreConfig } from '../src/config/index.js';
import { measureIngest, measureSimulator, type IngestFigures, type SimulatorFigures } from './chain.js';
import { CONTENTION_P99_MS, measureNoisyNeighbour, measureUnderIngest, UNDER_INGEST_MIN_SECONDS, WRITE_NEAR_MS, type NoisyNeighbourFigures, type UnderIngestFigures } from './contention.js';
import { API_DIST, API_TSX, ensureBuilt, spawnChild, type ApiEntry, type Child } from './children.js';
import { prepareDataset, type Dataset, warmPageCache } from './dataset.js';
import { FRESHNESS_P99_MS, measureFreshness, measureSources, SOURCES_MIN_RATIO, type FreshnessFigures, type SourcesFigures } from './sources.js';
import { measureIsolation, type IsolationFigures } from './isolation.js';
import { measureLatency, measureThroughput, probe, type Latency, type Throughput } from './load.js';
import { operations, type Operation } from './operations.js';

interface Flags {
  quick: boolean;
  op?: string;
  store: 'sqlite' | 'postgres';
  games?: number;
  duration?: number;
  requests?: number;
  connections: number;
  ingestGames?: number;
  ingestConcurrency: number;
  ingestNodeFlags: string[];
  apiNodeFlags: string[];
  apiTsx: boolean;
  underIngestGames?: number;
  neighbourConnections: number;
  soak?: number;
  sourcesDays?: number;
  sourcesPlaysPerDay: number;
  freshnessSeconds?: number;
  skip: string[];
  rebuild: boolean;
  coldPageCache: boolean;
  profile: boolean;
  logLevel: string;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const mb = (b: number) => Math.round(b / 1048576);

function posInt(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(v);
}

const program = new Command('bench')
  .description('Gamba Analytics benchmark: API latency/throughput over a dataset, ingest over JSON-RPC, simulator figures')
  .option('--quick', '100k games, short runs (< 3 min)', false)
  .option('--op <name>', 'one operation and its filtered variants, by name (e.g. "players", "settledGames", "chart/plays"); several comma-separated')
  .option('--store <kind>', 'sqlite | postgres (DATABASE_URL or TEST_DATABASE_URL, fresh schema)', 'sqlite')
  .option('--games <n>', 'dataset size in settled games (default 1,000,000; quick 100,000)', posInt)
  .option('--duration <s>', 'seconds of autocannon per cached-throughput run (default 5; quick 1)', posInt)
  .option('--requests <n>', 'sequential requests per uncached-latency run (default 200; quick 40)', posInt)
  .option('--connections <n>', 'autocannon connections', posInt, 16)
  .option('--ingest-games <n>', 'games in the ingest benchmark (default 50,000; quick 10,000)', posInt)
  .option('--ingest-concurrency <n>', 'RPC_CONCURRENCY of the indexer in the ingest benchmark', posInt, 8)
  .option('--api-node-flags <flags>', 'space-separated node flags for the API server child (e.g. "--max-semi-space-size=4")', (v) => v.split(' ').filter(Boolean), [] as string[])
  .option('--api-tsx', 'run the API server children from sources under tsx (default: the compiled CLI over dist/, as `npm start`; dist/ is built first when older than src/)', false)
  .option('--ingest-node-flags <flags>', 'space-separated node flags for the ingest processes (e.g. "--max-semi-space-size=64")', (v) => v.split(' ').filter(Boolean), [] as string[])
  .option('--under-ingest-games <n>', 'games the indexer backfills during "API under ingest" (default 150,000; quick 40,000)', posInt)
  .option('--neighbour-connections <n>', 'key A\'s connections in "noisy neighbour" (default 8: the per-key concurrency cap)', posInt, 8)
  .option('--soak <s>', 'seconds of mixed cached load watching API RSS (default 60; quick 0 = off)', (v) => Number(v))
  .option('--sources-days <n>', 'days of simulated history each HISTORY_SOURCE backfills in "chain sources" (default 30; quick 7)', posInt)
  .option('--sources-plays-per-day <n>', 'games per simulated day in "chain sources" (the simulator\'s default)', posInt, 3000)
  .option('--freshness-seconds <s>', 'seconds of live games measured per LIVE_SOURCE in "freshness" (default 30; quick 10)', posInt)
  .option('--skip <phases>', 'comma-separated: api,isolation,under-ingest,neighbour,ingest,simulator,sources,freshness', (v) => v.split(','), [] as string[])
  .option('--rebuild', 'rebuild the dataset even if a cached one fits', false)
  .option('--cold-page-cache', 'do not read the SQLite dataset into the OS page cache before measuring (a server just started on a cold file)', false)
  .option('--profile', 'write CPU profiles (.cpuprofile) of the ingest processes to bench/results/', false)
  .option('--log-level <level>', 'LOG_LEVEL of the API server child', 'warn');

program.parse(process.argv);
const f = program.opts<Flags>();
if (f.store !== 'sqlite' && f.store !== 'postgres') throw new InvalidArgumentError('--store must be sqlite or postgres');

const games = f.games ?? (f.quick ? 100_000 : 1_000_000);
const durationS = f.duration ?? (f.quick ? 1 : 5);
const nRequests = f.requests ?? (f.quick ? 40 : 200);
const ingestGames = f.ingestGames ?? (f.quick ? 10_000 : 50_000);
const underIngestGames = f.underIngestGames ?? (f.quick ? 40_000 : 150_000);
const soakS = f.soak ?? (f.quick ? 0 : 60);
const skip = new Set(f.skip);
const resultsDir = process.env.BENCH_RESULTS_DIR || join(ROOT, 'bench', 'results');
mkdirSync(resultsDir, { recursive: true });
const started = new Date();
/** The API server children: compiled (as users run it) unless --api-tsx. */
const api: ApiEntry = { ...(f.apiTsx ? API_TSX : API_DIST), nodeArgs: f.apiNodeFlags };

interface OpResult {
  name: string;
  path: string;
  uncached: Latency;
  /** percentOfHello: of the hello-world run made right before this one (helloReqPerSec). */
  cached: Throughput & { percentOfHello: number; helloReqPerSec: number; helloServerCpuUsPerRequest?: number | undefined };
  etag: boolean;
}

const result: {
  startedAt: string;
  machine: { cpus: number; node: string; loadavg: number[]; loadavgEnd?: number[] };
  /** How the API server children ran: the compiled CLI over dist/ (as `npm start`) or from sources under tsx. */
  apiRuntime: 'dist' | 'tsx';
  flags: Flags;
  dataset?: { games: number; events: number; store: string; sizeBytes: number; reused: boolean; buildSeconds: number; source: string; pageCache?: 'read' | 'too large' | 'cold' };
  hello?: Throughput;
  responseCache?: { detected: boolean; cacheControl?: string };
  operations: OpResult[];
  isolation?: IsolationFigures;
  apiRss?: { uncachedServerBytes: number; cachedServerBytes: number; uncachedServerPeakBytes: number; cachedServerPeakBytes: number; peakBytes: number; soak?: { seconds: number; startBytes: number; endBytes: number; minBytes: number; maxBytes: number } };
  underIngest?: UnderIngestFigures;
  noisyNeighbour?: NoisyNeighbourFigures;
  ingest?: IngestFigures;
  sources?: SourcesFigures;
  freshness?: FreshnessFigures;
  simulator?: SimulatorFigures;
  totalSeconds?: number;
} = {
  startedAt: started.toISOString(),
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version, loadavg: (await import('node:os')).loadavg() },
  flags: f,
  apiRuntime: f.apiTsx ? 'tsx' : 'dist',
  operations: [],
};

async function createBenchKey(store: StoreConfig, tier: 'enterprise' | 'premium' = 'enterprise'): Promise<string> {
  const s = await createStore({ common: createCommon(), config: store });
  try {
    const keys = createKeyService({ store: s.keys, clock: systemClock });
    // Premium: the isolation flood stays within a real tier's limit (burst 2000).
    if (tier === 'premium') return (await keys.create({ name: `bench flood ${started.toISOString()}`, tier: 'premium' })).key;
    // Enterprise key with a limit no benchmark reaches: we measure the API, not the 429 path.
    return (await keys.create({ name: `bench ${started.toISOString()}`, tier: 'enterprise', rpm: 1_000_000_000, burst: 1_000_000_000 })).key;
  } finally {
    await s.close();
  }
}

function databaseUrl(store: StoreConfig): string {
  return store.kind === 'sqlite' ? `sqlite:${store.path}` : store.url;
}

async function startApi(ds: Dataset, cacheTtlMs: number | undefined): Promise<{ child: Child; url: string }> {
  const child = await spawnChild({
    ...api,
    args: ['serve', '--no-indexer', '--host', '127.0.0.1', '--port', '0'],
    env: { DATABASE_URL: databaseUrl(ds.store), LOG_LEVEL: f.logLevel, CACHE_TTL_MS: cacheTtlMs === undefined ? undefined : String(cacheTtlMs), SOLANA_RPC_URL: undefined },
    ready: /listening on (http:\/\/[^\s)]+)/,
  });
  return { child, url: child.ready[1]! };
}

/**
 * Key A's operations in "noisy neighbour": the most expensive uncached ones of the latency table
 * (docs/benchmarks.md, 1M games: windowed leaderboards and sums cost what their window holds).
 * Fixed rather than picked from this run's table, whose order a busy machine reshuffles.
 */
const NEIGHBOUR_A_OPERATIONS = ['players usd_volume startTime long', 'platforms', 'stats creator+startTime long'];

/**
 * The operations to measure: all, or `--op stats` = the operation `stats` and its filtered variants
 * (`stats creator+startTime`); several names comma-separated (`--op players,house-edge`).
 */
function selectedOps(ds: Dataset): Operation[] {
  let ops: Operation[] = operations(ds.meta);
  const names = f.op ? f.op.split(',') : [];
  if (f.op) ops = ops.filter((o) => names.some((n) => o.name === n || o.name.startsWith(`${n} `)));
  if (ops.length === 0) throw new InvalidArgumentError(`--op ${f.op}: no such operation`);
  return ops;
}

async function apiPhase(ds: Dataset): Promise<void> {
  const key = await createBenchKey(ds.store);
  const headers = { 'x-api-key': key };
  const ops = selectedOps(ds);

  // The machine's ceiling, same connections and duration. It stays up: each cached run is
  // compared with a hello-world run right before it, so a change of machine load between the
  // start and that operation does not move its "% of hello".
  const hello = await spawnChild({ script: 'bench/entries/hello.ts', ready: /listening (http:\/\/\S+)/ });
  try {
    result.hello = await measureThroughput({ url: hello.ready[1]!, durationS: Math.max(durationS, 2), connections: f.connections, serverPid: hello.pid });
    log(`fastify hello-world: ${result.hello.reqPerSec} req/s (p99 ${result.hello.p99} ms)`);
    if (!skip.has('isolation')) await isolationPhase(ds, headers);
    await measureApi(ds, ops, headers, hello);
  } finally {
    await hello.stop();
  }
}

async function isolationPhase(ds: Dataset, victimHeaders: Record<string, string>): Promise<void> {
  const all = operations(ds.meta);
  const byName = (n: string) => all.find((o) => o.name === n)!;
  const floodHeaders = { 'x-api-key': await createBenchKey(ds.store, 'premium') };
  const api = await startApi(ds, 0);
  try {
    const fig = await measureIsolation({ url: api.url, victim: byName('total'), flood: byName('players usd_volume startTime long'), victimHeaders, floodHeaders, requests: nRequests, connections: 8 });
    result.isolation = fig;
    log(`isolation: ${fig.victimOp} alone p50 ${fig.alone.p50} ms p99 ${fig.alone.p99} ms max ${fig.alone.max} ms; during ${fig.floodOp} flood p50 ${fig.duringFlood.p50} ms p99 ${fig.duringFlood.p99} ms max ${fig.duringFlood.max} ms (flood ${fig.flood.reqPerSec} req/s answered, ${fig.flood.non2xx} refused)`);
  } finally {
    await api.child.stop();
  }
}

async function measureApi(ds: Dataset, ops: Operation[], headers: Record<string, string>, hello: Child): Promise<void> {

  // Uncached latency: a server with the response cache off (CACHE_TTL_MS=0) and varying URLs.
  const uncached = new Map<string, Latency>();
  const a = await startApi(ds, 0);
  let uncachedRss = 0;
  // Read before the server stops: /proc/<pid>/status is gone afterwards.
  let uncachedPeak = 0;
  try {
    for (const op of ops) {
      const l = await measureLatency(a.url, (i) => op.path(i), nRequests, headers);
      uncached.set(op.name, l);
      log(`uncached ${op.name}: p50 ${l.p50} ms, p99 ${l.p99} ms${l.non2xx ? ` (${l.non2xx} non-2xx)` : ''}`);
    }
    uncachedRss = a.child.rss();
    uncachedPeak = a.child.peakRss();
    log(`uncached server: API RSS ${mb(uncachedRss)} MB, peak ${mb(uncachedPeak)} MB`);
  } finally {
    await a.child.stop();
  }

  // Cached throughput: the default configuration (response cache on), one URL repeated.
  const b = await startApi(ds, undefined);
  try {
    for (const op of ops) {
      if (op.cacheable === false) {
        log(`cached ${op.name}: not measured (streamed, never cached)`);
        continue;
      }
      const path = op.path(0);
      // The response cache announces itself with an ETag (live answers such as /status may not carry one).
      const p = await probe(b.url, path, headers);
      if (p.etag !== undefined && !result.responseCache?.detected) result.responseCache = { detected: true, cacheControl: p.cacheControl };
      const h = await measureThroughput({ url: hello.ready[1]!, durationS, connections: f.connections, serverPid: hello.pid });
      const t = await measureThroughput({ url: b.url + path, durationS, connections: f.connections, headers, serverPid: b.child.pid });
      const percentOfHello = Math.round((100 * t.reqPerSec) / h.reqPerSec);
      result.operations.push({ name: op.name, path, uncached: uncached.get(op.name)!, cached: { ...t, percentOfHello, helloReqPerSec: h.reqPerSec, helloServerCpuUsPerRequest: h.serverCpuUsPerRequest }, etag: p.etag !== undefined });
      log(`cached ${op.name}: ${t.reqPerSec} req/s (${percentOfHello} % of the ${h.reqPerSec} req/s hello-world run just before), p99 ${t.p99} ms${t.non2xx ? ` (${t.non2xx} non-2xx)` : ''}`);
    }
    if (!result.responseCache) {
      result.responseCache = { detected: false };
      log('no ETag on any answer: no response cache — "cached" figures are uncached throughput');
    }
    let soak: NonNullable<typeof result.apiRss>['soak'];
    if (soakS > 0) {
      const paths = ops.filter((op) => op.cacheable !== false).flatMap((op) => [0, 1, 2, 3].map((i) => op.path(i)));
      const startBytes = b.child.rss();
      let maxBytes = startBytes;
      let minBytes = startBytes;
      const timer = setInterval(() => {
        const r = b.child.rss();
        maxBytes = Math.max(maxBytes, r);
        minBytes = Math.min(minBytes, r);
      }, 1000);
      await measureThroughput({ url: b.url, paths, durationS: soakS, connections: f.connections, headers });
      clearInterval(timer);
      soak = { seconds: soakS, startBytes, endBytes: b.child.rss(), minBytes, maxBytes };
      log(`soak ${soakS} s: API RSS ${mb(startBytes)} → ${mb(soak.endBytes)} MB (min ${mb(minBytes)}, max ${mb(maxBytes)})`);
    }
    const cachedPeak = b.child.peakRss();
    result.apiRss = { uncachedServerBytes: uncachedRss, cachedServerBytes: b.child.rss(), uncachedServerPeakBytes: uncachedPeak, cachedServerPeakBytes: cachedPeak, peakBytes: Math.max(cachedPeak, uncachedPeak), soak };
  } finally {
    await b.child.stop();
  }
}

function markdown(): string {
  const out: string[] = [];
  const d = result.dataset;
  out.push(`# Gamba Analytics benchmark — ${result.startedAt}`, '');
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  out.push(`Machine: ${result.machine.cpus} CPUs, Node ${result.machine.node}, load average at start ${load(result.machine.loadavg)}${result.machine.loadavgEnd ? `, at the end ${load(result.machine.loadavgEnd)}` : ''}.`);
  out.push(`API server children: ${result.apiRuntime === 'dist' ? 'the compiled CLI (`node bin/gamba-analytics.js serve`, dist/bundle/: as `npm start`)' : 'the CLI from sources under tsx (`--api-tsx`)'}${f.apiNodeFlags.length ? `, node ${f.apiNodeFlags.join(' ')}` : ''}.`);
  if (d) {
    const cache = d.pageCache === 'read' ? ' Read once into the OS page cache before measuring.' : d.pageCache === 'too large' ? ' Larger than half the memory: not read into the OS page cache.' : d.pageCache === 'cold' ? ' Not read into the OS page cache first (--cold-page-cache).' : '';
    out.push(`Dataset: ${d.games.toLocaleString('en-US')} games (${d.events.toLocaleString('en-US')} events), ${d.store}, ${mb(d.sizeBytes)} MB on disk, ${d.reused ? 'reused' : `built in ${d.buildSeconds.toFixed(0)} s`} — ${d.source}.${cache}`);
  }
  if (result.hello) out.push(`Bare Fastify hello-world (the ceiling): **${result.hello.reqPerSec.toLocaleString('en-US')} req/s** (p99 ${result.hello.p99} ms, ${f.connections} connections, server CPU ${result.hello.serverCpuUsPerRequest ?? '–'} µs per request).`);
  if (result.responseCache) out.push(`Response cache: ${result.responseCache.detected ? `on (ETag, Cache-Control: ${result.responseCache.cacheControl ?? '—'})` : 'not detected (no ETag): "cached" columns are uncached throughput'}.`);
  if (result.operations.length) {
    out.push('', '| operation | uncached p50 ms | uncached p99 ms | cached req/s | hello req/s just before | % of hello | server CPU µs/req (hello) | cached p99 ms | ETag | non-2xx |', '|---|---:|---:|---:|---:|---:|---:|---:|:-:|---:|');
    for (const o of result.operations) {
      out.push(`| ${o.name} | ${o.uncached.p50} | ${o.uncached.p99} | ${o.cached.reqPerSec.toLocaleString('en-US')} | ${o.cached.helloReqPerSec.toLocaleString('en-US')} | ${o.cached.percentOfHello} | ${o.cached.serverCpuUsPerRequest ?? '–'} (${o.cached.helloServerCpuUsPerRequest ?? '–'}) | ${o.cached.p99} | ${o.etag ? '✓' : '–'} | ${o.uncached.non2xx + o.cached.non2xx} |`);
    }
  }
  if (result.isolation) {
    const i = result.isolation;
    out.push('', `Key isolation (cache off): key B \`${i.victimOp}\` alone p50 ${i.alone.p50} ms, p99 ${i.alone.p99} ms, max ${i.alone.max} ms; while a premium key floods \`${i.floodOp}\` from ${i.floodConnections} connections: p50 ${i.duringFlood.p50} ms, p99 ${i.duringFlood.p99} ms, max ${i.duringFlood.max} ms (flood: ${i.flood.reqPerSec} answers/s, ${i.flood.non2xx} refused).`);
  }
  if (result.apiRss) {
    const s = result.apiRss.soak;
    out.push('', `API RSS: ${mb(result.apiRss.uncachedServerBytes)} MB after the uncached runs, ${mb(result.apiRss.cachedServerBytes)} MB after the cached runs, peak ${mb(result.apiRss.peakBytes)} MB (uncached server ${mb(result.apiRss.uncachedServerPeakBytes)}, cached server ${mb(result.apiRss.cachedServerPeakBytes)})${s ? `; ${s.seconds} s mixed load: ${mb(s.startBytes)} → ${mb(s.endBytes)} MB (min ${mb(s.minBytes)}, max ${mb(s.maxBytes)})` : ''}.`);
  }
  if (result.underIngest) {
    const u = result.underIngest;
    out.push(
      '',
      `API under ingest (\`serve\` with its indexer backfilling ${u.chainGames.toLocaleString('en-US')} games from its own simulator into ${u.store === 'sqlite' ? 'a copy of the dataset' : "the dataset's schema (after the other phases)"}; idle = \`serve --no-indexer\` on the same ${u.store === 'sqlite' ? 'copy' : 'schema'} just before, in rounds until it lasted ${UNDER_INGEST_MIN_SECONDS} s; uncached, ${u.rounds} round(s) of ${nRequests} sequential requests per row, as many under ingest from the indexer's first commit): the indexer committed ${u.commits} time(s) and stored ${u.gamesDuringRun.toLocaleString('en-US')} games during the ${u.seconds.toFixed(0)} s of measurement (${u.gamesPerSec.toLocaleString('en-US')} games/s)${u.ingestCoveredRun ? '' : ' — **its backfill ended before the last row was measured** (rows marked "ended"; raise --under-ingest-games)'}. Target: p99 ≤ 2× idle and ≤ ${CONTENTION_P99_MS} ms.`,
      '',
      '| operation | idle p50 ms | idle p99 ms | under ingest p50 ms | under ingest p99 ms | × idle | commits seen | met |',
      '|---|---:|---:|---:|---:|---:|---:|:-:|',
    );
    // A row finished after the backfill ended was not (wholly) measured under ingest: no verdict.
    for (const r of u.rows) out.push(`| ${r.name} | ${r.idle.p50} | ${r.idle.p99} | ${r.underIngest.p50} | ${r.underIngest.p99} | ${r.ratio} | ${r.commits} | ${r.ingestRunning ? (r.met ? '✓' : '✗') : 'ended'} |`);
    const w = u.writes;
    const pct = (k: number, n: number) => (n === 0 ? '–' : `${Math.round((100 * k) / n)} %`);
    if (w) out.push(
      '',
      `Writes beside the tails: the copy's \`data_version\` changed ${w.writes} time(s) during the measurement (every committed write of the indexer); ${w.tailsBesideWrite} of the ${w.tails} requests at or above their row's p99 (${pct(w.tailsBesideWrite, w.tails)}) had a write at most ${WRITE_NEAR_MS} ms before them or while they were answered, against ${w.requestsBesideWrite} of all ${w.requests} requests (${pct(w.requestsBesideWrite, w.requests)}).`,
    );
  }
  if (result.noisyNeighbour) {
    const n = result.noisyNeighbour;
    out.push(
      '',
      `Noisy neighbour (\`serve --no-indexer\`, uncached): key A keeps ${n.aConnections} connections busy with ${n.aOperations.join(', ')} (${n.aReqPerSec.toLocaleString('en-US')} req/s, ${n.aNon2xx} non-2xx) while key B sends ${nRequests} sequential requests per row. Target: key B p99 ≤ ${CONTENTION_P99_MS} ms.`,
      '',
      '| key B operation | alone p50 ms | alone p99 ms | with key A p50 ms | with key A p99 ms | met |',
      '|---|---:|---:|---:|---:|:-:|',
    );
    for (const r of n.rows) out.push(`| ${r.name} | ${r.alone.p50} | ${r.alone.p99} | ${r.withNeighbour.p50} | ${r.withNeighbour.p99} | ${r.met ? '✓' : '✗'} |`);
  }
  if (result.ingest) {
    const i = result.ingest;
    out.push('', `Ingest (simulator → JSON-RPC → indexer → SQLite; ${i.indexerSetup}): **${i.gamesPerSec.toLocaleString('en-US')} games/s** (${i.txPerSec.toLocaleString('en-US')} transactions/s; ${i.games.toLocaleString('en-US')} games, ${i.signatures.toLocaleString('en-US')} signatures in ${i.seconds.toFixed(1)} s, RPC_CONCURRENCY ${i.concurrency}${i.nodeFlags.length ? `, node ${i.nodeFlags.join(' ')}` : ''}). Indexer CPU **${i.indexerCpuUsPerGame} µs per game** (${i.indexerCpuPercent} % of a core), simulator ${i.simulatorCpuUsPerGame} µs per game (${i.simulatorCpuPercent} %; its answers were rendered ahead in ${i.renderAheadSeconds.toFixed(1)} s).`);
  }
  if (result.sources) {
    const s = result.sources;
    out.push(
      '',
      `Chain sources (the same simulated chain, ${s.days} days × ${s.playsPerDay.toLocaleString('en-US')} games/day, backfilled through each HISTORY_SOURCE by the real indexer into SQLite; requests = JSON-RPC requests sent, batch items one by one): helius needs **${s.ratio}× fewer requests per 1,000 games** than rpc. Target: ≥ ${SOURCES_MIN_RATIO}× ${s.ratio >= SOURCES_MIN_RATIO ? '✓' : '✗'}.`,
      '',
      `| history source | games | signatures | requests | requests per 1,000 games | time at RPC_MAX_RPS=${s.maxRps} | wall s (loopback) | a year of this chain: requests | hours at ${s.maxRps} rps |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const r of s.runs) {
      const y = s.perYear.find((p) => p.source === r.source)!;
      out.push(`| ${r.source} | ${r.games.toLocaleString('en-US')} | ${r.signatures.toLocaleString('en-US')} | ${r.requests.toLocaleString('en-US')} | ${r.requestsPer1000Games} | ${r.secondsAtMaxRps} s | ${r.wallSeconds} | ${y.requests.toLocaleString('en-US')} | ${y.hoursAtMaxRps} |`);
    }
  }
  if (result.freshness) {
    const fr = result.freshness;
    const y = fr.runs.find((r) => r.live === 'yellowstone');
    out.push(
      '',
      `Freshness (simulator with ${fr.liveRate} live games/s and Yellowstone gRPC, indexed by the real indexer, POLL_INTERVAL_MS ${fr.pollIntervalMs}; ${fr.seconds} s per LIVE_SOURCE; game-to-API = a game's slot time → first read of the settled-games query listing it, read every 50 ms). Target: yellowstone p99 ≤ ${FRESHNESS_P99_MS} ms ${y && y.p99 <= FRESHNESS_P99_MS ? '✓' : '✗'}.`,
      '',
      '| live source | live games | p50 ms | p99 ms | max ms |',
      '|---|---:|---:|---:|---:|',
    );
    for (const r of fr.runs) out.push(`| ${r.live} | ${r.games} | ${r.p50} | ${r.p99} | ${r.max} |`);
  }
  if (result.simulator) {
    const s = result.simulator;
    out.push('', `Simulator at ${s.games.toLocaleString('en-US')} games (${s.days} days × ${s.playsPerDay}/day): listening after ${s.listenMs} ms, first getSignaturesForAddress answer after ${s.firstSignaturesMs} ms, newest getTransaction after ${s.firstNewestTransactionMs} ms, history pass done after ${(s.readyMs / 1000).toFixed(1)} s; RSS ${mb(s.rssBytes)} MB (peak ${mb(s.peakRssBytes)} MB); getTransaction ${s.getTransaction.reqPerSec.toLocaleString('en-US')} req/s single (p99 ${s.getTransaction.p99} ms), ${s.getTransactionBatch100.txPerSec.toLocaleString('en-US')} tx/s in batches of 100 (p99 ${s.getTransactionBatch100.p99} ms).`);
  }
  out.push('', `Total: ${result.totalSeconds?.toFixed(0)} s.`);
  return out.join('\n');
}

const t0 = performance.now();
let ds: Dataset | undefined;
if (!skip.has('api') || !skip.has('under-ingest') || !skip.has('neighbour')) {
  ds = await prepareDataset({
    games,
    kind: f.store,
    pgUrl: process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : process.env.TEST_DATABASE_URL,
    rebuild: f.rebuild,
    log,
  });
  if (!f.apiTsx) ensureBuilt(log);
  result.dataset = { games: ds.meta.games, events: ds.meta.events, store: f.store, sizeBytes: ds.sizeBytes, reused: ds.reused, buildSeconds: ds.meta.buildSeconds, source: ds.meta.source };
  // A long-running server's file sits in the OS page cache: measure that, unless --cold-page-cache.
  if (ds.store.kind === 'sqlite') {
    if (f.coldPageCache) result.dataset.pageCache = 'cold';
    else {
      const w = await warmPageCache(ds.store.path);
      result.dataset.pageCache = w.outcome;
      log(w.outcome === 'read' ? `read the dataset into the OS page cache (${mb(ds.sizeBytes)} MB, ${w.seconds.toFixed(1)} s)` : 'dataset larger than half the memory: not read into the OS page cache');
    }
  }
  try {
    if (!skip.has('api')) await apiPhase(ds);
    const underIngest = async (d: Dataset) =>
      (result.underIngest = await measureUnderIngest({ ds: d, ops: selectedOps(d), key: await createBenchKey(d.store), requests: nRequests, chainGames: underIngestGames, concurrency: f.ingestConcurrency, logLevel: f.logLevel, api, log }));
    // On SQLite the indexer writes into a copy of the dataset file; on PostgreSQL into the run's
    // own schema, so that phase runs last there.
    if (!skip.has('under-ingest') && ds.store.kind === 'sqlite') await underIngest(ds);
    if (!skip.has('neighbour')) {
      const all = operations(ds.meta);
      const byName = (n: string) => all.find((o) => o.name === n)!;
      result.noisyNeighbour = await measureNoisyNeighbour({
        ds,
        keyA: await createBenchKey(ds.store),
        keyB: await createBenchKey(ds.store),
        aOps: NEIGHBOUR_A_OPERATIONS.map(byName),
        bOps: ['stats', 'player', 'settledGames'].map(byName),
        requests: nRequests,
        connections: f.neighbourConnections,
        logLevel: f.logLevel,
        api,
        log,
      });
    }
    if (!skip.has('under-ingest') && ds.store.kind !== 'sqlite') await underIngest(ds);
  } finally {
    await ds.dispose();
  }
}
if (!skip.has('ingest')) {
  result.ingest = await measureIngest({ games: ingestGames, concurrency: f.ingestConcurrency, nodeFlags: f.ingestNodeFlags, profileDir: f.profile ? join(resultsDir, `profiles-${started.toISOString().replace(/[:.]/g, '-')}`) : undefined, log });
  log(`ingest: ${result.ingest.gamesPerSec} games/s (${result.ingest.txPerSec} tx/s), indexer ${result.ingest.indexerCpuUsPerGame} µs CPU per game (${result.ingest.indexerCpuPercent} % of a core), simulator ${result.ingest.simulatorCpuUsPerGame} µs (${result.ingest.simulatorCpuPercent} %)`);
}
if (!skip.has('sources')) {
  result.sources = await measureSources({ days: f.sourcesDays ?? (f.quick ? 7 : 30), playsPerDay: f.sourcesPlaysPerDay, maxRps: 50, log });
  log(`sources: helius needs ${result.sources.ratio}× fewer requests per 1,000 games than rpc`);
}
if (!skip.has('freshness')) {
  result.freshness = await measureFreshness({ seconds: f.freshnessSeconds ?? (f.quick ? 10 : 30), liveRate: 5, log });
}
if (!skip.has('simulator')) {
  const days = 365;
  result.simulator = await measureSimulator({ days, playsPerDay: Math.max(1, Math.round(games / days)), durationS: Math.max(durationS, 2), log });
}
result.totalSeconds = (performance.now() - t0) / 1000;
result.machine.loadavgEnd = (await import('node:os')).loadavg();
const md = markdown();
const file = join(resultsDir, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify(result, null, 2));
process.stdout.write(md + `\n\nJSON: ${file}\n`);
