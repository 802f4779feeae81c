import { AppError, isAppError } from '../../core/index.js';
import type { Queries } from '../types.js';

/**
 * What crosses the thread boundary between the API's event loop and a reader thread
 * (docs/architecture.md "Reader pool"). Values travel by structured clone, which keeps BigInt
 * exactly (token amounts, docs/architecture.md "Exact token sums"); errors travel as plain data so an
 * AppError arrives with the same code, details and retryable flag it was thrown with.
 */

/** SQLite settings of every reader thread (`workerData`). */
export interface ReaderSettings {
  path: string;
  /** Lock wait of a reader, ms: at least the deadline, so the deadline decides (see pool.ts). */
  busyTimeoutMs: number;
  /** Page cache of one reader, MiB. */
  cacheMiB: number;
}

export type ReaderMethod = keyof Queries | 'ping';

export interface ReaderTask {
  method: ReaderMethod;
  args: unknown[];
}

export interface SerializedError {
  /** true: rebuild as AppError(code, message, { details, retryable }). */
  app: boolean;
  code?: string;
  message: string;
  details?: Record<string, unknown>;
  retryable?: boolean;
  stack?: string;
}

export type ReaderAnswer = { ok: true; value: unknown } | { ok: false; error: SerializedError };

export function serializeError(err: unknown): SerializedError {
  if (isAppError(err)) return { app: true, code: err.code, message: err.message, details: err.details, retryable: err.retryable, stack: err.stack };
  const e = err as { code?: unknown; message?: unknown; stack?: unknown };
  return {
    app: false,
    code: typeof e?.code === 'string' ? e.code : undefined,
    message: typeof e?.message === 'string' ? e.message : String(err),
    stack: typeof e?.stack === 'string' ? e.stack : undefined,
  };
}

/** The error as the main thread rethrows it: an AppError of the same code, or an Error carrying the driver's code. */
export function deserializeError(s: SerializedError): Error {
  const err = s.app ? new AppError(s.code ?? 'INTERNAL_ERROR', s.message, { details: s.details, retryable: s.retryable }) : Object.assign(new Error(s.message), s.code ? { code: s.code } : {});
  // The reader thread's stack says where it failed; the main thread's says nothing useful.
  if (s.stack) err.stack = s.stack;
  return err;
}
