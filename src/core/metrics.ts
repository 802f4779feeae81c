import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of docs/design.md §9, one registry per process (not the global one, so tests
 * can build many apps). Exposed on METRICS_PORT by the CLI.
 */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'route' | 'method' | 'status'>;
  httpDuration: Histogram<'route' | 'method'>;
  /** Cache hits answered before Fastify's pipeline (src/api/plugins/hit-lane.ts). */
  hitLaneAnswers: Counter;
  /** Response-cache misses that waited for another request computing the same answer (src/api/plugins/cache.ts). */
  cacheCoalesced: Counter;
  rateLimitDenials: Counter<'tier'>;
  authFailures: Counter<'reason'>;
  indexerLagSlots: Gauge;
  indexerLagSeconds: Gauge;
  eventsStored: Counter<'kind'>;
  eventsSkipped: Counter<'reason'>;
  syncPasses: Counter<'trigger'>;
  rpcRequests: Counter<'method'>;
  rpcErrors: Counter<'method' | 'kind'>;
  rpcRetries: Counter<'method'>;
  priceLookups: Counter<'source' | 'outcome'>;
}

/** A fresh registry with every metric of docs/design.md §9 registered on it (none on the global registry). */
export function createMetrics(): Metrics {
  const registry = new Registry();
  const r = { registers: [registry] };
  return {
    registry,
    httpRequests: new Counter({ name: 'http_requests_total', help: 'HTTP requests', labelNames: ['route', 'method', 'status'], ...r }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      ...r,
    }),
    hitLaneAnswers: new Counter({ name: 'http_hit_lane_answers_total', help: 'Response-cache hits answered before the Fastify pipeline (the hit lane)', ...r }),
    cacheCoalesced: new Counter({ name: 'http_cache_coalesced_total', help: 'Response-cache misses served from the answer another request was computing', ...r }),
    rateLimitDenials: new Counter({ name: 'rate_limit_denials_total', help: 'Requests denied by rate limit', labelNames: ['tier'], ...r }),
    authFailures: new Counter({ name: 'auth_failures_total', help: 'Failed authentications', labelNames: ['reason'], ...r }),
    indexerLagSlots: new Gauge({ name: 'indexer_lag_slots', help: 'Chain head slot minus last indexed slot', ...r }),
    indexerLagSeconds: new Gauge({ name: 'indexer_lag_seconds', help: 'Wall clock minus last indexed blockTime (s)', ...r }),
    eventsStored: new Counter({ name: 'indexer_events_stored_total', help: 'Events stored', labelNames: ['kind'], ...r }),
    eventsSkipped: new Counter({ name: 'indexer_events_skipped_total', help: 'Events or transactions skipped', labelNames: ['reason'], ...r }),
    syncPasses: new Counter({ name: 'indexer_sync_passes_total', help: 'Tail passes started, by what started them: poll (POLL_INTERVAL_MS, logsSubscribe) or request (POST /sync)', labelNames: ['trigger'], ...r }),
    rpcRequests: new Counter({ name: 'rpc_requests_total', help: 'JSON-RPC requests', labelNames: ['method'], ...r }),
    rpcErrors: new Counter({ name: 'rpc_errors_total', help: 'JSON-RPC errors', labelNames: ['method', 'kind'], ...r }),
    rpcRetries: new Counter({ name: 'rpc_retries_total', help: 'JSON-RPC retries', labelNames: ['method'], ...r }),
    priceLookups: new Counter({ name: 'price_lookups_total', help: 'Price lookups', labelNames: ['source', 'outcome'], ...r }),
  };
}
