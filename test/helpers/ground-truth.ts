import { createCommon } from '../../src/core/index.js';
import { createPriceSources, type PriceSource } from '../../src/prices/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import type { Simulator } from '../../src/simulator/index.js';
import { createOracle, type Oracle } from './bruteforce.js';

/** The simulator's price endpoints as the production chain sees them (Hermes → Jupiter), with its feed ids. */
export function simulatorPrices(sim: Simulator): PriceSource {
  const feeds = Object.fromEntries(sim.mints.filter((m) => m.pythFeedId).map((m) => [m.mint, m.pythFeedId!]));
  return createPriceSources({ common: createCommon(), hermesUrl: sim.hermesUrl, jupiterUrl: sim.jupiterUrl, feeds });
}

export interface Truth {
  events: LocatedEvent[];
  /** USD per whole token at each (mint, hour) the events fall in. */
  priceOf(mint: string, hourMs: number): number | undefined;
  decimalsOf(mint: string): number | undefined;
}

/** The simulator's ground truth (every event up to the confirmed head, or `maxSlot`) as oracle input. */
export async function groundTruth(sim: Simulator, maxSlot?: number): Promise<Truth> {
  const events: LocatedEvent[] = [];
  const prices = new Map<string, number>();
  const decimals = new Map(sim.mints.map((m) => [m.mint, m.decimals]));
  for await (const e of sim.groundTruth(maxSlot === undefined ? {} : { maxSlot })) {
    const { usdPrice, decimals: d, ...located } = e;
    events.push(located as LocatedEvent);
    prices.set(`${e.data.tokenMint}@${Math.floor(e.blockTime / 3600) * 3_600_000}`, usdPrice);
    decimals.set(e.data.tokenMint, d);
  }
  return {
    events,
    priceOf: (mint, hourMs) => prices.get(`${mint}@${hourMs}`),
    decimalsOf: (mint) => decimals.get(mint),
  };
}

export function oracleOf(truth: Truth, nowMs: number): Oracle {
  return createOracle({ events: truth.events, priceOf: truth.priceOf, decimalsOf: truth.decimalsOf, nowMs });
}
