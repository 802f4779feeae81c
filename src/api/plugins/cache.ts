import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../core/index.js';

export interface ResponseCacheOptions {
  /** Lifetime of a cached answer, ms (CACHE_TTL_MS; DESIGN §5: ≤ 30 s). 0 disables storing; ETag/304 still work. */
  ttlMs: number;
  /** Most answers kept (least recently used evicted first). Default 5000. */
  maxEntries?: number;
  /** Most bytes of bodies kept. Default 64 MiB. */
  maxBytes?: number;
}

interface Entry {
  body: string;
  etag: string;
  contentType: string;
  storedAt: number;
  generation: number;
}

interface Pending {
  key: string;
  generation: number;
  hit: boolean;
}

/** GET routes that are not cached: they report process state (sync flags), not stored data. */
const UNCACHED = new Set(['/status', '/sync/status']);

/** Strong ETag: SHA-1 of the exact body bytes (RFC 9110 §8.8.3). */
export function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
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
 * Response cache of the protected GET routes (issue 5; DESIGN §5). Runs as a preHandler, i.e.
 * after auth, rate limit and validation and before the query, so every request is still
 * authenticated and counted. Keyed by route + normalised query only: answers do not depend on
 * the API key. An entry is served while younger than the TTL (by the injected clock) and while
 * the store's write generation is unchanged, so an in-process write is never hidden and no
 * answer is older than the TTL. Every 200 answer carries a strong `ETag` and
 * `Cache-Control: private, max-age=<remaining s>`; a matching `If-None-Match` → 304, no body.
 */
export function registerResponseCache(scope: FastifyInstance, deps: { clock: Clock; generation: () => number; options: ResponseCacheOptions }): void {
  const { clock, generation } = deps;
  const ttlMs = Math.max(0, deps.options.ttlMs);
  const maxEntries = deps.options.maxEntries ?? 5000;
  const maxBytes = deps.options.maxBytes ?? 64 * 1024 * 1024;
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const pending = new WeakMap<FastifyRequest, Pending>();

  const remove = (key: string, e: Entry): void => {
    entries.delete(key);
    bytes -= e.body.length;
  };
  const maxAge = (ageMs: number): string => `private, max-age=${Math.max(0, Math.floor((ttlMs - ageMs) / 1000))}`;

  scope.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url;
    if ((request.method !== 'GET' && request.method !== 'HEAD') || route === undefined || UNCACHED.has(route)) return;
    const key = cacheKey(route, request.query);
    const gen = generation();
    pending.set(request, { key, generation: gen, hit: false });
    const e = entries.get(key);
    if (!e) return;
    const age = clock.now() - e.storedAt;
    if (age >= ttlMs || age < 0 || e.generation !== gen) {
      remove(key, e);
      return;
    }
    // Most recently used last (Map keeps insertion order).
    entries.delete(key);
    entries.set(key, e);
    pending.get(request)!.hit = true;
    reply.header('etag', e.etag).header('cache-control', maxAge(age));
    if (ifNoneMatchHits(request.headers['if-none-match'], e.etag)) return reply.code(304).send();
    return reply.header('content-type', e.contentType).send(e.body);
  });

  scope.addHook('onSend', async (request, reply, payload) => {
    const p = pending.get(request);
    if (!p || p.hit || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const etag = etagOf(payload);
    reply.header('etag', etag).header('cache-control', maxAge(0));
    // Store only when no write settled while the answer was computed (it may predate the write).
    if (ttlMs > 0 && request.method === 'GET' && p.generation === generation() && payload.length <= maxBytes) {
      const old = entries.get(p.key);
      if (old) remove(p.key, old);
      entries.set(p.key, { body: payload, etag, contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'), storedAt: clock.now(), generation: p.generation });
      bytes += payload.length;
      for (const [k, e] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        remove(k, e);
      }
    }
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) {
      reply.code(304);
      return '';
    }
    return payload;
  });
}
