import { HermesClient } from '@pythnetwork/hermes-client';
import { AppError, type Common } from '../../core/index.js';
import { normalizeFeedId } from '../feeds.js';
import type { PriceQuote, PriceSource } from '../types.js';

/** What createHermesSource takes: Hermes URL and key, the mint → feed id table, timeout and retries (ms). */
export interface HermesSourceOptions {
  common: Common;
  /** Hermes base URL, e.g. https://hermes.pyth.network (HERMES_URL). */
  url: string;
  /** PYTH_API_KEY, sent as `Authorization: Bearer …` (required by Hermes since 2026; docs/design.md §6). */
  apiKey?: string;
  /** mint → Pyth feed id (hex, with or without 0x). */
  feeds: Readonly<Record<string, string>>;
  timeoutMs?: number;
  /** Retries of a failed request (not of a 404), default 2, with full-jitter backoff from `retryDelayMs` (default 250). */
  retries?: number;
  retryDelayMs?: number;
}

const HOUR_S = 3600;

/**
 * Pyth Hermes by publish time (docs/protocol.md §6): `GET /v2/updates/price/{t}?ids[]=…&parsed=true`
 * answers the first update with publish_time ≥ t. We ask at the hour's start and keep the
 * answer only when it was published within that hour, so a feed gap never lends one hour's
 * price to another. Value = price × 10^expo (USD per whole token).
 */
export function createHermesSource(o: HermesSourceOptions): PriceSource {
  // Retries are ours: the client's own would also retry a definitive 404 (no data at that time).
  const client = new HermesClient(o.url, {
    timeout: o.timeoutMs ?? 15_000,
    httpRetries: 0,
    ...(o.apiKey ? { headers: { Authorization: `Bearer ${o.apiKey}` } } : {}),
  });
  const retries = o.retries ?? 2;
  const retryDelayMs = o.retryDelayMs ?? 250;
  /** After a 401/403 (PYTH_API_KEY missing or rejected) Hermes is not asked again for a while. */
  let authBlockedUntil = 0;
  const feedOf = new Map(Object.entries(o.feeds).map(([mint, id]) => [mint, normalizeFeedId(id)]));

  return {
    name: 'pyth',
    covers: (mint) => feedOf.has(mint),
    async priceAt(mints, hourMs) {
      const out = new Map<string, PriceQuote>();
      const wanted = mints.filter((m) => feedOf.has(m));
      if (wanted.length === 0) return out;
      if (o.common.clock.now() < authBlockedUntil) {
        throw new AppError('PRICE_SOURCE_UNAVAILABLE', 'pyth hermes: not authorised (PYTH_API_KEY missing or rejected); paused', { retryable: true });
      }
      const hourS = Math.floor(hourMs / 1000);
      const ids = [...new Set(wanted.map((m) => feedOf.get(m)!))];
      let update;
      for (let attempt = 0; ; attempt++) {
        try {
          update = await client.getPriceUpdatesAtTimestamp(hourS, ids, { parsed: true });
          break;
        } catch (e) {
          const msg = e instanceof Error ? e.message : String(e);
          // 404: Hermes has no update at that time for these ids (before its archive) — definitive.
          if (/status: 404/.test(msg)) return out;
          if (/status: 40[13]/.test(msg)) {
            // A key problem is not transient per request, but the prices are still Pyth's to give:
            // stay retryable (the games wait un-priced) and stop hammering Hermes for 10 minutes.
            authBlockedUntil = o.common.clock.now() + 600_000;
            o.common.logger.error({ status: msg.slice(0, 40) }, 'Pyth Hermes refused the request: set PYTH_API_KEY (games in Pyth-priced tokens stay un-priced until then)');
            throw new AppError('PRICE_SOURCE_UNAVAILABLE', `pyth hermes: ${msg.slice(0, 200)}`, { retryable: true, cause: e });
          }
          if (attempt >= retries) throw new AppError('PRICE_SOURCE_UNAVAILABLE', `pyth hermes: ${msg.slice(0, 200)}`, { retryable: true, cause: e });
          await new Promise((r) => setTimeout(r, Math.random() * retryDelayMs * 2 ** attempt));
        }
      }
      const byId = new Map<string, PriceQuote>();
      for (const p of update.parsed ?? []) {
        const t = p.price.publish_time;
        if (t < hourS || t >= hourS + HOUR_S) continue;
        const usdPrice = Number(p.price.price) * 10 ** p.price.expo;
        if (!Number.isFinite(usdPrice) || usdPrice < 0) continue;
        byId.set(normalizeFeedId(p.id), { usdPrice, source: 'pyth', publishTime: t });
      }
      for (const m of wanted) {
        const q = byId.get(feedOf.get(m)!);
        if (q) out.set(m, q);
      }
      o.common.metrics.priceLookups.inc({ source: 'pyth', outcome: 'ok' }, out.size);
      o.common.metrics.priceLookups.inc({ source: 'pyth', outcome: 'missing' }, wanted.length - out.size);
      return out;
    },
  };
}
