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
  /** Part copies of one reader, MiB; 0 = none (docs/design.md §7 "Part vectors"). */
  copiesMiB: number;
}

/** What a reader thread can run: a read query by name, or `ping`. */
export type ReaderMethod = keyof Queries | 'ping';

/** One call sent to a reader thread: the method and its (structured-clone) arguments. */
export interface ReaderTask {
  method: ReaderMethod;
  args: unknown[];
}

/** An error as plain data, so it crosses the thread boundary (AppError fields kept). */
export interface SerializedError {
  /** true: rebuild as AppError(code, message, { details, retryable }). */
  app: boolean;
  code?: string;
  message: string;
  details?: Record<string, unknown>;
  retryable?: boolean;
  stack?: string;
}

/** A reader thread's answer: the value, or the error as data (never a thrown error). */
export type ReaderAnswer = { ok: true; value: unknown } | { ok: false; error: SerializedError };

/** An error as plain data: an AppError keeps code, message, details and retryable; other errors their code and message. */
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
