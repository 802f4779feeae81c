import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** A listening API server (startServer). */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000` (the actual port when 0 was asked). */
  url: string;
  /** Stops accepting, lets in-flight requests finish, closes the app (docs/design.md §9). */
  close(): Promise<void>;
}

/**
 * How long `close()` waits for in-flight requests before cutting the remaining connections, ms.
 * Needed because Node stops enforcing its header/request timeouts once `server.close()` runs:
 * without it a client that sent half a request would hold the process until it gave up
 * (docs/design.md §9 / docs/hardening.md: exit within 10 s of SIGTERM, with time left for the indexer and store).
 */
export const SHUTDOWN_GRACE_MS = 5_000;

/** Listens on `host:port` (port 0 = ephemeral). Rejects when the port is taken (EADDRINUSE). */
export async function startServer(args: { app: FastifyInstance; host: string; port: number; shutdownGraceMs?: number }): Promise<RunningServer> {
  const { app, host, port } = args;
  const graceMs = args.shutdownGraceMs ?? SHUTDOWN_GRACE_MS;
  await app.listen({ host, port });
  const addr = app.server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${addr.port}`,
    close: () =>
      (closing ??= (async () => {
        const force = setTimeout(() => app.server.closeAllConnections(), graceMs);
        try {
          await app.close();
        } finally {
          clearTimeout(force);
        }
      })()),
  };
}
