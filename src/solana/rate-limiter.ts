import { sleep } from '../core/index.js';

/**
 * Client-side request-rate cap: a token bucket holding up to `ratePerSec` tokens (one second
 * of burst), refilled continuously. A batch takes one token per item (providers count batch
 * items as requests: Helius and the public mainnet limits in docs/protocol.md §2). A caller may
 * overdraw (a batch larger than the bucket goes when the bucket is non-empty), so the long-run
 * rate stays at `ratePerSec` without starving large batches.
 */
export interface RateLimiter {
  acquire(tokens: number, signal?: AbortSignal): Promise<void>;
}

/** A rate cap of `ratePerSec` requests per second; `now` is a monotonic ms clock (default performance.now). Waits reject with AppError ABORTED when the signal aborts. */
export function createRateLimiter(ratePerSec: number, now: () => number = () => performance.now()): RateLimiter {
  const capacity = Math.max(1, ratePerSec);
  let tokens = capacity;
  let last = now();
  // A FIFO chain keeps waiters in order so a big batch is not starved by small calls.
  let queue: Promise<void> = Promise.resolve();

  const refill = () => {
    const t = now();
    tokens = Math.min(capacity, tokens + ((t - last) / 1000) * ratePerSec);
    last = t;
  };

  return {
    acquire(n, signal) {
      const turn = queue.then(async () => {
        refill();
        while (tokens <= 0) {
          await sleep(Math.ceil(((1 - tokens) / ratePerSec) * 1000), signal);
          refill();
        }
        tokens -= n;
      });
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}
