/** Bounds the number of HTTP requests in flight (RPC_CONCURRENCY); FIFO. */
export interface Semaphore {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** A FIFO semaphore letting `max` tasks run at once. */
export function createSemaphore(max: number): Semaphore {
  let active = 0;
  const waiters: (() => void)[] = [];
  const acquire = (): Promise<void> => {
    if (active < max) {
      active++;
      return Promise.resolve();
    }
    // The slot is handed over by release() without being freed, so no newcomer can jump in.
    return new Promise<void>((r) => waiters.push(r));
  };
  const release = () => {
    const next = waiters.shift();
    if (next) next();
    else active--;
  };
  return {
    async run(fn) {
      await acquire();
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}
