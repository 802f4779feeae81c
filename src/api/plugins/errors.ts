import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Clock, isAppError, isoMs } from '../../core/index.js';
import { ERROR_CODES, type ApiErrorCode, type ErrorBody, isApiErrorCode } from '../errors.js';

/**
 * Error handling (docs/architecture.md convention 6): one handler with three branches — our AppErrors, the
 * framework's errors, anything else (→ 500, logged with the request id, generic body) —
 * plus the 404/405 handler. Every answer is the docs/spec.md §7 body.
 */

interface Classified {
  code: ApiErrorCode;
  message: string;
  retryAfter?: number;
  allow?: string;
  /** Unexpected: log at error level with the stack. */
  unexpected: boolean;
}

/**
 * Errors of the request stream itself: the client closed the connection before its request was
 * complete (Node's `aborted` with ECONNRESET while the body is read, ECONNABORTED, or a reset or
 * broken pipe on a socket that is gone). Not a fault of ours nor of the store: logged at debug
 * level, answered (to nobody) with 400. Our own errors (AppError) are never taken for one: a store
 * that failed while its client gave up is still logged as a store failure. Store errors cannot
 * look like this either: the store maps its drivers' errors to STORE_UNAVAILABLE where they occur.
 */
function isClientAbort(err: unknown, request: FastifyRequest): boolean {
  if (isAppError(err)) return false;
  const e = err as { code?: unknown; message?: unknown };
  if (e?.code === 'ECONNRESET' && e.message === 'aborted') return true;
  if (e?.code === 'ECONNABORTED') return true;
  return (e?.code === 'ECONNRESET' || e?.code === 'EPIPE') && (request.raw.aborted || request.raw.socket?.destroyed === true);
}

/** Seconds a client told "store unavailable" should wait (`Retry-After`): as for a saturated API; a longer outage costs a polite client one cheap 503 a second. */
const STORE_RETRY_AFTER_S = 1;

const FRAMEWORK_CODES: Record<string, ApiErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BAD_REQUEST',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BAD_REQUEST',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_BAD_URL: 'BAD_REQUEST',
  FST_ERR_MAX_PARAM_LENGTH: 'BAD_REQUEST',
  FST_ERR_NOT_FOUND: 'NOT_FOUND',
};

const BY_STATUS: Record<number, ApiErrorCode> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
};

/**
 * Maps any thrown value to an API error code and message (docs/architecture.md convention 6): our
 * AppErrors with an API code, the framework's errors by code or status, everything else 500 (`unexpected`).
 */
export function classifyError(err: unknown): Classified {
  if (isAppError(err) && err.code === 'STORE_UNAVAILABLE') {
    // The store's message names the driver error or the deadline: for the log, not for the client.
    return { code: 'STORE_UNAVAILABLE', message: ERROR_CODES.STORE_UNAVAILABLE.message, retryAfter: STORE_RETRY_AFTER_S, unexpected: false };
  }
  if (isAppError(err) && isApiErrorCode(err.code)) {
    const d = err.details ?? {};
    return {
      code: err.code,
      message: err.message,
      retryAfter: typeof d.retryAfter === 'number' ? d.retryAfter : undefined,
      allow: typeof d.allow === 'string' ? d.allow : undefined,
      unexpected: err.code === 'INTERNAL_ERROR',
    };
  }
  const fe = err as Partial<FastifyError> & { status?: number; type?: string };
  const fwCode = typeof fe.code === 'string' ? FRAMEWORK_CODES[fe.code] : undefined;
  if (fwCode) return { code: fwCode, message: fe.message || ERROR_CODES[fwCode].message, unexpected: false };
  // JSON.parse SyntaxError from the body parser carries statusCode 400; other client errors by status.
  const status = fe.statusCode ?? fe.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = BY_STATUS[status] ?? 'BAD_REQUEST';
    return { code, message: fe.message || ERROR_CODES[code].message, unexpected: false };
  }
  return { code: 'INTERNAL_ERROR', message: ERROR_CODES.INTERNAL_ERROR.message, unexpected: true };
}

/** The docs/spec.md §7 error body; `retryAfter` (seconds) in the body on 429 only. */
export function errorBody(c: Pick<Classified, 'code' | 'message' | 'retryAfter'>, clock: Clock): ErrorBody {
  // `retryAfter` is part of the body on 429 only (docs/spec.md §7); other codes carry just the Retry-After header.
  const withRetry = c.retryAfter !== undefined && c.code === 'RATE_LIMITED';
  return { error: c.message, code: c.code, timestamp: isoMs(clock.now()), ...(withRetry ? { retryAfter: c.retryAfter } : {}) };
}

/** Sends a classified error: its registry status, `Retry-After` (s) and `Allow` headers when set, the JSON body. */
export function sendError(reply: FastifyReply, c: Classified, clock: Clock): FastifyReply {
  if (c.retryAfter !== undefined) reply.header('retry-after', String(c.retryAfter));
  if (c.allow !== undefined) reply.header('allow', c.allow);
  return reply.code(ERROR_CODES[c.code].status).type('application/json; charset=utf-8').send(errorBody(c, clock));
}

/** For the Fastify `frameworkErrors` option: errors raised before routing (malformed URL). */
export function frameworkErrorHandler(clock: Clock) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const c = classifyError(err);
    request.log.info({ err_code: err.code, url: request.url }, 'request rejected before routing');
    void sendError(reply, c, clock);
  };
}

/** Installs the error and not-found handlers on `app` (before any route is added). */
export function registerErrorHandling(app: FastifyInstance, clock: Clock): void {
  // Methods per static path, for 405 + Allow (Fastify itself answers 404 for a wrong method).
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*') || route.url.includes(':')) return;
    const set = methodsByPath.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) set.add(m.toUpperCase());
    methodsByPath.set(route.url, set);
  });

  app.setErrorHandler((err, request, reply) => {
    if (isClientAbort(err, request)) {
      request.log.debug({ err_code: (err as { code?: unknown }).code }, 'client closed the connection before the request was complete');
      return sendError(reply, { code: 'BAD_REQUEST', message: 'Request aborted by the client', unexpected: false }, clock);
    }
    const c = classifyError(err);
    if (c.unexpected) request.log.error({ err }, 'request failed');
    // The cause (driver error, deadline) is logged for the operator; the client gets the generic 503 body.
    else if (c.code === 'STORE_UNAVAILABLE') request.log.warn({ err }, 'store unavailable');
    else request.log.debug({ err_code: c.code, msg_detail: c.message }, 'request rejected');
    return sendError(reply, c, clock);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const methods = methodsByPath.get(path);
    if (methods && methods.size > 0) {
      const allow = [...methods].filter((m) => m !== 'OPTIONS').sort().join(', ');
      return sendError(reply, { code: 'METHOD_NOT_ALLOWED', message: `Method ${request.method} not allowed on ${path}; allowed: ${allow}`, allow, unexpected: false }, clock);
    }
    return sendError(reply, { code: 'NOT_FOUND', message: `Route ${request.method} ${path.slice(0, 200)} not found`, unexpected: false }, clock);
  });
}
