import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { Metrics } from '../../core/index.js';
import { apiError } from '../errors.js';

/**
 * A fair share of the store's slots (docs/hardening.md "Per-key share and fairness"), so one
 * client cannot starve the others. A slot is held exactly while a route handler runs (the store
 * query): responses served without the handler (a cache hit, a 4xx from a hook) never wait for one.
 * - at most `maxConcurrent` handlers run at once: the store's slots (reader threads on SQLite,
 *   pool connections on PostgreSQL), so queries never queue inside the store where arrival order
 *   would rule;
 * - at most `perKey` of them belong to one API key (default half the slots, at least 1), so
 *   another key finds a free slot while one key floods;
 * - requests beyond that wait in their key's FIFO queue (at most `perKeyQueue`, then 429
 *   RATE_LIMITED + `Retry-After: 1`; at most `maxQueue` over all keys, then 503
 *   SERVICE_UNAVAILABLE + `Retry-After: 1`; at most `queueTimeoutMs`, then 503 too);
 * - a freed slot goes to the waiting key (below its share) served least recently, not to the
 *   oldest waiter: a key with a long queue gets its turn like every other key, never all turns.
 */
export interface ConcurrencyLimits {
  /** Handlers running at once, all keys. Default: the store's slots (Store.slots). */
  maxConcurrent: number;
  /** Requests waiting for a slot, all keys; beyond → 503. Default 256. */
  maxQueue: number;
  /** Longest wait for a slot, ms; then → 503. Default 10 000. */
  queueTimeoutMs: number;
  /** Handlers of one key running at once. Default max(1, ⌊maxConcurrent / 2⌋). */
  perKey: number;
  /** Requests of one key waiting for a slot; beyond → 429. Default 64. */
  perKeyQueue: number;
}

/** The limits for a store with `slots` slots (docs/hardening.md "Per-key share and fairness"). */
export function defaultConcurrencyLimits(slots: number): ConcurrencyLimits {
  const maxConcurrent = Math.max(1, Math.floor(slots));
  return { maxConcurrent, maxQueue: 256, queueTimeoutMs: 10_000, perKey: Math.max(1, Math.floor(maxConcurrent / 2)), perKeyQueue: 64 };
}

/** Seconds a client told "saturated" should wait before retrying. */
const SATURATED_RETRY_AFTER_S = 1;

interface Waiter {
  grant: (release: () => void) => void;
  timer: NodeJS.Timeout;
}

interface KeyState {
  running: number;
  queue: Waiter[];
  /** Grant stamp of this key's latest slot (0 = never): the least recently served waiting key goes first. */
  served: number;
}

/** Slots of the store shared fairly between API keys (docs/hardening.md "Per-key share"); see createFairScheduler. */
export interface FairScheduler {
  /** Running plus waiting, all keys (0 = idle). */
  readonly load: number;
  /** A slot for `key` now (its release function), or undefined when it would have to wait: no promise (docs/benchmarks.md hot path). */
  tryAcquire(key: string): (() => void) | undefined;
  /** A slot for `key`, waiting for its turn; rejects with `tooMany()` (key's queue full), `full()` (all queues full) or `late()`. */
  acquire(key: string): Promise<() => void>;
}

