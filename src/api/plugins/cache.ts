import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAbortHookHandler, onRequestHookHandler, onResponseHookHandler, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import type { Clock, Metrics } from '../../core/index.js';
import type { Scope } from '../../store/index.js';
import { exportFormat } from '../export.js';
import { COMPRESS_MIN_BYTES, compressSync, type Encoding, negotiateEncoding, VARY } from './compression.js';
import { JSON_SECURITY_HEADERS } from './security.js';

/** Response cache settings (docs/design.md §5): TTL in ms and a size bound in bytes. */
export interface ResponseCacheOptions {
  /** Lifetime of a cached answer, ms (CACHE_TTL_MS; docs/design.md §5: ≤ 30 s). 0 disables storing; ETag/304 still work. */
  ttlMs: number;
  /**
   * Most bytes the cache holds, least recently used evicted first (default DEFAULT_CACHE_MAX_BYTES):
   * every kept body (identity and compressed), its pre-serialised text, its key and
   * ENTRY_OVERHEAD_BYTES per entry. The index of raw request targets is bounded by an eighth of it.
   * A bound in bytes, not entries: a thousand 25 KB leaderboards and a thousand 200-byte totals
   * are not the same memory (docs/benchmarks.md "API memory").
   */
  maxBytes?: number;
  /** Response headers (lower case) stored with an answer and sent again with it, e.g. the freshness headers (plugins/freshness.ts). */
  storedHeaders?: readonly string[];
}

/** One representation of an answer: its bytes, their strong ETag and Content-Encoding (undefined = identity). */
interface Variant {
  body: Buffer;
  etag: string;
  encoding: Encoding | undefined;
  /**
   * Made on the first plain hit (serveRaw) and kept: a body of at most RAW_TEXT_MAX_BYTES as a
   * latin1 string (one byte per character, so Node writes the response head and body as one
   * string in one socket write) and the head's fixed headers as a flat [name, value, …] list.
   */
  raw?: { text: string | undefined; headers: string[] };
}

interface Entry {
  /** The body's bytes, encoded once: a hit writes them as they are. */
  body: Buffer;
  etag: string;
  /** The identity representation (body and etag above), kept so its pre-serialised form is made once. */
  identity: Variant;
  /** Compressed forms (docs/design.md §11), each made once, on the first request accepting it, and kept with the entry. */
  compressed: Partial<Record<Encoding, Variant>>;
  contentType: string;
  storedAt: number;
  generation: number;
  /** ResponseCacheOptions.storedHeaders as they were on the answer. */
  headers: [string, string][];
}

/** What a request carries from the lookup to onSend (a request decoration). */
interface Ticket {
  key: string;
  generation: number;
  hit: boolean;
  route: CachedRoute;
  /** This request computes the answer others with the same key wait for (`computing`). */
  leads?: boolean;
}

/** Longest a request waits for another request computing the same answer, ms; then it computes its own. */
const COALESCE_WAIT_MS = 10_000;

/** The route a cached answer belongs to, as a request handled outside Fastify needs it (plugins/hit-lane.ts). */
export interface CachedRoute {
  /** The route's pattern as registered, e.g. `/players` or `/v1/players`: the metrics' `route` label. */
  url: string;
  /** Its operationId (operations.ts), which GET /usage counts by; undefined for a route without one. */
  operation: string | undefined;
  /** The scope a key needs for it (`config.scope`, default `read`). */
  scope: Scope;
  /** `config.free`: never charged nor counted (plugins/rate-limit.ts). */
  free: boolean;
}

/**
 * A plain GET answer ready to be written (RawCache.hit): status 200, the fixed headers of the
 * representation as a flat [name, value, …] list (security headers, stored freshness headers,
 * ETag, Content-Type, Vary, Content-Encoding when compressed, Content-Length), the
 * `Cache-Control` value for the entry's remaining age, and the body: as latin1 text when at most
 * RAW_TEXT_MAX_BYTES (joined to the head in one socket write), else as bytes.
 */
export interface RawHit {
  route: CachedRoute;
  headers: readonly string[];
  cacheControl: string;
  text: string | undefined;
  body: Buffer;
}

/** The response cache as seen from outside Fastify (plugins/hit-lane.ts). */
export interface RawCache {
  /**
   * The fresh answer for a raw request target (path + query, exactly as sent) that earlier passed
   * validation and was answered from or into the cache, in the representation `acceptEncoding`
   * picks; undefined when there is none. Checks nothing about the caller: auth and the rate limit
   * are the caller's to run first. Marks the entry most recently used.
   */
  hit(target: string, acceptEncoding: string | string[] | undefined): RawHit | undefined;
}

