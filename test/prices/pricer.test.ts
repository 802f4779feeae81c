import { describe, expect, it } from 'vitest';
import { createCommon, ManualClock } from '../../src/core/index.js';
import { createPricer, type PriceQuote, type PriceSource } from '../../src/prices/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { setupStore } from '../helpers/store.js';

const SOL = 'So11111111111111111111111111111111111111112';
const HOUR = Date.UTC(2025, 5, 1, 14);
const USER = '5YHkKxLwBwSAGkrYEuDLHHEAXxd1pZDjWU4gt348hVxf';
const POOL = '6LNNnp1jJf4pVrEb6oUA15XsWoXBeNXnAeJq8zLEdd6G';
const CREATOR = 'CPZFXCLzYQQuAJwoehUCP7ffqitM6Ug4gEvrsbbYhf92';

function game(signature: string, timeMs: number, wager: bigint): LocatedEvent {
  return {
    name: 'GameSettled',
    signature,
    slot: 1000 + Math.floor(timeMs / 400),
    blockTime: Math.floor(timeMs / 1000),
    eventIndex: 0,
    data: {
      user: USER, pool: POOL, tokenMint: SOL, creator: CREATOR,
      creatorFee: 0n, gambaFee: 0n, poolFee: 0n, jackpotFee: 0n, underlyingUsed: wager, bonusUsed: 0n,
      wager, payout: 0n, multiplierBps: 0, payoutFromBonusPool: 0n, payoutFromNormalPool: 0n,
      jackpotProbabilityUbps: 0n, jackpotResult: 0n, nonce: 1n, clientSeed: 'x', resultIndex: 0n, bet: [20000, 0],
      jackpotPayoutToUser: 0n, poolLiquidity: 10n ** 12n, rngSeed: 's', nextRngSeedHashed: 'h', metadata: '0:flip',
    },
  };
}

/** A source that prices SOL at 100 USD except for hours listed as missing; counts its calls. */
function countingSource(missing: Set<number>) {
  const calls: { mints: string[]; hourMs: number }[] = [];
  const src: PriceSource = {
    name: 'test',
    covers: () => true,
    async priceAt(mints, hourMs) {
      calls.push({ mints, hourMs });
      const out = new Map<string, PriceQuote>();
      if (!missing.has(hourMs)) for (const m of mints) out.set(m, { usdPrice: 100, source: 'test', publishTime: hourMs / 1000 });
      return out;
    },
  };
  return { src, calls };
}

describe('Pricer (prices cached per (mint, hour) in the store)', () => {
  it('stores a price once per (mint, hour) and never asks the sources again for it', async () => {
    const store = await setupStore();
    const { src, calls } = countingSource(new Set());
    const pricer = createPricer({ common: createCommon(), store, source: src });
    const r1 = await pricer.ensure([{ mint: SOL, hourMs: HOUR + 10 }, { mint: SOL, hourMs: HOUR + 99_000 }, { mint: SOL, hourMs: HOUR + 3_600_000 }]);
    expect(r1.added).toBe(2);
    expect(calls.map((c) => c.hourMs)).toEqual([HOUR, HOUR + 3_600_000]);
    expect((await store.getPrices(SOL, HOUR, HOUR + 3_600_000)).map((p) => [p.hourMs, p.usdPrice, p.source])).toEqual([
      [HOUR, 100, 'test'],
      [HOUR + 3_600_000, 100, 'test'],
    ]);
    await pricer.ensure([{ mint: SOL, hourMs: HOUR }]);
    expect(calls).toHaveLength(2);
    // A fresh pricer (a restart) finds the stored row instead of asking.
    const again = countingSource(new Set());
    await createPricer({ common: createCommon(), store, source: again.src }).ensure([{ mint: SOL, hourMs: HOUR }]);
    expect(again.calls).toHaveLength(0);
  });

  it('re-prices games stored un-priced once their hour gets a price', async () => {
    const store = await setupStore();
    await store.upsertMints([{ mint: SOL, decimals: 9 }]);
    await store.writeBatch({ events: [game('sigA', HOUR + 60_000, 2_000_000_000n)] });
    expect((await store.queries.counts()).unpricedGames).toBe(1);
    expect(await store.unpricedHours(10)).toEqual([{ mint: SOL, hourMs: HOUR }]);
    const { src } = countingSource(new Set());
    const r = await createPricer({ common: createCommon(), store, source: src }).ensure(await store.unpricedHours(10));
    expect(r).toEqual({ added: 1, repriced: 1 });
    const counts = await store.queries.counts();
    expect(counts.unpricedGames).toBe(0);
    expect(counts.totalVolumeUsd).toBeCloseTo(200, 9); // 2 SOL × 100 USD
  });

  it('asks again for a missing price only after retryAfterMs', async () => {
    const store = await setupStore();
    const clock = new ManualClock(HOUR + 7_200_000);
    const { src, calls } = countingSource(new Set([HOUR]));
    const pricer = createPricer({ common: createCommon({ clock }), store, source: src, retryAfterMs: 60_000 });
    expect((await pricer.ensure([{ mint: SOL, hourMs: HOUR }])).added).toBe(0);
    await pricer.ensure([{ mint: SOL, hourMs: HOUR }]);
    expect(calls).toHaveLength(1);
    clock.advance(60_000);
    await pricer.ensure([{ mint: SOL, hourMs: HOUR }]);
    expect(calls).toHaveLength(2);
  });
});
