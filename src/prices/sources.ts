import type { Common } from '../core/index.js';
import { createPriceChain } from './chain.js';
import { KNOWN_PYTH_FEEDS } from './feeds.js';
import { createHermesSource } from './sources/hermes.js';
import { createJupiterSource } from './sources/jupiter.js';
import { createOverridesSource } from './sources/overrides.js';
import type { PriceSource } from './types.js';

/** What createPriceSources takes: each source's URL and key (an empty URL disables it), the overrides file, extra feeds. */
export interface PriceSourcesOptions {
  common: Common;
  /** HERMES_URL; empty string disables Hermes. */
  hermesUrl: string;
  pythApiKey?: string;
  /** JUPITER_URL; empty string disables Jupiter. */
  jupiterUrl: string;
  jupiterApiKey?: string;
  /** PRICE_OVERRIDES_FILE (format in sources/overrides.ts and docs/indexer.md). */
  overridesFile?: string;
  /** Extra or replacing mint → Pyth feed id entries, merged over KNOWN_PYTH_FEEDS. */
  feeds?: Readonly<Record<string, string>>;
  fetch?: typeof fetch;
}

/** The docs/design.md §6 chain: Pyth Hermes (mints with a feed) → Jupiter current price → overrides file. */
export function createPriceSources(o: PriceSourcesOptions): PriceSource {
  const sources: PriceSource[] = [];
  if (o.hermesUrl) {
    sources.push(createHermesSource({ common: o.common, url: o.hermesUrl, apiKey: o.pythApiKey, feeds: { ...KNOWN_PYTH_FEEDS, ...o.feeds } }));
  }
  if (o.jupiterUrl) {
    sources.push(createJupiterSource({ common: o.common, url: o.jupiterUrl, apiKey: o.jupiterApiKey, fetch: o.fetch }));
  }
  if (o.overridesFile) sources.push(createOverridesSource({ common: o.common, file: o.overridesFile }));
  return createPriceChain(o.common, sources);
}
