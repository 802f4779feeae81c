import { isAppError, type Common } from '../core/index.js';
import type { PriceQuote, PriceSource } from './types.js';

/**
 * Asks the sources in order (docs/design.md §6: Pyth Hermes → Jupiter → operator overrides); each
 * mint takes the first price found. A source that fails *transiently* for mints it covers
 * takes those mints out of this lookup (they stay un-priced and are retried later), so a
 * brief Hermes outage never stores Jupiter's current price for a historical hour forever.
 * A non-retryable failure is logged and the chain moves on.
 */
export function createPriceChain(common: Common, sources: PriceSource[]): PriceSource {
  return {
    name: 'chain',
    covers: (mint) => sources.some((s) => s.covers(mint)),
    async priceAt(mints, hourMs) {
      const out = new Map<string, PriceQuote>();
      let remaining = [...new Set(mints)];
      for (const source of sources) {
        const asked = remaining.filter((m) => source.covers(m));
        if (asked.length === 0) continue;
        try {
          const got = await source.priceAt(asked, hourMs);
          for (const [m, q] of got) if (asked.includes(m)) out.set(m, q);
          remaining = remaining.filter((m) => !out.has(m));
        } catch (e) {
          common.metrics.priceLookups.inc({ source: source.name, outcome: 'error' }, asked.length);
          const retryable = isAppError(e) && e.retryable;
          common.logger.warn({ source: source.name, hour_ms: hourMs, mints: asked.length, err: (e as Error).message, retryable }, 'price source failed');
          if (retryable) remaining = remaining.filter((m) => !asked.includes(m));
        }
        if (remaining.length === 0) break;
      }
      return out;
    },
  };
}
