import { readFileSync } from 'node:fs';
import http from 'node:http';
import autocannon from 'autocannon';

/** Latency percentiles, ms. */
export interface Latency {
  requests: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers that were not 2xx (e.g. a sampled player without games in that token → 404). */
  non2xx: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (x: number) => Math.round(x * 100) / 100;

function get(agent: http.Agent, base: URL, path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, path, agent, headers }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.once('error', reject);
    req.end();
  });
}

/**
 * Sequential requests on one keep-alive connection (no queueing in the numbers): latency of
 * each answer as the client sees it, from request start to the last byte. `warmup` requests
 * (other URLs of the same operation) are sent first and not counted.
 */
export async function measureLatency(baseUrl: string, path: (i: number) => string, n: number, headers: Record<string, string>, warmup = 3): Promise<Latency> {
  return latencyOf(await latencySamples(baseUrl, path, n, headers, warmup));
}

/** Raw answer times (ms, in request order) and non-2xx count of measureLatency's requests `path(first)` … `path(first + n - 1)`. */
export interface LatencySamples {
  times: number[];
  /** When each request was sent, ms since the Unix epoch (performance.timeOrigin-based, sub-ms), in request order. */
  starts: number[];
  non2xx: number;
}

/** measureLatency's requests, their times kept (to merge several runs of one operation with latencyOf). */
export async function latencySamples(baseUrl: string, path: (i: number) => string, n: number, headers: Record<string, string>, warmup = 3, first = 0): Promise<LatencySamples> {
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < warmup; i++) await get(agent, base, path(1_000_000 + first + i), headers);
    const times: number[] = [];
    const starts: number[] = [];
    let non2xx = 0;
    for (let i = first; i < first + n; i++) {
      const t = performance.now();
      const r = await get(agent, base, path(i), headers);
      times.push(performance.now() - t);
      starts.push(performance.timeOrigin + t);
      if (r.status < 200 || r.status > 299) non2xx++;
    }
    return { times, starts, non2xx };
  } finally {
    agent.destroy();
  }
}

/** Percentiles of one or more runs' samples, merged. */
export function latencyOf(...runs: LatencySamples[]): Latency {
  const times = runs.flatMap((r) => r.times).sort((a, b) => a - b);
  return { requests: times.length, p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(times[times.length - 1] ?? NaN), non2xx: runs.reduce((s, r) => s + r.non2xx, 0) };
}

/** One GET: status and headers (used to detect the response cache by its ETag). */
export async function probe(baseUrl: string, path: string, headers: Record<string, string>): Promise<{ status: number; etag: string | undefined; cacheControl: string | undefined }> {
  const agent = new http.Agent({ keepAlive: false });
  try {
    const r = await get(agent, new URL(baseUrl), path, headers);
    const etag = r.headers.etag;
    return { status: r.status, etag: typeof etag === 'string' ? etag : undefined, cacheControl: r.headers['cache-control'] };
  } finally {
    agent.destroy();
  }
}

export interface Throughput {
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /**
   * The server process's CPU time (user + system, /proc/<pid>/stat at 100 Hz) over the measured
   * run ÷ its requests, µs — independent of how much CPU the load generator takes on a small box.
   */
  serverCpuUsPerRequest?: number;
}

/** CPU time (user + system) of a process so far, ms (Linux /proc; clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * Requests sent before each measured throughput run and not counted: the server's JIT compiles
 * the route's path first, so the figure is steady-state throughput whichever operation happens to
 * run first after a server start (hello-world gets the same warm-up).
 */
export const WARMUP_REQUESTS = 2000;

/** autocannon against one URL (or a cycle of requests) for `durationS` seconds, after `warmupRequests` unmeasured ones. */
export async function measureThroughput(o: {
  url: string;
  paths?: string[];
  durationS: number;
  connections: number;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  /** POST bodies, cycled (one per request). */
  bodies?: string[];
  /** Unmeasured requests first (default WARMUP_REQUESTS; 0 = none). */
  warmupRequests?: number;
  /** The server's process: its CPU time over the measured run is reported per request. */
  serverPid?: number;
}): Promise<Throughput> {
  let k = 0;
  const requests = o.bodies
    ? [{ method: 'POST' as const, setupRequest: (req: Record<string, unknown>) => ({ ...req, body: o.bodies![k++ % o.bodies!.length] }) }]
    : o.paths?.map((p) => ({ method: 'GET' as const, path: p }));
  const base = {
    url: o.url,
    connections: o.connections,
    headers: o.headers,
    method: o.method ?? 'GET',
    ...(requests ? { requests } : {}),
  };
  const warmup = o.warmupRequests ?? WARMUP_REQUESTS;
  if (warmup > 0) await autocannon({ ...base, amount: warmup } as autocannon.Options);
  const cpu0 = o.serverPid === undefined ? 0 : cpuMs(o.serverPid);
  const r = await autocannon({ ...base, duration: o.durationS } as autocannon.Options);
  const cpu = o.serverPid === undefined ? 0 : cpuMs(o.serverPid) - cpu0;
  return {
    reqPerSec: Math.round(r.requests.average),
    ...(o.serverPid !== undefined && r.requests.total > 0 ? { serverCpuUsPerRequest: Math.round((cpu * 1000) / r.requests.total) } : {}),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}
