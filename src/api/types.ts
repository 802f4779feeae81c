import type { Common } from '../core/index.js';
import type { ResponseCacheOptions } from './plugins/cache.js';
import type { IndexerEvents, SyncController } from '../ingest/index.js';
import type { KeyService } from '../keys/index.js';
import type { BucketLimits, RateLimiter } from '../ratelimit/index.js';
import type { ApiKeyRecord, Scope, Store } from '../store/index.js';
import type { ConcurrencyLimits } from './plugins/concurrency.js';
import type { HttpLimits } from './plugins/limits.js';
import type { StreamOptions } from './stream.js';
import type { DashboardOptions } from './plugins/dashboard.js';

/** Optional settings of buildApp; every field has a default. */
export interface ApiOptions {
  /** Response cache of protected GET answers (plugins/cache.ts); absent = no cache (ETag/304 off too). */
  cache?: ResponseCacheOptions;
  /** Largest accepted request body, bytes (default 16 KiB: no route takes a body). */
  bodyLimit?: number;
  /** Fastify `trustProxy` (client IP from X-Forwarded-For behind a proxy); default false. */
  trustProxy?: boolean | string | string[];
  /** Brute-force guard on failed authentications per client IP (docs/design.md §4); default 30/min, burst 30. */
  authFailureLimits?: BucketLimits;
  /** URL/header sizes and slow-client timeouts (docs/hardening.md; defaults in DEFAULT_HTTP_LIMITS, docs/hardening.md). */
  httpLimits?: Partial<HttpLimits>;
  /** The API's own address for the OpenAPI document's `servers` (default http://127.0.0.1:3000). */
  publicUrl?: string;
  /** Fair share of the store's slots, global and per key (defaults: defaultConcurrencyLimits(store.slots)). */
  concurrency?: Partial<ConcurrencyLimits>;
  /** Live streams: heartbeat, per-key cap, poll interval, settle time (stream.ts DEFAULT_STREAM_OPTIONS). */
  stream?: Partial<StreamOptions>;
  /** The web dashboard at `/` (plugins/dashboard.ts): the built bundle's directory (default dist/dashboard), or `false` for none. */
  dashboard?: DashboardOptions;
}

/** What buildApp needs (docs/architecture.md convention 1): the common bag, the store, keys, limiter, sync controller. */
export interface ApiDeps {
  common: Common;
  store: Store;
  keys: KeyService;
  limiter: RateLimiter;
  sync: SyncController;
  /**
   * The indexer's commits on this host (an indexer child process, relayed): each one moves the
   * write generation the response cache and the status counters key on, so an answer cached
   * before a commit is not served after the API heard of it (docs/design.md §5).
   */
  events?: IndexerEvents;
  options?: ApiOptions;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key (set by the auth plugin on protected routes). */
    apiKey: ApiKeyRecord | null;
    /**
     * Runs a store read in a slot of the fair share (plugins/concurrency.ts), for reads made after
     * the handler returned: an export's later pages, a live stream's reads. Null outside the protected scope.
     */
    storeSlot: (<T>(fn: () => Promise<T>) => Promise<T>) | null;
  }
  interface FastifyContextConfig {
    /** Route is reachable without an API key (docs/design.md §4: /health, /ready, docs). */
    public?: boolean;
    /** Scope a key needs for this route (docs/design.md §4 "Scopes and publishable keys"); default `read`. */
    scope?: Scope;
    /** Not charged to the key's bucket nor counted in its usage (GET /usage); the bucket is only read. */
    free?: boolean;
    /** The route's operation id (operations.ts operationIdOf; set for every route): GET /usage counts by it. */
    operation?: string;
    /**
     * Never kept by the response cache (plugins/cache.ts): the answer depends on the calling key
     * (GET /usage), reports process state (GET /status, GET /sync/status) or is a live stream. The cache keys answers by
     * route and query only, so a per-key answer cached once would be served to every key.
     */
    uncached?: boolean;
  }
}

/** What route modules need: the read side of the store, the sync controller, the clock. */
export interface RouteDeps {
  store: Store;
  sync: SyncController;
  clock: Common['clock'];
  /** Write generation: the store's own writes plus the indexer commits heard of (ApiDeps.events). */
  generation: () => number;
  /** How long /status and /sync/status reuse the store's counters, ms (0 = never; see routes/status.ts). */
  statusCountsTtlMs?: number;
}
