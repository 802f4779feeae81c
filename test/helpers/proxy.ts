import net from 'node:net';

/**
 * A TCP proxy on a loopback port in front of `target` (a URL with host:port) that a test can
 * turn into each way a dependency fails:
 * - `forward()` (the start): bytes flow both ways;
 * - `cut()`: open connections are reset and new ones are accepted and reset at once (the server
 *   is down; the port stays ours, so forwarding again is just `forward()`);
 * - `stall()`: connections stay open but nothing flows: new ones are accepted and held, open
 *   ones stop forwarding in both directions (a server that hangs, a black-holed network). On
 *   `forward()` the held and paused connections carry on where they stopped.
 */
export interface TcpProxy {
  /** `target` with its host:port replaced by the proxy's (path, query and credentials kept). */
  url: string;
  port: number;
  forward(): void;
  cut(): void;
  stall(): void;
  /** Connections reset while cut. */
  readonly refused: number;
  close(): Promise<void>;
}

type Mode = 'forward' | 'cut' | 'stall';

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port || (target.protocol.startsWith('postgres') ? 5432 : 80));
  let mode: Mode = 'forward';
  let refused = 0;
  const pairs = new Set<Pair>();

  const drop = (p: Pair) => {
    p.client.destroy();
    p.upstream?.destroy();
    pairs.delete(p);
  };
  const flow = (p: Pair) => {
    if (!p.upstream) {
      const upstream = net.connect(targetPort, target.hostname);
      p.upstream = upstream;
      upstream.on('error', () => drop(p)).on('close', () => drop(p));
    }
    p.client.pipe(p.upstream);
    p.upstream.pipe(p.client);
    p.client.resume();
    p.upstream.resume();
  };
  const hold = (p: Pair) => {
    // Unpiped and paused sockets read nothing: the peer's bytes wait in the kernel buffers.
    p.client.unpipe();
    p.upstream?.unpipe();
    p.client.pause();
    p.upstream?.pause();
  };

  const server = net.createServer((client) => {
    if (mode === 'cut') {
      refused++;
      client.resetAndDestroy();
      return;
    }
    const p: Pair = { client };
    pairs.add(p);
    client.on('error', () => drop(p)).on('close', () => drop(p));
    if (mode === 'forward') flow(p);
    else hold(p);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    forward() {
      mode = 'forward';
      for (const p of pairs) flow(p);
    },
    cut() {
      mode = 'cut';
      for (const p of [...pairs]) {
        p.client.resetAndDestroy();
        p.upstream?.resetAndDestroy();
        pairs.delete(p);
      }
    },
    stall() {
      mode = 'stall';
      for (const p of pairs) hold(p);
    },
    get refused() {
      return refused;
    },
    async close() {
      for (const p of [...pairs]) drop(p);
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
