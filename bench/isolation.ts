import autocannon from 'autocannon';
import { measureLatency, type Latency } from './load.js';
import type { Operation } from './operations.js';

/**
 * Key isolation (docs/hardening.md "Per-key share and fairness"): key B's latency on a cheap
 * operation, alone and while key A floods the API with an expensive one from many connections
 * (within A's rate limit), against a server with the response cache off. With the SQLite
 * queries on the event loop B waited behind A's queries; with the reader pool and each key's
 * share of it, B finds a free reader.
 */
export interface IsolationFigures {
  victimOp: string;
  floodOp: string;
  floodConnections: number;
  alone: Latency;
  duringFlood: Latency;
  /** A's answers during B's measured run: 2xx per second and how many were refused (429/503). */
  flood: { reqPerSec: number; non2xx: number };
}

export async function measureIsolation(o: {
  url: string;
  victim: Operation;
  flood: Operation;
  victimHeaders: Record<string, string>;
  floodHeaders: Record<string, string>;
  requests: number;
  connections: number;
}): Promise<IsolationFigures> {
  const alone = await measureLatency(o.url, (i) => o.victim.path(i), o.requests, o.victimHeaders);
  const paths = Array.from({ length: 200 }, (_, i) => o.flood.path(i));
  let done!: (r: autocannon.Result) => void;
  const finished = new Promise<autocannon.Result>((r) => (done = r));
  const instance = autocannon(
    { url: o.url, connections: o.connections, duration: 3600, headers: o.floodHeaders, requests: paths.map((path) => ({ method: 'GET' as const, path })) },
    (_err, result) => done(result),
  );
  // Let the flood fill every slot it may take before B starts.
  await new Promise((r) => setTimeout(r, 1000));
  const started = performance.now();
  const duringFlood = await measureLatency(o.url, (i) => o.victim.path(i + 10_000), o.requests, o.victimHeaders);
  const seconds = (performance.now() - started) / 1000;
  instance.stop();
  const r = await finished;
  return {
    victimOp: o.victim.name,
    floodOp: o.flood.name,
    floodConnections: o.connections,
    alone,
    duringFlood,
    flood: { reqPerSec: Math.round(r['2xx'] / Math.max(seconds + 1, 1)), non2xx: r.non2xx },
  };
}
