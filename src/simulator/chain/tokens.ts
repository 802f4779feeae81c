/**
 * The simulated tokens: real mainnet mints, decimals and Pyth feed ids (feed ids from
 * docs/protocol.md §6 and community lists; USDT's from the Pyth price feed list).
 */
export interface TokenDef {
  index: number;
  symbol: string;
  mint: string;
  decimals: number;
  /** Pyth Hermes feed id (64 hex chars, no 0x), or null when only Jupiter prices it. */
  pythFeedId: string | null;
  /** Pyth exponent: price = integer × 10^expo. */
  expo: number;
  /** Centre of the USD price path (USD per whole token). */
  basePrice: number;
  /** Log-space amplitudes of the price path's waves, slow to fast (yearly … daily), plus hourly noise. */
  waves: readonly number[];
  noise: number;
  /** SPL token supply reported by getTokenSupply / getAccountInfo (smallest units). */
  supply: bigint;
  /** Share of games in this token, before platforms' own preferences. */
  weight: number;
}

/** Periods (hours) of the price path's waves, matched index-wise with `waves`. */
export const WAVE_PERIODS_H = [24 * 365, 24 * 61, 24 * 13, 24 * 3, 24] as const;

/** The simulated tokens; `index` is the position. */
export const TOKENS: readonly TokenDef[] = [
  {
    index: 0,
    symbol: 'SOL',
    mint: 'So11111111111111111111111111111111111111112',
    decimals: 9,
    pythFeedId: 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
    expo: -8,
    basePrice: 150,
    waves: [0.3, 0.12, 0.06, 0.03, 0.01],
    noise: 0.004,
    supply: 12_345_678_901_234_567n,
    weight: 45,
  },
  {
    index: 1,
    symbol: 'USDC',
    mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    decimals: 6,
    pythFeedId: 'eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a',
    expo: -8,
    basePrice: 1,
    waves: [0, 0, 0.0002, 0.0001, 0.0001],
    noise: 0.0001,
    supply: 8_912_345_678_901_234n,
    weight: 20,
  },
  {
    index: 2,
    symbol: 'USDT',
    mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    decimals: 6,
    pythFeedId: '2b89b9dc8fdf9f34709a5b106b472f0f39bb6ca9ce04b0fd7f2e971688e2e53b',
    expo: -8,
    basePrice: 1,
    waves: [0, 0, 0.0003, 0.0001, 0.0001],
    noise: 0.0001,
    supply: 2_389_123_456_789_012n,
    weight: 5,
  },
  {
    index: 3,
    symbol: 'BONK',
    mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
    decimals: 5,
    pythFeedId: '72b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419',
    expo: -10,
    basePrice: 0.00002,
    waves: [0.45, 0.2, 0.1, 0.05, 0.02],
    noise: 0.008,
    supply: 8_880_000_000_000_000_000n,
    weight: 12,
  },
  {
    index: 4,
    symbol: 'JUP',
    mint: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
    decimals: 6,
    pythFeedId: '0a0408d619e9380abad35060f9192039ed5042fa6f82301d0e48bb52be830996',
    expo: -8,
    basePrice: 0.8,
    waves: [0.35, 0.15, 0.08, 0.04, 0.015],
    noise: 0.006,
    supply: 6_999_999_999_999_999n,
    weight: 8,
  },
  {
    // A memecoin without a Pyth feed: the indexer can only price it with Jupiter's *current*
    // price, so its simulated price is constant (waves and noise 0) — otherwise the ground truth
    // (price at the game's hour) and a current-price source would disagree by construction.
    index: 5,
    symbol: 'WIF',
    mint: 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm',
    decimals: 6,
    pythFeedId: null,
    expo: -8,
    basePrice: 1.85,
    waves: [0, 0, 0, 0, 0],
    noise: 0,
    supply: 998_842_853_024_532n,
    weight: 10,
  },
];

/** The simulated tokens by mint address. */
export const TOKEN_BY_MINT: ReadonlyMap<string, TokenDef> = new Map(TOKENS.map((t) => [t.mint, t]));

/** The BONK token (5 decimals, the whale's u64-overflow test token). */
export const BONK = TOKENS[3]!;