type CachingRequest = FastifyRequest & { [TICKET]: Ticket | null };
const TICKET = 'responseCacheTicket';

/**
 * Largest body a plain hit writes as latin1 text joined to its head (one socket write). Larger
 * bodies are written as their bytes after the head: the join would copy them on every hit.
 */
const RAW_TEXT_MAX_BYTES = 4096;

/** Default bound of the response cache, bytes (16 MiB): ResponseCacheOptions.maxBytes. */
export const DEFAULT_CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** Bytes counted per cached entry besides its bodies and key: the entry's objects, its ETags, headers and map slot (an estimate, on the high side). */
const ENTRY_OVERHEAD_BYTES = 512;
/** Bytes counted per remembered raw request target besides its two strings (map slot). */
const TARGET_OVERHEAD_BYTES = 64;

/** Strong ETag: SHA-1 of the exact body bytes (RFC 9110 §8.8.3). */
export function etagOf(body: string | Buffer): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

/** RFC 9110 §13.1.2 If-None-Match: `*` or a list of (possibly weak) tags, compared weakly. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * Query → canonical text: keys sorted, values as validated (defaults applied and types coerced
 * by the route schema), so `?b=1&a=2`, `?a=2&b=1` and `?a=2&b=1&limit=10` (10 being the default)
 * share one entry, and two queries that differ in any value never do.
 */
