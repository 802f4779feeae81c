export type { PriceSource, PriceQuote } from './types.js';
export { KNOWN_PYTH_FEEDS, normalizeFeedId } from './feeds.js';
export { createHermesSource, type HermesSourceOptions } from './sources/hermes.js';
export { createJupiterSource, type JupiterSourceOptions } from './sources/jupiter.js';
export { createOverridesSource, parseOverrides, type OverridesFile, type OverridesSourceOptions } from './sources/overrides.js';
export { createPriceChain } from './chain.js';
export { createPriceSources, type PriceSourcesOptions } from './sources.js';
export { createPricer, type Pricer, type PricerOptions, type MintHour } from './pricer.js';
