import { hash32, unit } from './rng.js';
import { TOKENS, WAVE_PERIODS_H, type TokenDef } from './tokens.js';

/**
 * Hourly USD price paths. price(mint, hour) is constant within a UTC hour and a pure function
 * of (seed, token, hour): a sum of seeded sine waves in log space plus hourly noise, so any hour
 * of any year is computed in O(1) without state. The Hermes and Jupiter endpoints, the ground
 * truth and the wager sizing all read the same function, so they agree exactly.
 */

/** A token's price during one UTC hour, Pyth-style (integer, confidence, exponent) and as USD per whole token. */
export interface HourPrice {
  /** Pyth-style integer price: USD = price × 10^expo. */
  price: bigint;
  conf: bigint;
  expo: number;
  /** USD per whole token = Number(price) / 10^(−expo) (the value the ground truth reports). */
  usd: number;
}

/** Milliseconds in an hour (prices change on UTC hour boundaries). */
export const MS_PER_HOUR = 3_600_000;

/** UTC hour number (hours since the Unix epoch) of a Unix-ms time. */
export function hourOfMs(ms: number): number {
  return Math.floor(ms / MS_PER_HOUR);
}

/** The seeded price paths of every token, hour by hour. */
export interface PriceBook {
  /** Price of `token` during UTC hour number `hour` (hours since the Unix epoch). */
  at(token: TokenDef, hour: number): HourPrice;
  /** USD per whole token at a Unix-ms time. */
  usdAtMs(token: TokenDef, ms: number): number;
}

/** The price book of a seed: pure in (seed, token, hour), memoized per (token, hour). */
export function createPriceBook(seed: number): PriceBook {
  const phases = TOKENS.map((t) => WAVE_PERIODS_H.map((_, k) => unit(hash32(seed, 'phase', t.index, k)) * 2 * Math.PI));
  const cache = new Map<number, HourPrice>();

  function compute(token: TokenDef, hour: number): HourPrice {
    let logP = Math.log(token.basePrice);
    const ph = phases[token.index]!;
    for (let k = 0; k < WAVE_PERIODS_H.length; k++) {
      const a = token.waves[k]!;
      if (a !== 0) logP += a * Math.sin((2 * Math.PI * hour) / WAVE_PERIODS_H[k]! + ph[k]!);
    }
    if (token.noise !== 0) logP += token.noise * (2 * unit(hash32(seed, 'noise', token.index, hour)) - 1);
    const scale = 10 ** -token.expo;
    const price = BigInt(Math.max(1, Math.round(Math.exp(logP) * scale)));
    // Confidence: ~4 bps for volatile tokens, ~1 bp for the constant/stable ones.
    const confBps = token.noise > 0.001 ? 4 : 1;
    const conf = (price * BigInt(confBps)) / 10_000n + 1n;
    return { price, conf, expo: token.expo, usd: Number(price) / scale };
  }

  return {
    at(token, hour) {
      const key = hour * 8 + token.index;
      let p = cache.get(key);
      if (!p) {
        if (cache.size > 200_000) cache.clear();
        p = compute(token, hour);
        cache.set(key, p);
      }
      return p;
    },
    usdAtMs(token, ms) {
      return this.at(token, hourOfMs(ms)).usd;
    },
  };
}