export function cacheKey(route: string, query: unknown): string {
  const q = (query ?? {}) as Record<string, unknown>;
  const parts = Object.keys(q)
    .filter((k) => q[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(q[k])}`);
  return `${route}?{${parts.join(',')}}`;
}

/**
 * Response cache of the protected GET routes (docs/benchmarks.md; docs/design.md §5), attached to each cacheable
 * route as it is added (call before the routes). Keyed by route + normalised query only: answers
 * do not depend on the API key. An entry is served while younger than the TTL (by the injected
 * clock) and while the store's write generation is unchanged, so an in-process write is never
 * hidden and no answer is older than the TTL. Every 200 answer carries a strong `ETag` and
 * `Cache-Control: private, max-age=<remaining s>`; a matching `If-None-Match` → 304, no body.
 *
 * Two lookups, both after auth and the rate limit, so every request is still authenticated and
 * counted:
 * - preHandler (after validation, before the query): by the normalised query, as described;
 * - onRequest, route level (after the scope's auth and rate-limit hooks, before validation): by
 *   the raw request target, for targets that earlier passed validation and were answered from or
 *   into the cache. Validation of a query string is deterministic, so an identical target would
 *   pass again and map to the same entry; skipping it on such hits is what makes a hit cheap
 *   (docs/benchmarks.md: cached throughput). Any target not known that way takes the full path.
 * Returns the same raw-target lookup for requests answered before Fastify (plugins/hit-lane.ts).
 */
export function registerResponseCache(scope: FastifyInstance, deps: { clock: Clock; generation: () => number; options: ResponseCacheOptions; metrics: Metrics }): RawCache {
  const { clock, generation, metrics } = deps;
  const ttlMs = Math.max(0, deps.options.ttlMs);
  const maxBytes = Math.max(0, deps.options.maxBytes ?? DEFAULT_CACHE_MAX_BYTES);
  const storedHeaders = deps.options.storedHeaders ?? [];
  const entries = new Map<string, Entry>();
  /** What the entries hold, as ResponseCacheOptions.maxBytes counts it. */
  let bytes = 0;
  /** Raw request target (path + query, as sent) → cache key and route; bounded in bytes (an eighth of maxBytes). */
  const targets = new Map<string, { key: string; route: CachedRoute }>();
  const maxTargetBytes = Math.floor(maxBytes / 8);
  let targetBytes = 0;
  const targetSize = (target: string, key: string): number => target.length + key.length + TARGET_OVERHEAD_BYTES;

  scope.decorateRequest(TICKET, null);

  /** Bytes an entry stored under `key` counts before any compressed form or pre-serialised text. */
  const baseSize = (key: string, e: Entry): number => key.length + ENTRY_OVERHEAD_BYTES + e.body.length;

  const remove = (key: string, e: Entry): void => {
    entries.delete(key);
    bytes -= key.length + ENTRY_OVERHEAD_BYTES + e.body.length + (e.compressed.br?.body.length ?? 0) + (e.compressed.gzip?.body.length ?? 0);
    bytes -= (e.identity.raw?.text?.length ?? 0) + (e.compressed.br?.raw?.text?.length ?? 0) + (e.compressed.gzip?.raw?.text?.length ?? 0);
  };

  /**
   * From the least recently used end: evicts past maxBytes, and drops expired answers too, so
   * memory follows the TTL's worth of traffic rather than filling up to the bound.
   */
  const trim = (): void => {
    const now = clock.now();
    for (const [k, e] of entries) {
      if (bytes <= maxBytes && now - e.storedAt < ttlMs) break;
      remove(k, e);
    }
  };

  /**
   * The representation of `e` for a request's Accept-Encoding: identity below COMPRESS_MIN_BYTES or
   * when no coding is accepted; else the kept compressed form, made now if it is the first (its own
   * strong ETag: the identity tag with the coding appended, RFC 9110 §8.8.3).
   */
  const variantOf = (e: Entry, acceptEncoding: string | string[] | undefined, kept: boolean): Variant => {
    const encoding = e.body.length < COMPRESS_MIN_BYTES ? undefined : negotiateEncoding(Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding);
    if (encoding === undefined) return e.identity;
    let v = e.compressed[encoding];
    if (!v) {
      v = { body: compressSync(e.body, encoding), etag: `${e.etag.slice(0, -1)}-${encoding}"`, encoding };
      e.compressed[encoding] = v;
      if (kept) {
        bytes += v.body.length;
        trim();
      }
    }
    return v;
  };
  // `private, max-age=<s>` for every whole second a fresh entry can have left (precomputed).
  const maxAgeTexts = Array.from({ length: Math.floor(ttlMs / 1000) + 1 }, (_, s) => `private, max-age=${s}`);
  const maxAge = (ageMs: number): string => maxAgeTexts[Math.max(0, Math.floor((ttlMs - ageMs) / 1000))]!;

  /** The fresh entry of `key` (most recently used from now on), or undefined (a stale one is dropped). */
  const fresh = (key: string, gen: number): Entry | undefined => {
    const e = entries.get(key);
    if (!e) return undefined;
    const age = clock.now() - e.storedAt;
    if (age >= ttlMs || age < 0 || e.generation !== gen) {
      remove(key, e);
      return undefined;
    }
    // Most recently used last (Map keeps insertion order).
    entries.delete(key);
    entries.set(key, e);
    return e;
  };

  const remember = (target: string, key: string, route: CachedRoute): void => {
    const old = targets.get(target);
    if (target.length > 1024 || (old?.key === key && old.route === route)) return;
    if (old !== undefined) {
      targets.delete(target);
      targetBytes -= targetSize(target, old.key);
    }
    targets.set(target, { key, route });
    targetBytes += targetSize(target, key);
    // Oldest first, past the bound.
    for (const [t, k] of targets) {
      if (targetBytes <= maxTargetBytes) break;
      targets.delete(t);
      targetBytes -= targetSize(t, k.key);
    }
  };

  /** Answers `request` from `e` (304 when If-None-Match matches). */
  const serve = (request: FastifyRequest, reply: FastifyReply, e: Entry): void => {
    const v = variantOf(e, request.headers['accept-encoding'], true);
    reply.header('etag', v.etag);
    reply.header('cache-control', maxAge(clock.now() - e.storedAt));
    for (const [k, hv] of e.headers) reply.header(k, hv);
    reply.header('vary', VARY);
    const inm = request.headers['if-none-match'];
    if (inm !== undefined && ifNoneMatchHits(inm, v.etag)) {
      reply.code(304).send();
      return;
    }
    reply.header('content-type', e.contentType);
    if (v.encoding !== undefined) reply.header('content-encoding', v.encoding);
    reply.send(v.body);
  };

  // Route level, so it runs after the scope's onRequest hooks (auth, then rate limit).
  const byTarget: onRequestHookHandler = (request, reply, done) => {
    // Exports (CSV/NDJSON, docs/design.md §11) are streamed, never cached; the Accept header picks them, so the URL alone does not tell.
    if (request.headers.accept !== undefined && exportFormat(request) !== undefined) return done();
    const known = targets.get(request.url);
    const gen = known === undefined ? 0 : generation();
    const e = known === undefined ? undefined : fresh(known.key, gen);
    if (e === undefined) return done();
    (request as CachingRequest)[TICKET] = { key: known!.key, generation: gen, hit: true, route: known!.route };
    if (request.method === 'GET' && request.headers['if-none-match'] === undefined) return serveRaw(reply, variantOf(e, request.headers['accept-encoding'], true), e);
    serve(request, reply, e); // answered: no done()
  };

  /** Headers serveRaw writes itself: an earlier hook's value of one of them is replaced, as the send path would. */
  const RAW_FIXED = new Set([...Object.keys(JSON_SECURITY_HEADERS), ...storedHeaders, 'etag', 'content-type', 'vary', 'content-encoding', 'content-length', 'cache-control']);
  /**
   * A plain GET hit, written straight to the socket (docs/benchmarks.md: cached throughput): the headers
   * the earlier hooks set (request id, rate limit, CORS) plus exactly what the send path would
   * add — ETag, Cache-Control, Content-Type, Content-Length and the security headers — without
   * Fastify's serialisation and onSend chain. onResponse hooks (metrics, logs) still run. The
   * fixed part of the head and the body are pre-serialised on the first such hit of a kept
   * representation, so later hits add only the per-request headers and make one socket write.
   */
  const serveRaw = (reply: FastifyReply, v: Variant, e: Entry): void => {
    const raw = rawOf(v, e);
    // The headers the earlier hooks set (request id, rate limit, CORS), then the fixed ones and the remaining age.
    const headers: string[] = [];
    const own = reply.getHeaders();
    for (const k in own) {
      const hv = own[k];
      if (hv === undefined || RAW_FIXED.has(k)) continue;
      if (Array.isArray(hv)) for (const x of hv) headers.push(k, x);
      else headers.push(k, String(hv));
    }
    for (const x of raw.headers) headers.push(x);
    headers.push('cache-control', maxAge(clock.now() - e.storedAt));
    reply.hijack();
    reply.raw.writeHead(200, headers);
    // A string whose encoding Node can join to the head: one write of head and body.
    if (raw.text !== undefined) reply.raw.end(raw.text, 'latin1');
    else reply.raw.end(v.body);
  };

  /** The pre-serialised form of a kept representation `v` of `e`, made on its first plain hit and kept (counted against maxBytes). */
  const rawOf = (v: Variant, e: Entry): NonNullable<Variant['raw']> => {
    let raw = v.raw;
    if (raw === undefined) {
      // Pre-serialised once per kept representation: the fixed headers and the body as latin1 text.
      const fixed: string[] = [];
      for (const k in JSON_SECURITY_HEADERS) fixed.push(k, JSON_SECURITY_HEADERS[k]!);
      for (const [k, hv] of e.headers) fixed.push(k, hv);
      fixed.push('etag', v.etag, 'content-type', e.contentType, 'vary', VARY);
      if (v.encoding !== undefined) fixed.push('content-encoding', v.encoding);
      fixed.push('content-length', String(v.body.length));
      // Small bodies as latin1 text (joined to the head: one write); large ones stay bytes (a string would be copied twice per hit).
      raw = v.raw = { text: v.body.length <= RAW_TEXT_MAX_BYTES ? v.body.toString('latin1') : undefined, headers: fixed };
      // Only entries in the cache are served raw (fresh()): counted against maxBytes, given back by remove().
      bytes += raw.text?.length ?? 0;
      if (raw.text !== undefined) trim();
    }
    return raw;
  };

  /** Cache keys a GET is computing now (its leader) → the requests waiting for that answer. */
  const computing = new Map<string, (() => void)[]>();
  /** The leader's answer is kept or given up: its waiters are woken (idempotent). */
  const release = (t: Ticket | null): void => {
    if (!t?.leads) return;
    t.leads = false;
    const waiters = computing.get(t.key);
    computing.delete(t.key);
    if (waiters) for (const wake of waiters) wake();
  };

  /**
   * Lookup by the normalised query. A miss while another GET computes the same key waits for
   * that answer instead of computing it again (a burst of misses when an entry expires costs
   * one query, not one per connection). Woken, it is served from the entry the first request
   * stored; if none was kept (an error, a write in between), it computes its own.
   */
  const byQuery = (route: CachedRoute): preHandlerHookHandler => (request, reply, done) => {
    if (exportFormat(request) !== undefined) return done();
    const key = cacheKey(route.url, request.query);
    const gen = generation();
    const e = fresh(key, gen);
    const ticket: Ticket = { key, generation: gen, hit: e !== undefined, route };
    (request as CachingRequest)[TICKET] = ticket;
    if (e !== undefined) {
      remember(request.url, key, route);
      serve(request, reply, e);
      return;
    }
    if (ttlMs === 0 || request.method !== 'GET') return done();
    const waiting = computing.get(key);
    if (waiting === undefined) {
      computing.set(key, []);
      ticket.leads = true;
      return done();
    }
    metrics.cacheCoalesced.inc();
    let woken = false;
    const wake = (): void => {
      if (woken) return;
      woken = true;
      clearTimeout(timer);
      const kept = fresh(key, generation());
      if (kept === undefined) return done();
      ticket.hit = true;
      remember(request.url, key, route);
      serve(request, reply, kept);
    };
    const timer = setTimeout(wake, COALESCE_WAIT_MS);
    waiting.push(wake);
  };

  const store: onSendHookHandler = (request, reply, payload, done) => {
    const t = (request as CachingRequest)[TICKET];
    if (!t || t.hit || reply.statusCode !== 200 || typeof payload !== 'string') {
      release(t);
      return done(null, payload);
    }
    // Encoded once: stored as bytes, and this answer writes the same bytes. Unpooled: a small
    // Buffer.from() is a slice of a shared 8 KiB slab, and a kept slice keeps the whole slab.
    const body = Buffer.allocUnsafeSlow(Buffer.byteLength(payload, 'utf8'));
    body.write(payload, 'utf8');
    const etag0 = etagOf(body);
    const entry: Entry = { body, etag: etag0, identity: { body, etag: etag0, encoding: undefined }, compressed: {}, contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'), storedAt: clock.now(), generation: t.generation, headers: [] };
    // Store only when no write settled while the answer was computed (it may predate the write).
    const keep = ttlMs > 0 && request.method === 'GET' && t.generation === generation() && baseSize(t.key, entry) <= maxBytes;
    // HEAD: no body is sent, so none is compressed; the identity tag stands.
    const v = request.method === 'HEAD' ? { body, etag: entry.etag, encoding: undefined } : variantOf(entry, request.headers['accept-encoding'], false);
    const etag = v.etag;
    reply.header('etag', etag).header('cache-control', maxAge(0)).header('vary', VARY);
    if (v.encoding !== undefined) reply.header('content-encoding', v.encoding);
    if (keep) {
      const old = entries.get(t.key);
      if (old) remove(t.key, old);
      for (const h of storedHeaders) {
        const hv = reply.getHeader(h);
        if (hv !== undefined) entry.headers.push([h, String(hv)]);
      }
      entries.set(t.key, entry);
      bytes += (entry.compressed.br?.body.length ?? 0) + (entry.compressed.gzip?.body.length ?? 0);
      bytes += baseSize(t.key, entry);
      trim();
      remember(request.url, t.key, t.route);
    }
    release(t);
    const inm = request.headers['if-none-match'];
    if (inm !== undefined && ifNoneMatchHits(inm, etag)) {
      reply.code(304);
      reply.removeHeader('content-encoding');
      return done(null, '');
    }
    done(null, v.body);
  };

  const giveUpOnResponse: onResponseHookHandler = (request, _reply, done) => {
    release((request as CachingRequest)[TICKET]);
    done();
  };
  const giveUpOnAbort: onRequestAbortHookHandler = (request, done) => {
    release((request as CachingRequest)[TICKET]);
    done();
  };

  scope.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    // `config.uncached`: per-key answers (GET /usage) and process state (GET /status): under /v1 too, whatever the path.
    if (!methods.every((m) => m === 'GET' || m === 'HEAD') || route.config?.uncached === true) return;
    const cached: CachedRoute = { url: route.url, operation: route.config?.operation, scope: route.config?.scope ?? 'read', free: route.config?.free === true };
    route.onRequest = [...[route.onRequest ?? []].flat(), byTarget];
    route.preHandler = [...[route.preHandler ?? []].flat(), byQuery(cached)];
    // First, so a HEAD answer still gets its ETag before Fastify's HEAD hook drops the body.
    route.onSend = [store, ...[route.onSend ?? []].flat()];
    // A leader that never reaches onSend (its client went away) still wakes its waiters.
    route.onResponse = [...[route.onResponse ?? []].flat(), giveUpOnResponse];
    route.onRequestAbort = [...[route.onRequestAbort ?? []].flat(), giveUpOnAbort];
  });

  return {
    hit(target, acceptEncoding) {
      const known = targets.get(target);
      const e = known === undefined ? undefined : fresh(known.key, generation());
      if (e === undefined) return undefined;
      const v = variantOf(e, acceptEncoding, true);
      const raw = rawOf(v, e);
      return { route: known!.route, headers: raw.headers, cacheControl: maxAge(clock.now() - e.storedAt), text: raw.text, body: v.body };
    },
  };
}