/** The scheduler behind registerConcurrencyLimit (exported for its unit test). */
export function createFairScheduler(o: { limits: ConcurrencyLimits; tooMany: () => Error; full: () => Error; late: () => Error }): FairScheduler {
  const { limits } = o;
  const keys = new Map<string, KeyState>();
  /** Keys with a non-empty queue. */
  const waitingKeys = new Set<string>();
  let running = 0;
  let waiting = 0;
  let stamp = 0;

  const state = (key: string): KeyState => {
    let s = keys.get(key);
    if (!s) {
      s = { running: 0, queue: [], served: 0 };
      keys.set(key, s);
    }
    return s;
  };
  const forget = (key: string, s: KeyState) => {
    if (s.running === 0 && s.queue.length === 0) keys.delete(key);
  };

  const take = (key: string, s: KeyState): (() => void) => {
    running++;
    s.running++;
    s.served = ++stamp;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      running--;
      s.running--;
      forget(key, s);
      dispatch();
    };
  };

  /** Hands free slots to waiting keys below their share, least recently served first. */
  const dispatch = () => {
    while (running < limits.maxConcurrent && waitingKeys.size > 0) {
      let pick: string | undefined;
      let pickState: KeyState | undefined;
      for (const key of waitingKeys) {
        const s = keys.get(key)!;
        if (s.running < limits.perKey && (pickState === undefined || s.served < pickState.served)) {
          pick = key;
          pickState = s;
        }
      }
      if (pick === undefined || pickState === undefined) return; // every waiting key is at its share
      const waiter = pickState.queue.shift()!;
      waiting--;
      if (pickState.queue.length === 0) waitingKeys.delete(pick);
      clearTimeout(waiter.timer);
      waiter.grant(take(pick, pickState));
    }
  };

  const tryAcquire = (key: string): (() => void) | undefined => {
    if (running >= limits.maxConcurrent) return undefined;
    const s = keys.get(key);
    // A key with requests already waiting queues behind them (FIFO within a key).
    if (s && (s.running >= limits.perKey || s.queue.length > 0)) return undefined;
    return take(key, s ?? state(key));
  };

  return {
    get load() {
      return running + waiting;
    },
    tryAcquire,
    acquire(key) {
      const now = tryAcquire(key);
      if (now) return Promise.resolve(now);
      const s = state(key);
      if (s.queue.length >= limits.perKeyQueue) {
        forget(key, s);
        return Promise.reject(o.tooMany());
      }
      if (waiting >= limits.maxQueue) {
        forget(key, s);
        return Promise.reject(o.full());
      }
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          grant: resolve,
          timer: setTimeout(() => {
            s.queue.splice(s.queue.indexOf(waiter), 1);
            waiting--;
            if (s.queue.length === 0) waitingKeys.delete(key);
            forget(key, s);
            reject(o.late());
          }, limits.queueTimeoutMs),
        };
        s.queue.push(waiter);
        waiting++;
        waitingKeys.add(key);
      });
    },
  };
}

/**
 * Wraps every route handler registered afterwards in `scope` (call before the routes) in a slot
 * of the fair scheduler; requests without a key (none reach handlers today) count per client IP.
 */
export function registerConcurrencyLimit(scope: FastifyInstance, deps: { limits: ConcurrencyLimits; metrics: Metrics }): void {
  const { limits } = deps;
  const saturated = (why: string) => () => apiError('SERVICE_UNAVAILABLE', `Service temporarily unavailable: ${why}; retry shortly`, { retryAfter: SATURATED_RETRY_AFTER_S });
  const scheduler = createFairScheduler({
    limits,
    tooMany: () => apiError('RATE_LIMITED', `Rate limit exceeded: too many concurrent requests for this API key (${limits.perKey} run at once, ${limits.perKeyQueue} may wait)`, { retryAfter: SATURATED_RETRY_AFTER_S }),
    full: saturated('too many queries in progress'),
    late: saturated('queries are queueing for too long'),
  });
  scope.decorateRequest('storeSlot', null);
  scope.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = async function (request, reply) {
      const key = request.apiKey?.id ?? `ip:${request.ip}`;
      // Reads after the handler has answered (an export's later pages, a live stream's reads) take a slot each, in the same fair share.
      request.storeSlot = async <T>(fn: () => Promise<T>): Promise<T> => {
        const r = scheduler.tryAcquire(key) ?? (await scheduler.acquire(key));
        try {
          return await fn();
        } finally {
          r();
        }
      };
      // A free slot is taken without awaiting a promise; only a busy store makes the request wait.
      const release = scheduler.tryAcquire(key) ?? (await scheduler.acquire(key));
      try {
        return await handler.call(this, request, reply);
      } finally {
        release();
      }
    };
  });
}
