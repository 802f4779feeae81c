import { hourFloor, type Common } from '../core/index.js';
import type { HourlyPrice, Store } from '../store/index.js';
import type { PriceSource } from './types.js';

/** What createPricer takes: the store, the source chain, retry and concurrency settings. */
export interface PricerOptions {
  common: Common;
  store: Pick<Store, 'getPrices' | 'putPrices'>;
  /** Usually the chain from createPriceSources. */
  source: PriceSource;
  /** After a lookup found nothing for (mint, hour), don't ask again for this long, ms (default 5 min). */
  retryAfterMs?: number;
  /** Hours looked up in parallel (default 4; public Hermes allows 30 req/10 s). */
  concurrency?: number;
}

/** A token and a UTC hour: the grain of a stored price. */
export interface MintHour {
  mint: string;
  /** Start of the UTC hour, ms (any ms inside the hour is floored). */
  hourMs: number;
}

/**
 * Prices per (mint, hour), cached in the store (docs/design.md §6). `ensure` is called by the
 * indexer before it writes a batch, so the store can price the batch's games as it inserts
 * them, and by the indexer's re-pricing job for the hours `store.unpricedHours()` reports
 * (the store then re-prices those games and their rollups).
 */
export interface Pricer {
  /**
   * Makes sure a price row exists for each (mint, hour) that any source can price, and stores
   * the new rows (`store.putPrices`, which re-prices that hour's un-priced games). Pairs priced
   * before are not asked again; pairs no source could price are asked again after `retryAfterMs`.
   * Only call it for mints whose decimals the store already knows (the store prices a game
   * only when it has both). Never throws for a source failure (the pair stays un-priced).
   */
  ensure(pairs: MintHour[]): Promise<{ added: number; repriced: number }>;
}

const key = (mint: string, hourMs: number) => `${mint}@${hourMs}`;

/** A Pricer over `o.store`; remembers priced pairs in memory and retries unpriced ones after `retryAfterMs` (the injected clock). */
export function createPricer(o: PricerOptions): Pricer {
  const { clock, logger } = o.common;
  const retryAfterMs = o.retryAfterMs ?? 300_000;
  const concurrency = Math.max(1, o.concurrency ?? 4);
  /** (mint, hour) pairs with a stored price: never asked again (stored prices never change). */
  const known = new Set<string>();
  /** (mint, hour) → when a lookup last found nothing. */
  const missedAt = new Map<string, number>();
  /** Hour ranges per mint already loaded from the store. */
  const loaded = new Set<string>();

  async function loadFromStore(mint: string, hours: number[]): Promise<void> {
    const todo = hours.filter((h) => !loaded.has(key(mint, h)));
    if (todo.length === 0) return;
    const from = Math.min(...todo);
    const to = Math.max(...todo);
    const rows = await o.store.getPrices(mint, from, to);
    for (const r of rows) known.add(key(r.mint, r.hourMs));
    for (const h of todo) loaded.add(key(mint, h));
  }

  async function lookup(pairs: MintHour[]): Promise<HourlyPrice[]> {
    const now = clock.now();
    const byHour = new Map<number, string[]>();
    for (const { mint, hourMs } of pairs) {
      const k = key(mint, hourMs);
      if (known.has(k)) continue;
      const missed = missedAt.get(k);
      if (missed !== undefined && now - missed < retryAfterMs) continue;
      const list = byHour.get(hourMs) ?? [];
      if (!list.includes(mint)) list.push(mint);
      byHour.set(hourMs, list);
    }
    const hours = [...byHour.keys()].sort((a, b) => a - b);
    const rows: HourlyPrice[] = [];
    let next = 0;
    const worker = async () => {
      while (next < hours.length) {
        const hourMs = hours[next++]!;
        const mints = byHour.get(hourMs)!;
        let got;
        try {
          got = await o.source.priceAt(mints, hourMs);
        } catch (e) {
          logger.warn({ hour_ms: hourMs, err: (e as Error).message }, 'price lookup failed');
          got = new Map();
        }
        for (const mint of mints) {
          const q = got.get(mint);
          if (q) rows.push({ mint, hourMs, usdPrice: q.usdPrice, source: q.source, publishTime: q.publishTime });
          else missedAt.set(key(mint, hourMs), clock.now());
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, hours.length) }, worker));
    return rows;
  }

  async function store(rows: HourlyPrice[]): Promise<number> {
    if (rows.length === 0) return 0;
    const repriced = await o.store.putPrices(rows);
    for (const r of rows) {
      known.add(key(r.mint, r.hourMs));
      missedAt.delete(key(r.mint, r.hourMs));
    }
    return repriced;
  }

  return {
    async ensure(input) {
      const pairs = input.map((p) => ({ mint: p.mint, hourMs: hourFloor(p.hourMs) }));
      const hoursByMint = new Map<string, number[]>();
      for (const p of pairs) {
        const l = hoursByMint.get(p.mint) ?? [];
        l.push(p.hourMs);
        hoursByMint.set(p.mint, l);
      }
      for (const [mint, hours] of hoursByMint) await loadFromStore(mint, [...new Set(hours)]);
      const rows = await lookup(pairs);
      const repriced = await store(rows);
      return { added: rows.length, repriced };
    },
  };
}
