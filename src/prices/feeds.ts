/**
 * Known Pyth price feed ids (hex, no 0x) by SPL mint. Source: docs/protocol.md §6
 * (community repos, Hermes `/v2/price_feeds`), USDT/USD from the Pyth price-feed list.
 * Mints without an entry (memecoins such as WIF) are priced by Jupiter or the overrides file.
 */
export const KNOWN_PYTH_FEEDS: Readonly<Record<string, string>> = Object.freeze({
  // Wrapped SOL → SOL/USD
  So11111111111111111111111111111111111111112: 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
  // USDC → USDC/USD
  EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: 'eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a',
  // USDT → USDT/USD
  Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB: '2b89b9dc8fdf9f34709a5b106b472f0f39bb6ca9ce04b0fd7f2e971688e2e53b',
  // BONK → BONK/USD
  DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263: '72b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419',
  // JUP → JUP/USD
  JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN: '0a0408d619e9380abad35060f9192039ed5042fa6f82301d0e48bb52be830996',
});

/** Lower-case hex without `0x`, the form Hermes returns in `parsed[].id`. */
export function normalizeFeedId(id: string): string {
  return id.toLowerCase().replace(/^0x/, '');
}
