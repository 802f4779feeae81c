import { ManualClock } from '../../src/core/index.js';
import { startSimulator, type GroundTruthEvent, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import type { SignatureInfo } from '../../src/solana/index.js';

/** A fixed "now" so every run of the tests sees the same chain. */
export const START_MS = Date.UTC(2025, 5, 1, 12, 0, 0);

export interface TestSim {
  sim: Simulator;
  clock: ManualClock;
}

/**
 * Starts a small simulator (days 3, 300 plays/day, no live games) driven by a ManualClock set one
 * minute after the start, so the whole history is finalized and nothing moves unless a test says so.
 */
export async function startTestSimulator(opts: SimulatorOptions = {}): Promise<TestSim> {
  const clock = new ManualClock((opts.startTimeMs ?? START_MS) + 60_000);
  const sim = await startSimulator({ seed: 7, days: 3, playsPerDay: 300, liveRate: 0, startTimeMs: START_MS, clock, ...opts });
  return { sim, clock };
}

export interface RpcReply<T = any> {
  jsonrpc: '2.0';
  id: unknown;
  result?: T;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * POSTs one JSON-RPC body. A request written to a kept-alive socket that the server closes at the
 * same moment fails with ECONNRESET before any answer. This happened once in a full CI run on a
 * loaded 2-core machine, where the simulator shares the test's event loop and timers run late, and
 * did not reproduce alone. Such a request is sent once more on a new socket; any other failure,
 * and a second reset, are thrown.
 */
export async function rpcRaw(url: string, body: unknown): Promise<{ status: number; text: string; headers: Headers }> {
  const send = () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  let res: Response;
  try {
    res = await send();
  } catch (err) {
    if (!wasReset(err)) throw err;
    res = await send();
  }
  return { status: res.status, text: await res.text(), headers: res.headers };
}

function wasReset(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } } | null)?.cause;
  return cause?.code === 'ECONNRESET' || cause?.code === 'UND_ERR_SOCKET';
}

export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<RpcReply<T>> {
  const r = await rpcRaw(url, { jsonrpc: '2.0', id: 1, method, params });
  return JSON.parse(r.text) as RpcReply<T>;
}

export type { SignatureInfo };

/** Every signature of `address`, newest first, paging with `before`. */
export async function allSignatures(url: string, address: string, opts: { limit?: number; commitment?: string; until?: string } = {}): Promise<SignatureInfo[]> {
  const out: SignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const r = await rpc<SignatureInfo[]>(url, 'getSignaturesForAddress', [address, { limit: opts.limit ?? 1000, commitment: opts.commitment, before, until: opts.until }]);
    if (r.error) throw new Error(r.error.message);
    const page = r.result!;
    out.push(...page);
    if (page.length < (opts.limit ?? 1000)) return out;
    before = page[page.length - 1]!.signature;
  }
}

/** getTransaction for many signatures in JSON-RPC batches of 100. */
export async function getTransactions(url: string, sigs: string[], config: Record<string, unknown> = { encoding: 'json', maxSupportedTransactionVersion: 0 }): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; i < sigs.length; i += 100) {
    const batch = sigs.slice(i, i + 100).map((s, k) => ({ jsonrpc: '2.0', id: i + k, method: 'getTransaction', params: [s, config] }));
    const r = await rpcRaw(url, batch);
    const replies = JSON.parse(r.text) as RpcReply[];
    replies.sort((a, b) => (a.id as number) - (b.id as number));
    for (const rep of replies) {
      if (rep.error) throw new Error(rep.error.message);
      out.push(rep.result);
    }
  }
  return out;
}

export async function collect<T>(it: AsyncIterable<T> | Iterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

export type { GroundTruthEvent };

/** JSON-friendly copy (BigInt → decimal string) for deep comparisons. */
export function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));
}

/**
 * A whole simulated history (no clock, no live games) as the store receives it: the simulator's
 * ground truth for `opts` (e.g. faults 'rig=0.02' for violations), each event without its
 * ground-truth fields (usdPrice, decimals, rigged), and the mints to register first. `truth`
 * keeps the events with those fields.
 */
export async function simulatedHistory(opts: SimulatorOptions): Promise<{ truth: GroundTruthEvent[]; events: LocatedEvent[]; mints: { mint: string; decimals: number }[] }> {
  const sim = await startSimulator({ liveRate: 0, ...opts });
  const truth: GroundTruthEvent[] = [];
  try {
    await sim.ready();
    for await (const e of sim.groundTruth()) truth.push(e);
    const events = truth.map(({ usdPrice: _p, decimals: _d, rigged: _r, ...e }) => e as LocatedEvent);
    return { truth, events, mints: sim.mints.map((m) => ({ mint: m.mint, decimals: m.decimals })) };
  } finally {
    await sim.stop();
  }
}
