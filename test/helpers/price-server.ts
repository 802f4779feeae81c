import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server that answers like Pyth Hermes (`/v2/updates/price/{t}`) and Jupiter
 * price v3 (`/jup?ids=…`), with behaviour each test sets, recording every request.
 */
export interface PriceServerScript {
  /** USD price of feed `id` (hex, no 0x) at publish time `t` (s); undefined = feed unknown. */
  hermesPrice?(id: string, t: number): number | undefined;
  /** Publish time returned for a request at t (default t). */
  hermesPublishTime?(t: number): number;
  /** Force an HTTP status for Hermes (e.g. 503, 404). */
  hermesStatus?(): number | undefined;
  /** Current USD price per mint; undefined = omitted (unreliable token). */
  jupiterPrice?(mint: string): number | undefined;
  jupiterStatus?(): number | undefined;
}

export interface PriceServer {
  hermesUrl: string;
  jupiterUrl: string;
  hermesRequests: { t: number; ids: string[]; auth: string | undefined }[];
  jupiterRequests: { ids: string[]; apiKey: string | undefined }[];
  close(): Promise<void>;
}

export async function startPriceServer(script: PriceServerScript): Promise<PriceServer> {
  const hermesRequests: PriceServer['hermesRequests'] = [];
  const jupiterRequests: PriceServer['jupiterRequests'] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const m = /^\/v2\/updates\/price\/(\d+)$/.exec(url.pathname);
    if (m) {
      const t = Number(m[1]);
      const ids = url.searchParams.getAll('ids[]');
      hermesRequests.push({ t, ids, auth: req.headers.authorization });
      const forced = script.hermesStatus?.();
      if (forced) return send(forced, { error: 'forced' });
      const parsed = [];
      for (const raw of ids) {
        const id = raw.replace(/^0x/, '');
        const usd = script.hermesPrice?.(id, t);
        if (usd === undefined) return send(404, { error: `Price ids not found: ${id}` });
        const publish_time = script.hermesPublishTime?.(t) ?? t;
        // expo −8 like Pyth crypto feeds: price = round(usd · 10^8) as a string.
        const p = { price: String(Math.round(usd * 1e8)), conf: '1000', expo: -8, publish_time };
        parsed.push({ id, price: p, ema_price: p, metadata: { slot: 1, proof_available_time: publish_time, prev_publish_time: publish_time - 1 } });
      }
      return send(200, { binary: { encoding: 'hex', data: ['00'] }, parsed });
    }
    if (url.pathname === '/jup') {
      const ids = (url.searchParams.get('ids') ?? '').split(',').filter(Boolean);
      jupiterRequests.push({ ids, apiKey: req.headers['x-api-key'] as string | undefined });
      const forced = script.jupiterStatus?.();
      if (forced) return send(forced, { error: 'forced' });
      const out: Record<string, unknown> = {};
      for (const id of ids) {
        const p = script.jupiterPrice?.(id);
        if (p !== undefined) out[id] = { usdPrice: p, blockId: 1, decimals: 6, createdAt: '2024-06-05T08:55:25.527Z', liquidity: 1, priceChange24h: 0 };
      }
      return send(200, out);
    }
    send(404, { error: 'no route' });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    hermesUrl: `http://127.0.0.1:${port}`,
    jupiterUrl: `http://127.0.0.1:${port}/jup`,
    hermesRequests,
    jupiterRequests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
