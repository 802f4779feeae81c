import { AppError, type Common } from '../../core/index.js';
import type { PriceQuote, PriceSource } from '../types.js';

/** What createJupiterSource takes: the Price API v3 URL and key, cache time and timeout (ms). */
export interface JupiterSourceOptions {
  common: Common;
  /** Price API v3 URL, e.g. https://api.jup.ag/price/v3 (JUPITER_URL). */
  url: string;
  /** JUPITER_API_KEY, sent as `x-api-key`. */
  apiKey?: string;
  /** How long a current price is reused, ms (default 60 000). */
  cacheMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Jupiter v3 takes at most 50 ids per request (dev.jup.ag; docs/protocol.md §6). */
const MAX_IDS = 50;

/**
 * Jupiter's **current** USD price (v3 `GET ?ids=a,b` → `{ "<mint>": { usdPrice } }`; the
 * deprecated v2 shape `{ data: { "<mint>": { price } } }` is read too). It has no history,
 * so the price seen now is stored for the hour asked (docs/design.md §6: the fallback for mints
 * without a Pyth feed); publishTime is the time we asked. Tokens Jupiter omits are absent.
 */
export function createJupiterSource(o: JupiterSourceOptions): PriceSource {
  const { clock, metrics } = o.common;
  const cacheMs = o.cacheMs ?? 60_000;
  const fetchImpl = o.fetch ?? fetch;
  const cache = new Map<string, { at: number; quote: PriceQuote | undefined }>();

  async function fetchPrices(ids: string[]): Promise<void> {
    const url = new URL(o.url);
    url.searchParams.set('ids', ids.join(','));
    let res: Response;
    let body: unknown;
    try {
      res = await fetchImpl(url, {
        headers: { accept: 'application/json', ...(o.apiKey ? { 'x-api-key': o.apiKey } : {}) },
        signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
      });
      body = res.ok ? await res.json() : await res.text();
    } catch (e) {
      throw new AppError('PRICE_SOURCE_UNAVAILABLE', `jupiter: ${e instanceof Error ? e.message : String(e)}`, { retryable: true, cause: e });
    }
    if (!res.ok) {
      throw new AppError('PRICE_SOURCE_UNAVAILABLE', `jupiter: HTTP ${res.status}`, { retryable: res.status === 429 || res.status >= 500 });
    }
    const now = clock.now();
    const root = (body ?? {}) as Record<string, unknown>;
    const table = (typeof root.data === 'object' && root.data !== null ? root.data : root) as Record<string, { usdPrice?: unknown; price?: unknown } | null>;
    for (const id of ids) {
      const e = table[id];
      const raw = e ? (e.usdPrice ?? e.price) : undefined;
      const usdPrice = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : NaN;
      const quote = Number.isFinite(usdPrice) && usdPrice >= 0 ? { usdPrice, source: 'jupiter', publishTime: Math.floor(now / 1000) } : undefined;
      cache.set(id, { at: now, quote });
    }
  }

  return {
    name: 'jupiter',
    covers: () => true,
    async priceAt(mints) {
      const now = clock.now();
      const stale = [...new Set(mints)].filter((m) => {
        const c = cache.get(m);
        return !c || now - c.at >= cacheMs;
      });
      for (let i = 0; i < stale.length; i += MAX_IDS) await fetchPrices(stale.slice(i, i + MAX_IDS));
      const out = new Map<string, PriceQuote>();
      for (const m of mints) {
        const q = cache.get(m)?.quote;
        if (q) out.set(m, q);
      }
      metrics.priceLookups.inc({ source: 'jupiter', outcome: 'ok' }, out.size);
      metrics.priceLookups.inc({ source: 'jupiter', outcome: 'missing' }, mints.length - out.size);
      return out;
    },
  };
}
