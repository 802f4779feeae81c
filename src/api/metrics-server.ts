import Fastify from 'fastify';
import { AggregatorRegistry } from 'prom-client';
import type { Common } from '../core/index.js';
import { startServer, type RunningServer } from './server.js';

/**
 * The Prometheus listener of docs/design.md §9: `GET /metrics` (text exposition format from
 * prom-client) on its own port, bound to loopback by default so it is never public by
 * accident. No key: reach it from the host's scraper only. Off unless METRICS_PORT is set.
 *
 * `sources` adds other processes' metrics (prom-client JSON, e.g. the indexer child's, asked over
 * IPC): the answer is prom-client's aggregation of this process's registry and theirs — series
 * with the same name and labels are combined by their `aggregator` (sum by default).
 */
export async function startMetricsServer(args: { common: Common; port: number; host?: string; sources?: (() => Promise<object[]>)[] }): Promise<RunningServer> {
  const { registry } = args.common.metrics;
  const sources = args.sources ?? [];
  const app = Fastify({ logger: false });
  app.get('/metrics', async (_req, reply) => {
    reply.type(registry.contentType);
    if (sources.length === 0) return registry.metrics();
    const all = await Promise.all([registry.getMetricsAsJSON(), ...sources.map((s) => s())]);
    return AggregatorRegistry.aggregate(all).metrics();
  });
  const server = await startServer({ app, host: args.host ?? '127.0.0.1', port: args.port });
  args.common.shutdown.register('metrics', () => server.close());
  return server;
}
