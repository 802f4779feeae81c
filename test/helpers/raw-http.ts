import net from 'node:net';

/** What came back on a raw TCP socket: the bytes, parsed status and JSON body (when there is one). */
export interface RawAnswer {
  text: string;
  status: number | undefined;
  headers: Record<string, string>;
  body: any;
  /** ms from connect until the server closed the socket (undefined if it did not within the wait). */
  closedAfterMs: number | undefined;
}

export function parseRaw(text: string): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const lines = head.split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1];
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let body: unknown;
  try {
    body = JSON.parse(rest.join('\r\n\r\n'));
  } catch {
    body = undefined;
  }
  return { status: status === undefined ? undefined : Number(status), headers, body };
}

/**
 * Opens a raw socket to `baseUrl`, writes `chunks` one after another with `gapMs` between them
 * (a slow client), and collects everything until the server closes the socket or `waitMs`
 * passed. Never throws on resets: a reset is an answer too.
 */
export function rawExchange(baseUrl: string, chunks: (string | Buffer)[], opts: { gapMs?: number; waitMs?: number } = {}): Promise<RawAnswer> {
  const u = new URL(baseUrl);
  const gapMs = opts.gapMs ?? 0;
  const waitMs = opts.waitMs ?? 10_000;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(Number(u.port), u.hostname);
    let text = '';
    let closedAfterMs: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      for (const t of writers) clearTimeout(t);
      socket.destroy();
      resolve({ text, closedAfterMs, ...parseRaw(text) });
    };
    const writers: NodeJS.Timeout[] = [];
    socket.on('connect', () => {
      chunks.forEach((c, i) => {
        writers.push(
          setTimeout(() => {
            if (!socket.destroyed && socket.writable) socket.write(c);
          }, i * gapMs),
        );
      });
    });
    socket.on('data', (d) => (text += d.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closedAfterMs = Date.now() - started;
      finish();
    });
    timer = setTimeout(finish, waitMs);
  });
}

/** A request split into single bytes (slowloris). */
export function bytesOf(s: string): string[] {
  return [...s];
}
