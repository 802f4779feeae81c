import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, createBrotliCompress, createGzip, gzip, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, onSendHookHandler } from 'fastify';

/**
 * Response compression (docs/design.md §11 "Compression"): br or gzip for answers of at least
 * COMPRESS_MIN_BYTES when the client's Accept-Encoding allows it; exports are compressed as they
 * stream. Written on node:zlib rather than @fastify/compress because the response cache must keep
 * each encoding it has produced (plugins/cache.ts compresses an entry once per encoding and serves
 * those bytes again, its own fast path included), which a generic onSend compressor cannot share.
 */

/** A content coding we produce (RFC 9110 §8.4.1): Brotli (RFC 7932) or gzip. */
export type Encoding = 'br' | 'gzip';

/** Smallest body compressed, bytes: below ~1 KB the saving does not pay for the work and the header (docs/design.md §11). */
export const COMPRESS_MIN_BYTES = 1024;

/** `Vary` of every answer: the body depends on Accept-Encoding (compression) and Accept (exports, docs/design.md §11). */
export const VARY = 'Accept-Encoding, Accept';

/**
 * Brotli quality 4: close to gzip's speed with a smaller output; the default (11) costs ~50× the
 * CPU on a JSON page and would compete with the API's own work on its core.
 */
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };
const GZIP_OPTIONS = { level: 6 };

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * The coding to answer with for an `Accept-Encoding` header (RFC 9110 §12.5.3): br when acceptable,
 * else gzip, else none (identity). `q=0` refuses a coding; `*` stands for codings not listed.
 */
export function negotiateEncoding(header: string | undefined): Encoding | undefined {
  if (!header) return undefined;
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (name === '') continue;
    const qp = params.find((p) => p.startsWith('q='));
    const value = qp === undefined ? 1 : Number(qp.slice(2));
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (coding: string): number => q.get(coding) ?? q.get('*') ?? 0;
  const br = weight('br');
  const gz = Math.max(weight('gzip'), q.get('x-gzip') ?? 0);
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return undefined;
}

/** `body` compressed with `encoding`, synchronously (the cache's once-per-entry compression). */
export function compressSync(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : gzipSync(body, GZIP_OPTIONS);
}

/** `body` compressed with `encoding` on libuv's thread pool (off the event loop). */
export function compressAsync(body: Buffer, encoding: Encoding): Promise<Buffer> {
  return encoding === 'br' ? brotliAsync(body, BROTLI_OPTIONS) : gzipAsync(body, GZIP_OPTIONS);
}

/** Adds `value`'s names to the reply's `Vary` header unless already there. */
export function addVary(reply: FastifyReply, value: string = VARY): void {
  const current = reply.getHeader('vary');
  if (current === undefined) {
    reply.header('vary', value);
    return;
  }
  const names = String(current).split(',').map((s) => s.trim().toLowerCase());
  const missing = value.split(',').map((s) => s.trim()).filter((n) => !names.includes(n.toLowerCase()) && !names.includes('*'));
  if (missing.length > 0) reply.header('vary', `${String(current)}, ${missing.join(', ')}`);
}

/**
 * The generic compressor, run after every other onSend step of a route (so after the response
 * cache's, which compresses and keeps its entries itself and marks them with Content-Encoding):
 * streams (exports) are piped through a compressing stream; string/Buffer bodies of at least
 * COMPRESS_MIN_BYTES are compressed off the event loop. Every answer gets `Vary`.
 */
const compressOnSend: onSendHookHandler = async (request, reply, payload) => {
  addVary(reply);
  if (reply.getHeader('content-encoding') !== undefined || request.method === 'HEAD' || reply.statusCode === 204 || reply.statusCode === 304) return payload;
  const encoding = negotiateEncoding(request.headers['accept-encoding']);
  if (encoding === undefined) return payload;
  if (payload instanceof Readable) {
    reply.header('content-encoding', encoding);
    reply.removeHeader('content-length');
    const z = encoding === 'br' ? createBrotliCompress(BROTLI_OPTIONS) : createGzip(GZIP_OPTIONS);
    payload.on('error', (err) => z.destroy(err));
    return payload.pipe(z);
  }
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  if (body.length < COMPRESS_MIN_BYTES) return payload;
  reply.header('content-encoding', encoding);
  reply.removeHeader('content-length');
  return compressAsync(body, encoding);
};

/**
 * Registers compression on `scope` (call before its routes): the compressor is appended to each
 * route's own onSend list, so it runs after the route's other onSend steps (the cache's).
 */
export function registerCompression(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    route.onSend = [...[route.onSend ?? []].flat(), compressOnSend];
  });
}
