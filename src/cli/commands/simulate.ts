import { type Command, InvalidArgumentError, Option } from 'commander';
import { createShutdown, systemClock } from '../../core/index.js';
import type { Simulator } from '../../simulator/index.js';
import type { SimulatorReady } from '../simulator-process.js';

/**
 * `gamba-analytics simulate`: the local Solana chain simulator of the Gamba program (docs/simulator.md).
 * Prints its URLs, optionally exports the ground truth as NDJSON (at start and again on
 * shutdown, so live games are included), stops on SIGINT/SIGTERM. It is also the demo's
 * simulator process (`--supervised`, docs/architecture.md "Process topology"): URLs go to the
 * parent over IPC, and it exits when the parent is gone.
 */
interface SimulateFlags {
  port: number;
  host: string;
  seed: number;
  days: number;
  playsPerDay: number;
  liveRate: number;
  faults?: string;
  startTime?: number;
  whales?: boolean;
  exportEvents?: string;
  exportOnly?: boolean;
  wallClock?: boolean;
  yellowstonePort?: number;
  supervised?: boolean;
}

function intArg(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    if (!/^-?\d+$/.test(raw)) throw new InvalidArgumentError(`${name} must be an integer`);
    const n = Number(raw);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}`);
    return n;
  };
}

function numArg(name: string, min: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < min) throw new InvalidArgumentError(`${name} must be a number ≥ ${min}`);
    return n;
  };
}

function timeArg(raw: string): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('--start-time must be Unix milliseconds or an ISO 8601 date-time');
  return n;
}

/** Registers `gamba-analytics simulate` (docs/simulator.md): the chain simulator as a command; flag errors are commander InvalidArgumentErrors. */
export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('run the local Solana JSON-RPC simulator of the Gamba v2 program (RPC, WebSocket, Hermes/Jupiter price endpoints)')
    .option('--port <port>', 'listen port', intArg('--port', 0, 65535), 8899)
    .option('--host <host>', 'listen address', '127.0.0.1')
    .option('--seed <n>', 'seed of the simulated history', intArg('--seed', 0, 2 ** 31 - 1), 1)
    .option('--days <n>', 'days of history ending now', numArg('--days', 0), 365)
    .option('--plays-per-day <n>', 'average settled games per day in the history', numArg('--plays-per-day', 0), 3000)
    .option('--live-rate <n>', 'new games per second after start (0 = none)', numArg('--live-rate', 0), 2)
    .option('--faults <spec>', 'fault injection, e.g. "429=0.05,503=0.02,slow=0.1@800,null-tx=5,truncate=0.01"')
    .option('--start-time <time>', 'the simulation\'s "now" (Unix ms or ISO 8601); same seed + start time = same chain', timeArg)
    .option('--yellowstone-port <port>', 'also serve Yellowstone gRPC (geyser.proto Subscribe) on this port (0 = any free port)', intArg('--yellowstone-port', 0, 65535))
    .option('--whales', 'add the BONK whale: seven 1.5·10^18-unit games whose BONK volume passes 2^63 (exact u64 sums; hundreds of millions of USD each)')
    .option('--export-events <file>', 'write the ground truth as NDJSON at start and again on shutdown')
    .option('--export-only', 'with --export-events: write the file and exit without serving')
    .option('--wall-clock', 'the chain\'s clock is the wall clock: with a past --start-time, the live games since then exist at once (default: time runs from --start-time)')
    .addOption(new Option('--supervised', 'run as the demo\'s simulator child process (URLs to the parent over IPC)').hideHelp())
    .action(async (flags: SimulateFlags) => {
      await runSimulate(flags);
    });
}

async function runSimulate(flags: SimulateFlags): Promise<void> {
  if (flags.exportOnly && !flags.exportEvents) throw new InvalidArgumentError('--export-only needs --export-events FILE');
  // Loaded here, not at the top: the HTTP process imports this command's registration (docs/architecture.md "Process topology").
  const { parseFaults, startSimulator } = await import('../../simulator/index.js');
  if (flags.faults !== undefined) {
    try {
      parseFaults(flags.faults);
    } catch (err) {
      throw new InvalidArgumentError(`--faults: ${(err as Error).message}`);
    }
  }
  const sim: Simulator = await startSimulator({
    seed: flags.seed,
    days: flags.days,
    playsPerDay: flags.playsPerDay,
    liveRate: flags.liveRate,
    faults: flags.faults,
    host: flags.host,
    port: flags.exportOnly ? 0 : flags.port,
    startTimeMs: flags.startTime,
    ...(flags.wallClock ? { clock: systemClock } : {}),
    whales: flags.whales === true,
    ...(flags.yellowstonePort !== undefined && !flags.exportOnly ? { yellowstone: flags.yellowstonePort === 0 ? true : flags.yellowstonePort } : {}),
  });
  const exportNow = async () => {
    if (!flags.exportEvents) return;
    const n = await sim.exportEvents(flags.exportEvents);
    process.stdout.write(`exported ${n} events to ${flags.exportEvents}\n`);
  };
  if (flags.exportOnly) {
    await exportNow();
    await sim.stop();
    return;
  }
  if (flags.supervised && typeof process.send === 'function') return runSupervised(sim);
  process.stdout.write(
    [
      `Gamba chain simulator: seed ${flags.seed}, ${flags.days} days × ${flags.playsPerDay} plays/day, live ${flags.liveRate} games/s${flags.whales ? ', BONK whale' : ''}${flags.faults ? `, faults ${flags.faults}` : ''}`,
      `  JSON-RPC   ${sim.rpcUrl}`,
      `  WebSocket  ${sim.wsUrl}`,
      ...(sim.yellowstoneUrl ? [`  Yellowstone gRPC ${sim.yellowstoneUrl}  (LIVE_SOURCE=yellowstone YELLOWSTONE_URL=${sim.yellowstoneUrl})`] : []),
      `  Hermes     ${sim.hermesUrl}`,
      `  Jupiter    ${sim.jupiterUrl}`,
      `  program    ${sim.programId}`,
      '',
    ].join('\n'),
  );
  await exportNow();

  const shutdown = createShutdown((name, err) => process.stderr.write(`shutdown step ${name} failed: ${String(err)}\n`));
  shutdown.register('simulator', () => sim.stop());
  shutdown.register('export', exportNow);
  await new Promise<void>((resolve) => {
    const stop = () => void shutdown.close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** As the demo's child process: URLs to the parent, stop on SIGTERM/SIGINT or when the parent is gone. */
async function runSupervised(sim: Simulator): Promise<void> {
  const ready: SimulatorReady = {
    type: 'simulator.ready',
    rpcUrl: sim.rpcUrl,
    wsUrl: sim.wsUrl,
    hermesUrl: sim.hermesUrl,
    jupiterUrl: sim.jupiterUrl,
    mints: sim.mints.map((m) => ({ mint: m.mint, pythFeedId: m.pythFeedId })),
  };
  await new Promise<void>((resolve) => {
    const stop = () => void sim.stop().then(resolve, resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    // The parent may have died while this process was starting (the event came and went).
    if (!process.connected) return stop();
    process.once('disconnect', stop);
    process.send!(ready);
  });
  // The IPC channel would keep the process alive.
  process.exit(0);
}
