import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that plays the part of a JSON-RPC endpoint whose behaviour
 * each test scripts (status codes, headers, JSON-RPC errors, delays). It records every
 * request body so tests can count what the client actually sent.
 */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** JSON body (serialised) or raw text. */
  body?: unknown;
  raw?: string;
  delayMs?: number;
}

export interface RecordedRequest {
  at: number;
  body: any;
}

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  /** Max requests in flight at once, observed. */
  maxInFlight(): number;
  close(): Promise<void>;
}

export async function startScriptedServer(handle: (body: any, n: number) => Reply | Promise<Reply>): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer(async (req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      requests.push({ at: Date.now(), body });
      const r = await handle(body, requests.length);
      if (r.delayMs) await new Promise((ok) => setTimeout(ok, r.delayMs));
      if (res.destroyed) return;
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
      res.end(r.raw ?? JSON.stringify(r.body ?? null));
    } catch {
      res.destroy(); // the client aborted
    } finally {
      inFlight--;
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** JSON-RPC success reply for one request object. */
export const ok = (req: { id: unknown }, result: unknown) => ({ jsonrpc: '2.0', id: req.id, result });
/** JSON-RPC error reply for one request object. */
export const err = (req: { id: unknown }, code: number, message = 'error') => ({ jsonrpc: '2.0', id: req.id, error: { code, message } });
