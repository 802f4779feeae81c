import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { Metrics } from '../../core/index.js';
import { apiError } from '../errors.js';

/**
 * A cap on concurrent store queries (issue 7; docs/hardening.md "Concurrency"), so one client
 * cannot starve the others:
 * - at most `perKey` handlers of one API key run at once; more → 429 RATE_LIMITED
 *   (`Retry-After: 1`) at once, without queueing: a key cannot occupy the whole pool;
 * - at most `maxConcurrent` handlers run at once over all keys; the next `maxQueue` wait in
 *   FIFO order, at most `queueTimeoutMs`; beyond that → 503 SERVICE_UNAVAILABLE + `Retry-After`.
 * The slot is held exactly while the route handler runs (the store queries), so responses
 * served without the handler (a cache hit, a 4xx from a hook) never wait for one.
 */
export interface ConcurrencyLimits {
  /** Handlers running at once, all keys. Default 16 (the PostgreSQL pool has 10 connections; SQLite serialises anyway). */
  maxConcurrent: number;
  /** Requests waiting for a slot; beyond → 503. Default 256. */
  maxQueue: number;
  /** Longest wait for a slot, ms; then → 503. Default 10 000. */
  queueTimeoutMs: number;
  /** Handlers of one key running or waiting at once; beyond → 429. Default 8. */
  perKey: number;
}

export const DEFAULT_CONCURRENCY_LIMITS: ConcurrencyLimits = { maxConcurrent: 16, maxQueue: 256, queueTimeoutMs: 10_000, perKey: 8 };

/** Seconds a client told "saturated" should wait before retrying. */
const SATURATED_RETRY_AFTER_S = 1;

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

/** FIFO semaphore with a bounded queue and a queue timeout; `acquire` rejects with 503 when saturated. */
export function createQuerySlots(limits: ConcurrencyLimits) {
  let running = 0;
  const queue: Waiter[] = [];
  const saturated = (why: string) => apiError('SERVICE_UNAVAILABLE', `Service temporarily unavailable: ${why}; retry shortly`, { retryAfter: SATURATED_RETRY_AFTER_S });
  const release = () => {
    const next = queue.shift();
    if (next) {
      clearTimeout(next.timer);
      next.grant(); // the slot passes straight to the next waiter
    } else running--;
  };
  return {
    get running() {
      return running;
    },
    get queued() {
      return queue.length;
    },
    /** Resolves with the release function once a slot is held. Rejects with 503 when the queue is full or the wait too long. */
    acquire(): Promise<() => void> {
      if (running < limits.maxConcurrent) {
        running++;
        return Promise.resolve(once(release));
      }
      if (queue.length >= limits.maxQueue) return Promise.reject(saturated('too many queries in progress'));
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          grant: () => resolve(once(release)),
          timer: setTimeout(() => {
            queue.splice(queue.indexOf(waiter), 1);
            reject(saturated('queries are queueing for too long'));
          }, limits.queueTimeoutMs),
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

/**
 * Wraps every route handler registered afterwards in `scope` (call before the routes): per-key
 * cap first, then a global slot. Metrics: `http_requests_total` counts the 429/503 answers.
 */
export function registerConcurrencyLimit(scope: FastifyInstance, deps: { limits: ConcurrencyLimits; metrics: Metrics }): void {
  const { limits } = deps;
  const slots = createQuerySlots(limits);
  const perKey = new Map<string, number>();
  scope.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = async function (request, reply) {
      const keyId = request.apiKey?.id ?? `ip:${request.ip}`;
      const mine = perKey.get(keyId) ?? 0;
      if (mine >= limits.perKey) {
        throw apiError('RATE_LIMITED', `Rate limit exceeded: at most ${limits.perKey} concurrent requests per API key`, { retryAfter: SATURATED_RETRY_AFTER_S });
      }
      perKey.set(keyId, mine + 1);
      try {
        const release = await slots.acquire();
        try {
          return await handler.call(this, request, reply);
        } finally {
          release();
        }
      } finally {
        const n = (perKey.get(keyId) ?? 1) - 1;
        if (n <= 0) perKey.delete(keyId);
        else perKey.set(keyId, n);
      }
    };
  });
}
