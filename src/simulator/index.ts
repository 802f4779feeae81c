import type { AddressInfo } from 'node:net';
import type { Clock } from '../core/index.js';
import { GAMBA_PROGRAM_ID } from '../protocol/index.js';
import {
  createChainClock,
  createEconomy,
  createFaultDice,
  createLedger,
  createPriceBook,
  createTimeline,
  normalizeFaults,
  slotTimeMs,
  TOKENS,
  type Commitment,
  type FaultDice,
  type FaultSpec,
} from './chain/index.js';
import { buildSimulatorServer, createLogsPubSub, createRpcHandler, HERMES_PREFIX, JUPITER_PATH, loadGeyserServer } from './rpc/index.js';
import { createChainView, exportGroundTruth, iterateGroundTruth, renderAhead, type GroundTruthEvent } from './transactions/index.js';

/**
 * The local Solana chain simulator of the Gamba v2 program (docs/simulator.md, docs/design.md §8): a JSON-RPC
 * node (HTTP + WebSocket on one port), Pyth-Hermes- and Jupiter-compatible price endpoints, and
 * the ground truth of every event. See docs/simulator.md.
 */
export interface SimulatorOptions {
  /** Seed of everything the chain shows (default 1). Same seed + start time ⇒ byte-identical answers. */
  seed?: number;
  /** History length in days, ending at the start time (default 365). */
  days?: number;
  /** Average settled games per day in the history (default 3000). */
  playsPerDay?: number;
  /** New games per second after the start (default 2; 0 = no live games). */
  liveRate?: number;
  /** Fault injection, string form or object (docs/simulator.md "Faults"). */
  faults?: string | FaultSpec;
  /** Listen host (default 127.0.0.1). */
  host?: string;
  /** Listen port (default 0 = ephemeral). */
  port?: number;
  /** "Now" of the simulation, Unix ms (default Date.now()). */
  startTimeMs?: number;
  /**
   * The BONK whale (default false): seven scheduled games of 1.5·10^18 BONK units, whose BONK
   * volume passes 2^63 — tests of exact u64 sums turn it on; the demo leaves it off, because
   * each game is hundreds of millions of USD (docs/design.md §8). Part of the chain's identity,
   * like the seed: same options ⇒ same chain.
   */
  whales?: boolean;
  /**
   * Additive: the simulation's clock (Unix ms). Default: `startTimeMs` then the wall clock.
   * Tests pass a ManualClock to move the head without sleeping.
   */
  clock?: Clock;
  /**
   * Additive, for benchmarks: after the history pass, render every history transaction's
   * `getTransaction` `json` answer and keep it in memory (≈ 6 KB each), so serving one costs a
   * lookup instead of a render; `ready()` waits for it (transactions/render-ahead.ts, docs/simulator.md). Default false.
   */
  renderAhead?: boolean;
  /**
   * Additive: also serve Yellowstone gRPC (geyser.proto `Subscribe`, docs/simulator.md
   * "Yellowstone gRPC") on its own port: `true` = an ephemeral port, a number = that port.
   * Default off (the gRPC modules are loaded only then).
   */
  yellowstone?: boolean | number;
}

/** A token the simulated chain trades: mint address, symbol, decimals and Pyth feed id. */
export interface SimulatedMint {
  mint: string;
  symbol: string;
  decimals: number;
  /** Pyth feed id (hex, no 0x) or null when only the Jupiter endpoint prices the token. */
  pythFeedId: string | null;
}

/** A running simulator: its URLs, mints, slots, the ground truth, faults and `stop`. */
export interface Simulator {
  /** http://HOST:PORT — JSON-RPC POST. */
  rpcUrl: string;
  /** ws://HOST:PORT — PubSub (logsSubscribe). */
  wsUrl: string;
  /** Base URL of the Hermes-compatible API (…/v2/updates/price/…). */
  hermesUrl: string;
  /** Full URL of the Jupiter price v3-compatible endpoint (GET ?ids=…). */
  jupiterUrl: string;
  mints: SimulatedMint[];
  programId: string;
  /** First slot and start slot of the simulation (history = [historyStartSlot, startSlot)). */
  historyStartSlot: number;
  startSlot: number;
  /** Current slot at a commitment (processed head, confirmed = head − 1, finalized = head − 32). */
  slot(commitment?: Commitment): number;
  /**
   * Ground truth: every decoded event up to now (history + live so far, up to the confirmed
   * slot when called, or `maxSlot`), oldest first. u64 fields are BigInt.
   */
  groundTruth(opts?: { maxSlot?: number }): AsyncIterable<GroundTruthEvent>;
  /** Writes the ground truth as NDJSON (u64 as decimal strings); returns the number of events. */
  exportEvents(file: string, opts?: { maxSlot?: number }): Promise<number>;
  /** Resolves when the first pass over the history is done (every answer is then immediate), and with `renderAhead` its answers are rendered. */
  ready(): Promise<void>;
  /** http://HOST:PORT of the Yellowstone gRPC endpoint (plaintext), when started with `yellowstone`. */
  yellowstoneUrl: string | undefined;
  /**
   * Ends every open Yellowstone `Subscribe` stream with UNAVAILABLE (a dropped connection) and
   * refuses new ones for `refuseMs` (default 0); returns how many were open. 0 without `yellowstone`.
   */
  dropYellowstoneStreams(refuseMs?: number): number;
  /** Yellowstone `Subscribe` streams open now (0 without `yellowstone`). */
  yellowstoneStreams(): number;
  /** Replaces the active faults (null = none). */
  setFaults(spec: string | FaultSpec | null): void;
  stop(): Promise<void>;
}

