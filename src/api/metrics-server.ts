import Fastify from 'fastify';
import type { Common } from '../core/index.js';
import { startServer, type RunningServer } from './server.js';

/**
 * The Prometheus listener of docs/design.md §9: `GET /metrics` (text exposition format from
 * prom-client) on its own port, bound to loopback by default so it is never public by
 * accident. No key: reach it from the host's scraper only. Off unless METRICS_PORT is set.
 */
export async function startMetricsServer(args: { common: Common; port: number; host?: string }): Promise<RunningServer> {
  const { registry } = args.common.metrics;
  const app = Fastify({ logger: false });
  app.get('/metrics', async (_req, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  const server = await startServer({ app, host: args.host ?? '127.0.0.1', port: args.port });
  args.common.shutdown.register('metrics', () => server.close());
  return server;
}
