/**
 * The node's network face on one port: JSON-RPC handler, WebSocket PubSub (`logsSubscribe`),
 * Hermes- and Jupiter-compatible price routes, and the Fastify server that carries them.
 * Imports `transactions/`, `chain/` and `json/` (docs/architecture.md "Layout").
 */
export { HERMES_PREFIX, JUPITER_PATH } from './price-routes.js';
export { createRpcHandler } from './rpc.js';
export { buildSimulatorServer } from './server.js';
export { createLogsPubSub } from './ws.js';
/** Loads the Yellowstone gRPC server (geyser.ts) on demand: @grpc/grpc-js and the client package's codecs load only for a simulator started with `yellowstone`. */
export const loadGeyserServer = () => import('./geyser.js');
export type { GeyserServer } from './geyser.js';
