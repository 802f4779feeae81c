import { AppError } from './errors.js';

/** Resolves after `ms`; rejects with AppError ABORTED (not retryable) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The AppError ABORTED (not retryable) that abortable waits and RPC calls throw when shutting down. */
export function aborted(): AppError {
  return new AppError('ABORTED', 'operation aborted (shutting down)');
}
