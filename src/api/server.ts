import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000` (the actual port when 0 was asked). */
  url: string;
  /** Stops accepting, lets in-flight requests finish, closes the app (DESIGN §9). */
  close(): Promise<void>;
}

/** Listens on `host:port` (port 0 = ephemeral). Rejects when the port is taken (EADDRINUSE). */
export async function startServer(args: { app: FastifyInstance; host: string; port: number }): Promise<RunningServer> {
  const { app, host, port } = args;
  await app.listen({ host, port });
  const addr = app.server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${addr.port}`,
    close: () => (closing ??= app.close()),
  };
}
