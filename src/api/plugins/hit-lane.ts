import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Clock, Logger, Metrics } from '../../core/index.js';
import type { KeyService } from '../../keys/index.js';
import type { BucketLimits, RateLimiter, UsageCounter } from '../../ratelimit/index.js';
import { acceptedFormat } from '../export.js';
import { presentedKey } from './auth.js';
import type { RawCache } from './cache.js';
import { routeRecorder } from './http-metrics.js';
import { pushRateLimitHeaders } from './rate-limit.js';
import { CORS_EXPOSED_HEADERS } from './security.js';

/** What the hit lane needs: the same key service, limiter, usage counter, metrics and logger as the Fastify hooks. */
export interface HitLaneDeps {
  keys: KeyService;
  limiter: RateLimiter;
  usage: UsageCounter;
  metrics: Metrics;
  clock: Clock;
  logger: Logger;
  /** The per-IP failed-authentication bucket of plugins/auth.ts: a blocked IP is left to Fastify (429). */
  failureLimits: BucketLimits;
  /** false keeps the lane shut, e.g. behind a trusted proxy (the client address then needs Fastify's proxy rules). */
  enabled: boolean;
}

/** A way for cache hits around Fastify's request pipeline (createHitLane). */
export interface HitLane {
  /**
   * Answers `req` from the response cache when it is a plain hit and every check passes at once;
   * returns false, having written, charged and counted nothing, for any other request, which then
   * goes to Fastify as usual.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** The response cache to answer from (registerResponseCache's return value). */
  attach(cache: RawCache): void;
  /** Shuts the lane: from now on every request goes to Fastify (while closing, it answers 503). */
  close(): void;
}

const EXPOSED = CORS_EXPOSED_HEADERS.join(', ');

/**
 * The hit lane (docs/benchmarks.md "The hit lane"): a plain `GET` whose target the response cache
 * already answered is served from the Node request listener, before Fastify builds its request
 * and reply and runs its hooks. It takes exactly the decisions of the full pipeline (app.ts), in
 * their order, and hands the request to Fastify the moment one of them is not a plain yes:
 * - no `If-None-Match` (304s), no `Accept` asking for CSV/NDJSON (exports);
 * - the key (`X-API-Key` or `Authorization: Bearer`, plugins/auth.ts presentedKey) is one whose
 *   record the key service holds (verifyCached) and judges valid, and the client IP's failed-auth
 *   bucket is not empty. An unknown key, a store lookup, any failure: Fastify;
 * - the target is a fresh cache entry (RawCache.hit: earlier validated, same Accept-Encoding
 *   negotiation);
 * - key use (plugins/key-use.ts): the key has the route's scope; publishable keys (origin rules) go
 *   to Fastify;
 * - the key's bucket (plugins/rate-limit.ts) grants a token. A denied take changes no bucket, so
 *   Fastify's pipeline takes the same decision and answers the 429 itself;
 * - then the request is counted in GET /usage and the metrics under its route pattern, logged
 *   as Fastify logs a request ("incoming request", "request completed") when `info` is on, and
 *   written with the same headers as the full path: request id, CORS, rate limit, the stored
 *   ones, `Cache-Control` (test/api/hot-path.test.ts compares the two).
 * Only with a limiter that answers synchronously (the in-process one): with a shared limiter
 * (Redis) every request waits for a round trip anyway and the lane stays shut.
 */
export function createHitLane(deps: HitLaneDeps): HitLane {
  const { keys, usage, metrics, clock, logger, failureLimits } = deps;
  const sync = deps.limiter.sync;
  let cache: RawCache | undefined;
  let open = deps.enabled && sync !== undefined;
  const recorders = new Map<string, (method: string, status: number, seconds: number) => void>();

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!open || cache === undefined || sync === undefined || req.method !== 'GET') return false;
    const h = req.headers;
    if (h['if-none-match'] !== undefined || (h.accept !== undefined && acceptedFormat(h.accept) !== undefined)) return false;
    const started = performance.now();
    // The caller first: a refused request costs no cache lookup (nor a first compression of an entry).
    const presented = presentedKey(req);
    if (presented.kind !== 'key') return false;
    const outcome = keys.verifyCached(presented.key);
    if (outcome === undefined || !outcome.ok || outcome.record.publishable) return false;
    const key = outcome.record;
    const ip = req.socket.remoteAddress;
    if (ip === undefined || !sync.peek(`authfail:${ip}`, failureLimits).allowed) return false;
    const hit = cache.hit(req.url ?? '', h['accept-encoding']);
    if (hit === undefined || hit.route.free || !key.scopes.includes(hit.route.scope)) return false;
    const d = sync.consume(`key:${key.id}`, key);
    if (!d.allowed) return false;

    // Charged: from here on the request is answered here.
    const now = clock.now();
    if (hit.route.operation !== undefined) usage.count(key.id, hit.route.operation, now);
    const id = randomUUID();
    const logged = logger.isLevelEnabled('info');
    if (logged) logger.info({ request_id: id, req: { method: 'GET', url: req.url, host: h.host, ip, socket: req.socket } }, 'incoming request');
    const headers: string[] = ['x-request-id', id, 'access-control-allow-origin', '*', 'access-control-expose-headers', EXPOSED];
    pushRateLimitHeaders(headers, key, d, now);
    for (const x of hit.headers) headers.push(x);
    headers.push('cache-control', hit.cacheControl);
    res.writeHead(200, headers);
    if (hit.text !== undefined) res.end(hit.text, 'latin1');
    else res.end(hit.body);

    const ms = performance.now() - started;
    let record = recorders.get(hit.route.url);
    if (record === undefined) recorders.set(hit.route.url, (record = routeRecorder(metrics, hit.route.url)));
    record('GET', 200, ms / 1000);
    metrics.hitLaneAnswers.inc();
    if (logged) logger.info({ request_id: id, res: { statusCode: 200 }, responseTime: ms }, 'request completed');
    return true;
  };

  return {
    handle(req, res) {
      try {
        return handle(req, res);
      } catch (err) {
        // Never a crash of the listener: an answer not yet begun is left to Fastify's pipeline (its error handling).
        logger.error({ err }, 'hit lane failed');
        if (!res.headersSent) return false;
        res.destroy();
        return true;
      }
    },
    attach: (c) => void (cache = c),
    close: () => void (open = false),
  };
}
