/**
 * The node's network face on one port: JSON-RPC handler, WebSocket PubSub (`logsSubscribe`),
 * Hermes- and Jupiter-compatible price routes, and the Fastify server that carries them.
 * Imports `transactions/`, `chain/` and `json/` (docs/architecture.md "Layout").
 */
export { HERMES_PREFIX, JUPITER_PATH } from './price-routes.js';
export { createRpcHandler } from './rpc.js';
export { buildSimulatorServer } from './server.js';
export { createLogsPubSub } from './ws.js';
/**
 * Loads the Yellowstone gRPC server (geyser.ts) on demand: @grpc/grpc-js and the client package's
 * codecs load only for a simulator started with `yellowstone`. @grpc/grpc-js is a development
 * dependency (tests, benchmarks, `simulate --yellowstone-port` from a checkout): a production
 * install without it gets an Error saying so.
 */
export async function loadGeyserServer(): Promise<typeof import('./geyser.js')> {
  try {
    return await import('./geyser.js');
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') {
      throw new Error('the simulator\'s Yellowstone gRPC server needs @grpc/grpc-js, a development dependency: install the dev dependencies (npm ci)', { cause: err });
    }
    throw err;
  }
}
export type { GeyserServer } from './geyser.js';
