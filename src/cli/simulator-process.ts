import type { Common } from '../core/index.js';
import type { Store } from '../store/index.js';
import { superviseChild } from './children.js';

/**
 * The demo's chain simulator in its own process (docs/architecture.md "Process topology"):
 * `gamba-analytics simulate --supervised …`, which sends its URLs over IPC once it listens. It
 * is restarted when it dies (same seed and start time: the same chain, on new ports); the
 * owner learns the new URLs through `onRestart` and restarts the indexer on them.
 */

/**
 * The demo's simulated history: 90 days × 500 games/day (~90k transactions) backfills in a few
 * minutes on a laptop while the newest games are queryable within seconds (the backfill goes
 * newest first); the simulator's own default (365 days × 3000/day) would take an hour and GBs.
 */
export const DEMO_SIMULATION = { days: 90, playsPerDay: 500 } as const;

/** Where a simulated chain answers, and what the indexer needs to price it. */
export interface ChainEndpoints {
  rpcUrl: string;
  wsUrl: string;
  hermesUrl: string;
  jupiterUrl: string;
  /** Simulated mint → Pyth feed id (the Hermes-compatible endpoint prices these). */
  feeds: Record<string, string>;
  /** Days of simulated history (the backfill needs no more). */
  days: number;
}

/** The IPC message `simulate --supervised` sends once it listens. */
export interface SimulatorReady {
  type: 'simulator.ready';
  rpcUrl: string;
  wsUrl: string;
  hermesUrl: string;
  jupiterUrl: string;
  mints: { mint: string; pythFeedId: string | null }[];
}

/** Whether an IPC message is the simulator's ready message. */
export function isSimulatorReady(m: unknown): m is SimulatorReady {
  return (m as { type?: unknown } | null)?.type === 'simulator.ready';
}

/** The demo chain's identity: start time (Unix ms), days of history, games per day, whales. */
export interface SimulationOptions {
  /** The simulation's start ("now" of its history), Unix ms: same start + seed = same chain. */
  startTimeMs: number;
  days: number;
  playsPerDay: number;
  /** Add the BONK whale's exact-u64 games (`simulate --whales`, docs/simulator.md); off in the demo. */
  whales?: boolean;
}

/** The running simulator process: its current endpoints, pid, restart listeners and `stop`. */
export interface SimulatorProcess {
  /** The current endpoints (they change when the simulator is restarted). */
  endpoints(): ChainEndpoints;
  readonly pid: number | undefined;
  /** Called with the new endpoints after each restart of the simulator. */
  onRestart(fn: (endpoints: ChainEndpoints) => void): void;
  /** SIGTERM and wait (also registered with common.shutdown as `simulator`). */
  stop(): Promise<void>;
}

/** How long the first start may take before the demo gives up, ms. */
const READY_TIMEOUT_MS = 60_000;

/**
 * Starts the simulator process and resolves once it listens. Throws when it exits or stays
 * silent for 60 s before its first ready message.
 */
export async function startSimulatorProcess(o: { common: Common; simulation: SimulationOptions }): Promise<SimulatorProcess> {
  const { common } = o;
  const s = o.simulation;
  const args = [
    'simulate',
    '--supervised',
    '--port', '0',
    '--days', String(s.days),
    '--plays-per-day', String(s.playsPerDay),
    '--start-time', String(s.startTimeMs),
    // Live games since the start time exist at once: a restarted demo serves the chain it indexed before.
    '--wall-clock',
    ...(s.whales ? ['--whales'] : []),
  ];
  let current: ChainEndpoints | undefined;
  const listeners: ((e: ChainEndpoints) => void)[] = [];
  let first!: { resolve: () => void; reject: (e: Error) => void };
  const firstReady = new Promise<void>((resolve, reject) => (first = { resolve, reject }));
  const child = superviseChild({
    common,
    name: 'simulator',
    args: () => args,
    onMessage(m) {
      if (!isSimulatorReady(m)) return;
      const restarted = current !== undefined;
      current = {
        rpcUrl: m.rpcUrl,
        wsUrl: m.wsUrl,
        hermesUrl: m.hermesUrl,
        jupiterUrl: m.jupiterUrl,
        feeds: Object.fromEntries(m.mints.filter((x) => x.pythFeedId).map((x) => [x.mint, x.pythFeedId!])),
        days: s.days,
      };
      common.logger.info({ rpc_url: current.rpcUrl }, 'simulator listening');
      if (restarted) for (const fn of listeners) fn(current);
      else first.resolve();
    },
    onExit({ code, signal }) {
      if (!current) first.reject(new Error(`the chain simulator exited (${code ?? signal}) before it listened`));
    },
  });
  const timer = setTimeout(() => first.reject(new Error(`the chain simulator did not listen within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
  try {
    await firstReady;
  } catch (err) {
    await child.stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  common.shutdown.register('simulator', () => child.stop());
  return {
    endpoints: () => current!,
    get pid() {
      return child.pid;
    },
    onRestart: (fn) => void listeners.push(fn),
    stop: () => child.stop(),
  };
}

/**
 * The demo chain's start time, kept in the store (state key `demo.simulator_start_ms`): the
 * simulated chain is a function of (seed, start time), so a restarted demo serves the same chain
 * (its history, then the live games since, on the wall clock) instead of a different chain mixed
 * into the same store. Needs a read-write store.
 */
export async function demoStartTime(store: Store, now: number): Promise<number> {
  const key = 'demo.simulator_start_ms';
  const stored = await store.getState(key);
  if (stored !== undefined) return Number(stored);
  await store.setState({ [key]: String(now) });
  return now;
}

/** The banner of the demo (stdout), with how to index mainnet instead. */
export function printDemoBanner(common: Common, rpcUrl: string): void {
  common.logger.warn({ rpc_url: rpcUrl }, 'demo mode: indexing the built-in chain simulator (set SOLANA_RPC_URL to index mainnet)');
  process.stdout.write(
    [
      '',
      '┌──────────────────────────────────────────────────────────────────────────┐',
      '│ DEMO MODE: no SOLANA_RPC_URL is set, so the built-in chain simulator is  │',
      `│ running on ${rpcUrl.padEnd(62)}│`,
      '│ and is being indexed. Its games, players and prices are simulated.       │',
      '│                                                                          │',
      '│ To index the real Gamba program on Solana mainnet instead:               │',
      '│   SOLANA_RPC_URL=https://<your-rpc-provider> PYTH_API_KEY=… npm start    │',
      '│ (use a fresh DATABASE_URL: simulated and real data must not be mixed)    │',
      '└──────────────────────────────────────────────────────────────────────────┘',
      '',
    ].join('\n'),
  );
}
