import cluster, { type Worker } from 'node:cluster';
import type { Common } from '../core/index.js';

/**
 * `serve --workers N` (docs/deployment.md): the primary forks N API worker processes with node:cluster;
 * they share the listening port (the primary accepts and hands connections round-robin).
 * The primary itself serves no HTTP: it runs the indexer (unless `--no-indexer`) so there is
 * still exactly one writer. A worker that dies is replaced after a second; on shutdown the
 * primary sends SIGTERM to every worker (each drains its requests) and waits for them.
 */
export interface WorkerPool {
  /** Resolves with the shared URL once every worker listens. */
  listening: Promise<string>;
  /** SIGTERM to every worker, then waits (SIGKILL after `graceMs`, default 10 s). */
  close(graceMs?: number): Promise<void>;
}

/** Env var telling a forked process it is an API worker of `serve --workers`. */
export const WORKER_ENV = 'GAMBA_API_WORKER';

export function isApiWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_ENV] === '1';
}

export function forkApiWorkers(common: Common, count: number, host: string): WorkerPool {
  const { logger } = common;
  let stopping = false;
  const live = new Set<Worker>();
  let resolveListening!: (url: string) => void;
  const listening = new Promise<string>((r) => (resolveListening = r));
  const listened = new Set<number>();

  const fork = () => {
    const w = cluster.fork({ [WORKER_ENV]: '1' });
    live.add(w);
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
