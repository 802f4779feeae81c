import { fork, type ChildProcess } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import type { Common } from '../core/index.js';

/**
 * Child processes of `serve` and `index --simulate` (docs/architecture.md "Process topology"):
 * this same CLI, re-run with other arguments (`index --supervised`, `simulate --supervised`),
 * supervised — restarted with backoff when it dies, stopped on request with SIGTERM (SIGKILL
 * after a grace period).
 *
 * Entry resolution: `process.execPath` with this process's `execArgv` and script
 * (`process.argv[1]`), so a production run (`bin/gamba-analytics.js` over `dist/`) forks the
 * compiled CLI and a dev/test run (`node --import tsx test/helpers/entries/run-cli.ts`) forks the
 * TypeScript sources the same way.
 *
 * Each child gets its own process group (`detached`): a Ctrl-C in a terminal reaches only this
 * process, which then stops the children in order. A child whose parent vanished (SIGKILL)
 * sees its IPC channel close and exits (src/cli/process.ts `exitWithParent`).
 */
export interface SupervisedChildOptions {
  common: Common;
  /** Name in logs: `indexer`, `simulator`. */
  name: string;
  /** CLI arguments, asked at every (re)start (a restarted simulator has new URLs). */
  args: () => string[];
  /** Environment on top of this process's. */
  env?: NodeJS.ProcessEnv;
  /**
   * Added niceness (default 10): batch work (indexing, simulating) yields the CPU to the
   * process answering HTTP on a busy host; idle cores are still used in full.
   */
  nice?: number;
  /** Every IPC message from the child. */
  onMessage?: (message: unknown) => void;
  /** After every spawn, with the new pid. */
  onSpawn?: (pid: number) => void;
  /** After every exit (restarts follow unless stopping). */
  onExit?: (exit: { code: number | null; signal: NodeJS.Signals | null }) => void;
  /** First restart delay, ms (default 1000); doubles per quick crash up to `maxBackoffMs` (default 30 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** A supervised child process: its pid, IPC sends, restart and stop. */
export interface SupervisedChild {
  /** The running child's pid; undefined between a crash and its restart. */
  readonly pid: number | undefined;
  /** Sends an IPC message; false when no child is connected. */
  send(message: object): boolean;
  /** Asks the child to stop (SIGTERM); the supervisor starts a new one right away. */
  restart(): void;
  /** Stops supervising: SIGTERM, then SIGKILL after `graceMs` (default 8000); resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

/** A child that stayed up this long resets the restart delay, ms. */
const STABLE_AFTER_MS = 60_000;

/** Forks the child at once and keeps it running: restarts after a crash (backoff doubling per quick crash, from `backoffMs` up to `maxBackoffMs`); throws Error when this process has no CLI script to re-run. */
export function superviseChild(o: SupervisedChildOptions): SupervisedChild {
  const { logger } = o.common;
  const initialBackoff = o.backoffMs ?? 1000;
  const maxBackoff = o.maxBackoffMs ?? 30_000;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stopping = false;
  let backoff = initialBackoff;
  let restartNow = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const spawnOne = () => {
    timer = undefined;
    if (stopping) return;
    const script = process.argv[1];
    if (!script) throw new Error('cannot fork a child: no CLI script in process.argv[1]');
    const startedAt = Date.now();
    const c = fork(script, o.args(), {
      execPath: process.execPath,
      execArgv: process.execArgv,
      env: { ...process.env, ...o.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
    });
    child = c;
    let resolveExit!: () => void;
    exited = new Promise<void>((r) => (resolveExit = r));
    c.on('message', (m) => o.onMessage?.(m));
    // A send to a child that just died fails asynchronously with EPIPE / ERR_IPC_CHANNEL_CLOSED: the exit handler deals with it.
    c.on('error', (err) => logger.warn({ err, child: o.name }, 'child process error'));
    c.once('spawn', () => {
      if (c.pid === undefined) return;
      try {
        setPriority(c.pid, Math.min(19, (o.nice ?? 10) + getPriority()));
      } catch (err) {
        logger.debug({ err, child: o.name }, 'could not lower the child process priority');
      }
      logger.info({ child: o.name, pid: c.pid }, 'child process started');
      o.onSpawn?.(c.pid);
    });
    c.once('exit', (code, signal) => {
      if (child === c) child = undefined;
      resolveExit();
      o.onExit?.({ code, signal });
      if (stopping) return;
      const quick = Date.now() - startedAt < STABLE_AFTER_MS;
      const delay = restartNow ? 0 : quick ? backoff : initialBackoff;
      backoff = quick && !restartNow ? Math.min(maxBackoff, backoff * 2) : initialBackoff;
      if (!restartNow) logger.error({ child: o.name, pid: c.pid, code, signal, restart_in_ms: delay }, 'child process exited; restarting it');
      restartNow = false;
      timer = setTimeout(spawnOne, delay);
    });
  };
  spawnOne();

  return {
    get pid() {
      return child?.pid;
    },
    send(message) {
      const c = child;
      if (!c?.connected) return false;
      try {
        return c.send(message);
      } catch {
        return false;
      }
    },
    restart() {
      if (stopping || !child) return;
      restartNow = true;
      child.kill('SIGTERM');
    },
    async stop(graceMs = 8000) {
      stopping = true;
      if (timer) clearTimeout(timer);
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const kill = setTimeout(() => {
        logger.warn({ child: o.name, pid: c.pid, grace_ms: graceMs }, 'child process did not stop in time: SIGKILL');
        c.kill('SIGKILL');
      }, graceMs);
      c.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
    },
  };
}