/** Builds the chain and starts listening; resolves once the server listens (the history pass continues in the background, see `ready`). Throws RangeError on an invalid seed, days, playsPerDay or liveRate. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const seed = opts.seed ?? 1;
  const days = opts.days ?? 365;
  const playsPerDay = opts.playsPerDay ?? 3000;
  const liveRate = opts.liveRate ?? 2;
  const startTimeMs = opts.startTimeMs ?? Date.now();
  if (!Number.isInteger(seed)) throw new RangeError('seed must be an integer');
  if (!(days >= 0)) throw new RangeError('days must be ≥ 0');
  if (!(playsPerDay >= 0)) throw new RangeError('playsPerDay must be ≥ 0');
  if (!(liveRate >= 0)) throw new RangeError('liveRate must be ≥ 0');

  let dice: FaultDice = createFaultDice(seed, normalizeFaults(opts.faults));
  const timeline = createTimeline(startTimeMs, days);
  const prices = createPriceBook(seed);
  const economy = await createEconomy({
    seed,
    historySegments: timeline.historySegments,
    playsPerDay,
    liveRate,
    startTimeMs,
    historyStartMs: slotTimeMs(timeline.historyStartSlot),
    prices,
    whales: opts.whales === true,
  });
  const ledger = createLedger({ seed, playsPerDay, liveRate, timeline, economy, prices, rig: normalizeFaults(opts.faults).rig ?? 0 });
  const clock = createChainClock(startTimeMs, opts.clock);
  const view = createChainView({ seed, ledger, clock, faults: () => dice });
  const rpc = createRpcHandler(view);
  const pubsub = createLogsPubSub(view);
  const app = buildSimulatorServer({ rpc, pubsub, prices, clock, faults: () => dice });

  // The first pass over the history (pool snapshots, ~13 µs per game) runs in the background:
  // getSignaturesForAddress answers at once; a getTransaction waits until the pass reaches it.
  const historySegments = Math.max(0, timeline.historySegments);
  const historyPass = ledger
    .stateBefore(historySegments)
    .then(() => (opts.renderAhead ? renderAhead(view, historySegments) : undefined))
    .then(() => undefined);
  historyPass.catch(() => undefined);

  const host = opts.host ?? '127.0.0.1';
  await app.listen({ host, port: opts.port ?? 0 });
  const { port } = app.server.address() as AddressInfo;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const base = `http://${hostPart}:${port}`;
  let stopped: Promise<void> | null = null;
  const geyser = opts.yellowstone
    ? await (await loadGeyserServer()).startGeyserServer(view, { host, port: typeof opts.yellowstone === 'number' ? opts.yellowstone : 0 })
    : undefined;

  return {
    rpcUrl: base,
    wsUrl: `ws://${hostPart}:${port}`,
    hermesUrl: `${base}${HERMES_PREFIX}`,
    jupiterUrl: `${base}${JUPITER_PATH}`,
    mints: TOKENS.map((t) => ({ mint: t.mint, symbol: t.symbol, decimals: t.decimals, pythFeedId: t.pythFeedId })),
    programId: GAMBA_PROGRAM_ID,
    historyStartSlot: timeline.historyStartSlot,
    startSlot: timeline.startSlot,
    slot: (commitment = 'confirmed') => clock.slot(commitment),
    groundTruth(o = {}) {
      return iterateGroundTruth(view, o.maxSlot ?? clock.slot('confirmed'));
    },
    exportEvents(file, o = {}) {
      return exportGroundTruth(view, file, o.maxSlot ?? clock.slot('confirmed'));
    },
    ready: () => historyPass,
    yellowstoneUrl: geyser?.url,
    dropYellowstoneStreams: (refuseMs?: number) => geyser?.dropStreams(refuseMs) ?? 0,
    yellowstoneStreams: () => geyser?.streams() ?? 0,
    setFaults(spec) {
      dice = createFaultDice(seed, normalizeFaults(spec));
    },
    stop() {
      stopped ??= (async () => {
        ledger.dispose();
        await geyser?.close();
        await pubsub.close();
        await app.close();
      })();
      return stopped;
    },
  };
}

export { parseGroundTruthLine, groundTruthLine, type GroundTruthEvent } from './transactions/index.js';
export { parseFaults, type FaultSpec, type Commitment } from './chain/index.js';
