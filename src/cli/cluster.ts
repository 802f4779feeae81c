import cluster, { type Worker } from 'node:cluster';
import type { Common } from '../core/index.js';

/**
 * `serve --workers N` (docs/deployment.md): the primary forks N API worker processes with node:cluster;
 * they share the listening port (the primary accepts and hands connections round-robin).
 * The primary itself serves no HTTP: it supervises the indexer child process (unless
 * `--no-indexer`) and relays between it and the workers (src/cli/indexer-link.ts), so every
 * worker sees the indexer's state and its triggers reach it. A worker that dies is replaced
 * after a second; on shutdown the primary sends SIGTERM to every worker (each drains its
 * requests) and waits for them.
 */
export interface WorkerPool {
  /** Resolves with the shared URL once every worker listens. */
  listening: Promise<string>;
  /** Sends an IPC message to every live worker. */
  broadcast(message: object): void;
  /** SIGTERM to every worker, then waits (SIGKILL after `graceMs`, default 10 s). */
  close(graceMs?: number): Promise<void>;
}

/** What the primary adds to its workers: their environment and its side of their IPC. */
export interface WorkerHooks {
  /** Extra environment of every worker. */
  env?: Record<string, string>;
  /** An IPC message from a worker; `reply` answers that worker. */
  onMessage?(message: unknown, reply: (m: object) => void): void;
  /** A worker came up (also a replacement): `send` reaches it (e.g. the latest indexer state). */
  onOnline?(send: (m: object) => void): void;
}

/** Sends to a worker unless its channel is gone (it is being replaced). */
function sendTo(w: Worker, m: object): void {
  if (!w.isConnected()) return;
  try {
    w.send(m);
  } catch {
    /* the worker is exiting; its replacement gets the next message */
  }
}

/** Env var telling a forked process it is an API worker of `serve --workers`. */
export const WORKER_ENV = 'GAMBA_API_WORKER';

/** Whether this process is an API worker forked by `serve --workers`. */
export function isApiWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_ENV] === '1';
}

/** Forks `count` API workers (node:cluster) that share one port, replacing any that dies after 1 s. */
export function forkApiWorkers(common: Common, count: number, host: string, hooks: WorkerHooks = {}): WorkerPool {
  const { logger } = common;
  let stopping = false;
  const live = new Set<Worker>();
  let resolveListening!: (url: string) => void;
  const listening = new Promise<string>((r) => (resolveListening = r));
  const listened = new Set<number>();

  const fork = () => {
    const w = cluster.fork({ ...hooks.env, [WORKER_ENV]: '1' });
    live.add(w);
    w.on('message', (m: unknown) => hooks.onMessage?.(m, (reply) => sendTo(w, reply)));
    w.on('online', () => hooks.onOnline?.((m) => sendTo(w, m)));
    w.on('listening', (address) => {
      listened.add(w.id);
      if (listened.size === count) {
        const shown = address.address && address.address !== '0.0.0.0' && address.address !== '::' ? address.address : host;
        resolveListening(`http://${shown.includes(':') ? `[${shown}]` : shown}:${address.port}`);
      }
    });
    w.on('exit', (code, signal) => {
      live.delete(w);
      if (stopping) return;
      logger.error({ worker: w.id, pid: w.process.pid, code, signal }, 'API worker exited; starting a replacement');
      setTimeout(() => {
        if (!stopping) fork();
      }, 1000).unref();
    });
  };
  for (let i = 0; i < count; i++) fork();

  return {
    listening,
    broadcast(m) {
      for (const w of live) sendTo(w, m);
    },
    async close(graceMs = 10_000) {
      stopping = true;
      await Promise.all(
        [...live].map(
          (w) =>
            new Promise<void>((resolve) => {
              if (w.isDead()) return resolve();
              const timer = setTimeout(() => w.process.kill('SIGKILL'), graceMs);
              w.once('exit', () => {
                clearTimeout(timer);
                resolve();
              });
              w.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
