import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import type { Metrics } from '../../core/index.js';

/** Route label of requests that matched no route (404 before routing). */
const UNMATCHED = '<unmatched>';

/**
 * HTTP metrics of docs/design.md §9 on every answer: `http_requests_total{route,method,status}` and
 * `http_request_duration_seconds{route,method}` (seconds from the request's arrival to the
 * answer's last byte, Fastify `reply.elapsedTime`). `route` is the route's pattern (never the
 * raw URL: bounded label values), `<unmatched>` for requests no route matched.
 * Each route gets its own onResponse hook with its label objects built once (no
 * `request.routeOptions` per request, docs/benchmarks.md); one app-level hook covers unmatched requests.
 * Call before any route is added.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const recorder = (route: string): onResponseHookHandler => {
    const record = routeRecorder(metrics, route);
    return (request, reply, done) => {
      record(request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
  };
  app.addHook('onRoute', (route) => {
    route.onResponse = [...[route.onResponse ?? []].flat(), recorder(route.url)];
  });
  const unmatched = recorder(UNMATCHED);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched.call(app, request, reply, done);
    else done();
  });
}

/**
 * Counts one answer of `route` (its pattern) in `http_requests_total` and observes its duration,
 * seconds, in `http_request_duration_seconds` (docs/design.md §9). Label objects are built on first
 * use per method and status and reused: no allocation per request. Shared by the Fastify hook
 * above and the requests answered before Fastify (plugins/hit-lane.ts).
 */
export function routeRecorder(metrics: Metrics, route: string): (method: string, status: number, seconds: number) => void {
  const byMethod = new Map<string, { timed: { route: string; method: string }; counted: Map<number, { route: string; method: string; status: string }> }>();
  return (method, status, seconds) => {
    let m = byMethod.get(method);
    if (m === undefined) {
      m = { timed: { route, method }, counted: new Map() };
      byMethod.set(method, m);
    }
    let counted = m.counted.get(status);
    if (counted === undefined) {
      counted = { route, method, status: String(status) };
      m.counted.set(status, counted);
    }
    metrics.httpRequests.inc(counted);
    metrics.httpDuration.observe(m.timed, seconds);
  };
}
