import { type IncomingMessage, type RequestListener, type Server, type ServerResponse, createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../core/index.js';
import { ERROR_CODES, type ApiErrorCode, apiError } from '../errors.js';
import { errorBody } from './errors.js';

/**
 * Limits a public-facing Node service needs (docs/hardening.md): sizes, timeouts and
 * the HTTP server options that carry them. Fastify 5 turns Node's own request timeout OFF
 * (`requestTimeout: 0`) and checks timeouts only every 30 s by default, so a client trickling
 * a request byte by byte (slowloris) could hold a socket for ever; these defaults close it.
 */
export interface HttpLimits {
  /** Longest request target (path + query), bytes; longer → 414 URI_TOO_LONG. Default 8 KiB. */
  maxUrlLength: number;
  /** Request line + headers, bytes (Node `maxHeaderSize`); larger → 431 HEADERS_TOO_LARGE. Default 16 KiB. */
  maxHeaderSize: number;
  /** All headers must arrive within this many ms of the request's start → else 408. Default 10 000. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) within this many ms → else 408. Default 30 000. */
  requestTimeoutMs: number;
  /** An idle keep-alive socket is closed after this many ms. Default 72 000 (above the 60 s of common load balancers). */
  keepAliveTimeoutMs: number;
  /** How often Node enforces the two timeouts above, ms (Node's default is 30 000). Default 1 000. */
  timeoutCheckIntervalMs: number;
}

/** Default URL/header sizes (bytes) and timeouts (ms) of docs/hardening.md. */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxUrlLength: 8 * 1024,
  maxHeaderSize: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 72_000,
  timeoutCheckIntervalMs: 1_000,
};

/** Merges partial limits over the defaults; Node requires headersTimeout ≤ requestTimeout. */
export function resolveHttpLimits(partial: Partial<HttpLimits> = {}): HttpLimits {
  const l = { ...DEFAULT_HTTP_LIMITS, ...partial };
  return { ...l, headersTimeoutMs: Math.min(l.headersTimeoutMs, l.requestTimeoutMs) };
}

/**
 * The Fastify constructor options that carry the limits (spread into `Fastify({...})`). The server
 * itself is made by `serverFactory` (createHttpServer): `listener` sees every request first and
 * passes those it does not answer to Fastify's handler (plugins/hit-lane.ts).
 */
export function fastifyServerOptions(limits: HttpLimits, clock: Clock, listener: (req: IncomingMessage, res: ServerResponse, fastify: RequestListener) => void) {
  return {
    clientErrorHandler: clientErrorHandler(clock),
    serverFactory: (fastify: RequestListener) => createHttpServer(limits, (req, res) => listener(req, res, fastify)),
  };
}

/**
 * A Node HTTP/1.1 server with the limits: header size, headers and request timeouts (checked every
 * `timeoutCheckIntervalMs`), keep-alive timeout. Fastify's own factory would set the same from its
 * options; with `serverFactory` they are ours to set.
 */
export function createHttpServer(limits: HttpLimits, listener: RequestListener): Server {
  const server = createServer({
    maxHeaderSize: limits.maxHeaderSize,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
  }, listener);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  return server;
}

/** Node `clientError` codes → our codes (before Fastify sees a request, so no route, no hooks). */
function clientErrorCode(code: unknown): ApiErrorCode {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  if (code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE';
  return 'BAD_REQUEST';
}

/**
 * Fastify `clientErrorHandler`: errors Node raises while reading a request (headers too large,
 * timeouts, unparsable HTTP) get the same docs/spec.md §7 JSON body as every other error, then the
 * socket is closed (it cannot carry another request).
 */
export function clientErrorHandler(clock: Clock) {
  return function (this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const code = clientErrorCode(err.code);
    const status = ERROR_CODES[code].status;
    const body = JSON.stringify(errorBody({ code, message: ERROR_CODES[code].message }, clock));
    this.log.info({ err_code: err.code, status }, 'client error');
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * 414 for a request target longer than `maxUrlLength`, as the very first onRequest hook (before
 * routing matters, authentication or any parsing of the query string).
 */
export function registerUrlLimit(app: FastifyInstance, limits: HttpLimits): void {
  // Callback-style: no promise per request (docs/benchmarks.md).
  app.addHook('onRequest', (request, _reply, done) => {
    const url = request.raw.url ?? '';
    if (url.length > limits.maxUrlLength) done(apiError('URI_TOO_LONG', `Request URL too long: at most ${limits.maxUrlLength} bytes`));
    else done();
  });
}
