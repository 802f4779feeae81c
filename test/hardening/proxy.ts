import net from 'node:net';

/**
 * A TCP proxy on a loopback port in front of `target` (host:port), which a test can cut and
 * restore: while cut, open connections are reset and new ones are accepted and reset at once
 * (the dependency is "down"; the port stays ours, so restoring is just forwarding again).
 */
export interface CuttableProxy {
  url: string;
  cut(): void;
  restore(): void;
  /** Connections refused while cut. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startProxy(targetUrl: string): Promise<CuttableProxy> {
  const target = new URL(targetUrl);
  let down = false;
  let refused = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) {
      refused++;
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `${target.protocol}//127.0.0.1:${port}${target.pathname === '/' ? '' : target.pathname}`,
    cut() {
      down = true;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    get refused() {
      return refused;
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
