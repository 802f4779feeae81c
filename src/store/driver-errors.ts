import { AppError, isAppError } from '../core/index.js';

/**
 * The store owns its drivers' errors (docs/architecture.md convention 5): where a read query is
 * executed, an error meaning "the store cannot answer right now" becomes
 * `AppError('STORE_UNAVAILABLE', retryable)`, which the API answers with 503 (docs/errors.md). Every
 * other error passes through unchanged (an AppError of ours, or a real fault → 500).
 */

/** SQLite result codes (better-sqlite3 `SqliteError.code`, extended codes start with these). */
const SQLITE_UNAVAILABLE = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_PROTOCOL', 'SQLITE_INTERRUPT'];

/**
 * PostgreSQL SQLSTATEs (PostgreSQL documentation, Appendix A "Error Codes"): class 08 connection
 * exception; 57014 query_canceled (our statement_timeout); 57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now; 53300 too_many_connections; 40P01 deadlock_detected
 * and 55P03 lock_not_available cannot happen on reads but mean "retry" all the same.
 */
const PG_UNAVAILABLE = new Set(['57014', '57P01', '57P02', '57P03', '53300', '40P01', '55P03']);

/** Socket errors raised by the pg driver's connection (never by an HTTP client: those never reach the store). */
const SOCKET_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Messages of errors that carry no code: pg's client-side timeouts and closed connections,
 * pg-pool after `end()`, better-sqlite3 after `close()`, Kysely after `destroy()`.
 */
const UNAVAILABLE_MESSAGE =
  /Query read timeout|timeout exceeded when trying to connect|Connection terminated|connection timeout|timeout expired|Client has encountered a connection error|Connection is closed|Cannot use a pool after calling end|database connection is not open|driver has already been destroyed/i;

/** true when `err` (or one of its causes) means the store cannot answer right now. */
export function isStoreUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isAppError(e) && e.code === 'STORE_UNAVAILABLE') return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (SQLITE_UNAVAILABLE.some((c) => code === c || code.startsWith(`${c}_`))) return true;
      if (PG_UNAVAILABLE.has(code) || code.startsWith('08')) return true;
      if (SOCKET_UNAVAILABLE.has(code)) return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

/** `STORE_UNAVAILABLE` with the driver's error as its cause (logged by the API, never sent). */
export function storeUnavailable(why: string, cause?: unknown): AppError {
  return new AppError('STORE_UNAVAILABLE', `store unavailable: ${why}`, { retryable: true, cause });
}

/** Maps a driver error to STORE_UNAVAILABLE when it means "cannot answer now"; anything else is returned as is. */
export function toStoreError(err: unknown): unknown {
  if (isAppError(err)) return err;
  if (isStoreUnavailable(err)) return storeUnavailable((err as Error)?.message ?? String(err), err);
  return err;
}

/**
 * Rejects with STORE_UNAVAILABLE when `work` has not settled within `timeoutMs` (the store
 * deadline, docs/hardening.md "Store deadline"). The work itself is not cancelled here: the
 * driver's own timeouts end it (PostgreSQL `statement_timeout` / `query_timeout`).
 */
export function withDeadline<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(storeUnavailable(`no answer within ${timeoutMs} ms (${what})`)), timeoutMs);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Wraps every method of `target` (an object of async functions) so its errors go through
 * toStoreError and, with `timeoutMs`, so it answers within the store deadline; after
 * `isClosed()` turns true every call fails with STORE_UNAVAILABLE.
 */
export function mappingErrors<T extends object>(target: T, timeoutMs?: number, isClosed?: () => boolean): T {
  const out = {} as Record<string, unknown>;
  for (const [name, fn] of Object.entries(target)) {
    if (typeof fn !== 'function') {
      out[name] = fn;
      continue;
    }
    out[name] = async (...args: unknown[]) => {
      // Kysely ignores destroy() before its first query, and would then serve one: a closed store answers nothing.
      if (isClosed?.()) throw storeUnavailable('the store is closed');
      try {
        const work = (fn as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        return await (timeoutMs === undefined ? work : withDeadline(work, timeoutMs, name));
      } catch (err) {
        throw toStoreError(err);
      }
    };
  }
  return out as T;
}

/**
 * true when the connection that raised `err` cannot be reused: no SQLSTATE (a socket error, a
 * client-side timeout whose query may still be running), class 08, or a server shutdown (57P…).
 * A server error such as 57014 (our statement_timeout) leaves the connection usable.
 */
export function breaksConnection(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P');
}
