import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { Metrics } from '../../core/index.js';
import { apiError } from '../errors.js';

/**
 * A cap on concurrent store queries (docs/hardening.md "Limits"), so one client cannot
 * starve the others:
 * - at most `perKey` handlers of one API key run at once (never the whole pool); its further
 *   requests wait in the key's own FIFO queue (at most `perKeyQueue`, then 429 RATE_LIMITED with
 *   `Retry-After: 1`), so a client with many connections is slowed, not refused;
 * - at most `maxConcurrent` handlers run at once over all keys; the next `maxQueue` wait in FIFO
 *   order, at most `queueTimeoutMs`; beyond that → 503 SERVICE_UNAVAILABLE + `Retry-After: 1`.
 * The slot is held exactly while the route handler runs (the store queries), so responses
 * served without the handler (a cache hit, a 4xx from a hook) never wait for one.
 */
export interface ConcurrencyLimits {
  /** Handlers running at once, all keys. Default 16 (the PostgreSQL pool has 10 connections; SQLite serialises anyway). */
  maxConcurrent: number;
  /** Requests waiting for a global slot; beyond → 503. Default 256. */
  maxQueue: number;
  /** Longest wait for a slot (the key's, then the global one), ms; then → 503. Default 10 000. */
  queueTimeoutMs: number;
  /** Handlers of one key running at once. Default 8 (half the pool). */
  perKey: number;
  /** Requests of one key waiting for one of its slots; beyond → 429. Default 64. */
  perKeyQueue: number;
}

export const DEFAULT_CONCURRENCY_LIMITS: ConcurrencyLimits = { maxConcurrent: 16, maxQueue: 256, queueTimeoutMs: 10_000, perKey: 8, perKeyQueue: 64 };

/** Idle per-key semaphores kept before they are dropped. */
const MAX_KEPT_KEYS = 1000;

/** Seconds a client told "saturated" should wait before retrying. */
const SATURATED_RETRY_AFTER_S = 1;

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

/**
 * FIFO semaphore with a bounded queue and a queue timeout. `acquire` resolves with the release
 * function, or rejects with `full()` when the queue is full and `late()` when the wait is too long.
 */
export function createSemaphore(o: { max: number; maxQueue: number; timeoutMs: number; full: () => Error; late: () => Error }) {
  let running = 0;
  const queue: Waiter[] = [];
  const release = () => {
    const next = queue.shift();
    if (next) {
      clearTimeout(next.timer);
      next.grant(); // the slot passes straight to the next waiter
    } else running--;
  };
  return {
    /** Running plus waiting (0 = idle). */
    get load() {
      return running + queue.length;
    },
    /** A slot now (its release function), or undefined when none is free: no promise (docs/benchmarks.md hot path). */
    tryAcquire(): (() => void) | undefined {
      if (running >= o.max) return undefined;
      running++;
      return once(release);
    },
    acquire(): Promise<() => void> {
      if (running < o.max) {
        running++;
        return Promise.resolve(once(release));
      }
      if (queue.length >= o.maxQueue) return Promise.reject(o.full());
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          grant: () => resolve(once(release)),
          timer: setTimeout(() => {
            queue.splice(queue.indexOf(waiter), 1);
            reject(o.late());
          }, o.timeoutMs),
        };
        queue.push(waiter);
      });
    },
  };
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

type Semaphore = ReturnType<typeof createSemaphore>;

/**
 * Wraps every route handler registered afterwards in `scope` (call before the routes): the key's
 * slot first, then a global one.
 */
export function registerConcurrencyLimit(scope: FastifyInstance, deps: { limits: ConcurrencyLimits; metrics: Metrics }): void {
  const { limits } = deps;
  const saturated = (why: string) => () => apiError('SERVICE_UNAVAILABLE', `Service temporarily unavailable: ${why}; retry shortly`, { retryAfter: SATURATED_RETRY_AFTER_S });
  const global = createSemaphore({ max: limits.maxConcurrent, maxQueue: limits.maxQueue, timeoutMs: limits.queueTimeoutMs, full: saturated('too many queries in progress'), late: saturated('queries are queueing for too long') });
  const tooMany = () => apiError('RATE_LIMITED', `Rate limit exceeded: too many concurrent requests for this API key (${limits.perKey} run at once, ${limits.perKeyQueue} may wait)`, { retryAfter: SATURATED_RETRY_AFTER_S });
  // A key's semaphore is kept while idle (no semaphore built per request, docs/benchmarks.md); idle ones are
  // dropped once MAX_KEPT_KEYS are held, so the map stays bounded by the keys in use.
  const perKey = new Map<string, Semaphore>();
  const keySemaphore = (id: string) => {
    let s = perKey.get(id);
    if (!s) {
      if (perKey.size >= MAX_KEPT_KEYS) for (const [k, v] of perKey) if (v.load === 0) perKey.delete(k);
      s = createSemaphore({ max: limits.perKey, maxQueue: limits.perKeyQueue, timeoutMs: limits.queueTimeoutMs, full: tooMany, late: saturated('queries are queueing for too long') });
      perKey.set(id, s);
    }
    return s;
  };
  scope.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = async function (request, reply) {
      const mine = keySemaphore(request.apiKey?.id ?? `ip:${request.ip}`);
      // A free slot is taken without awaiting a promise; only a full semaphore makes the request wait.
      const releaseKey = mine.tryAcquire() ?? (await mine.acquire());
      try {
        const release = global.tryAcquire() ?? (await global.acquire());
        try {
          return await handler.call(this, request, reply);
        } finally {
          release();
        }
      } finally {
        releaseKey();
      }
    };
  });
}
