import Fastify, { type FastifyInstance } from 'fastify';
import type { ChainClock, FaultDice, PriceBook } from '../chain/index.js';
import { registerPriceRoutes } from './price-routes.js';
import { errorResponse, RpcError, type RpcHandler } from './rpc.js';
import type { LogsPubSub } from './ws.js';

/**
 * The simulator's HTTP server: JSON-RPC on `POST /` (single and batch requests, fault
 * injection per HTTP request), `GET /health` like a Solana node, the price endpoints, and the
 * WebSocket upgrade for PubSub on the same port.
 */
export interface ServerDeps {
  rpc: RpcHandler;
  pubsub: LogsPubSub;
  prices: PriceBook;
  clock: ChainClock;
  faults: () => FaultDice;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** Largest accepted request body (batches of getTransaction included). */
const BODY_LIMIT = 5 * 1024 * 1024;

/** The simulator's Fastify server: JSON-RPC POST (single and batch, with injected faults), the WebSocket upgrade and the price routes; not listening yet. */
export function buildSimulatorServer(deps: ServerDeps): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT, forceCloseConnections: true, keepAliveTimeout: 10_000 });

  // The body is parsed here, not by Fastify, so malformed JSON becomes JSON-RPC -32700.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.post('/', async (req, reply) => {
    const ctype = String(req.headers['content-type'] ?? '');
    if (!ctype.startsWith('application/json')) {
      return reply.code(415).type('text/plain').send('Supplied content type is not allowed. Content-Type: application/json is required');
    }
    const dice = deps.faults();
    const f = dice.spec;
    if (dice.roll(f.rateLimit)) {
      const retryAfter = f.retryAfterSeconds ?? 1;
      return reply
        .code(429)
        .header('retry-after', String(retryAfter))
        .type('application/json')
        .send(errorResponse(null, new RpcError(429, 'Too many requests for a specific RPC call, contact your app developer or support@rpcpool.com.')));
    }
    if (dice.roll(f.unavailable)) return reply.code(503).type('text/plain').send('Service Unavailable');
    if (dice.roll(f.slow)) await new Promise((r) => setTimeout(r, f.slowMs ?? 1500));
    const unhealthy = dice.roll(f.unhealthy);

    let body: unknown;
    try {
      body = JSON.parse(String(req.body ?? ''));
    } catch {
      return reply.type('application/json').send(errorResponse(null, new RpcError(-32700, 'Parse error')));
    }
    if (Array.isArray(body)) {
      if (body.length === 0) return reply.type('application/json').send(errorResponse(null, new RpcError(-32600, 'Invalid request')));
      // Answers come as strings or UTF-8 bytes (getTransaction json): joined as bytes.
      const parts: Buffer[] = [OPEN];
      for (const item of body) {
        const out = await deps.rpc.handle(item, { unhealthy });
        if (out === null) continue;
        if (parts.length > 1) parts.push(COMMA);
        parts.push(typeof out === 'string' ? Buffer.from(out) : out);
      }
      parts.push(CLOSE);
      return reply.type('application/json').send(Buffer.concat(parts));
    }
    const out = await deps.rpc.handle(body, { unhealthy });
    return reply.type('application/json').send(out ?? '');
  });

  app.get('/', (_req, reply) => reply.code(405).type('text/plain').send('Used HTTP Method is not allowed. POST or OPTIONS is required'));
  app.get('/health', (_req, reply) => reply.type('text/plain').send('ok'));

  registerPriceRoutes(app, { prices: deps.prices, clock: deps.clock });

  app.server.on('upgrade', (req, socket, head) => deps.pubsub.handleUpgrade(req, socket, head));
  return app;
}
