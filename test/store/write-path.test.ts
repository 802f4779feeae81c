import { describe, expect, it } from 'vitest';
import { getBase58Codec } from '@solana/kit';
import type { GameSettled, LocatedEvent } from '../../src/protocol/index.js';
import { setupStore, testDialects } from '../helpers/store.js';

const b58 = getBase58Codec();
let counter = 1;
function addr(): string {
  const bytes = new Uint8Array(32);
  bytes[0] = counter++ & 0xff;
  bytes[1] = (counter >> 8) & 0xff;
  bytes[31] = 7;
  return b58.decode(bytes);
}
function sig(n: number): string {
  const bytes = new Uint8Array(64);
  bytes[0] = n & 0xff;
  bytes[1] = (n >> 8) & 0xff;
  bytes[63] = 9;
  return b58.decode(bytes);
}

const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const whale = addr();
const creator = addr();
const pool = addr();

function game(n: number, over: Partial<GameSettled> = {}, blockTime = 1_750_000_000 + n * 60): LocatedEvent {
  const wager = over.wager ?? 4_000_000_000_000_000_000n;
  return {
    name: 'GameSettled',
    signature: sig(n),
    slot: 300_000_000 + n,
    blockTime,
    eventIndex: 0,
    data: {
      user: whale, pool, tokenMint: BONK, creator,
      creatorFee: wager / 100n, gambaFee: wager / 200n, poolFee: wager / 200n, jackpotFee: 0n,
      underlyingUsed: wager, bonusUsed: 0n, wager, payout: 0n, multiplierBps: 0,
      payoutFromBonusPool: 0n, payoutFromNormalPool: 0n, jackpotProbabilityUbps: 0n, jackpotResult: 0n,
      nonce: BigInt(n), clientSeed: 'seed', resultIndex: 1n, bet: [20000, 0], jackpotPayoutToUser: 0n,
      poolLiquidity: 10n ** 15n + BigInt(n), rngSeed: 'r', nextRngSeedHashed: 'h', metadata: '0:flip',
      ...over,
    },
  };
}

describe.each(testDialects())('store write path (%s)', (dialect) => {
  it('stores each (signature, eventIndex) once, keeps exact sums past 2^63, re-prices, and rebuilds to the same rollups', async () => {
    const store = await setupStore(dialect);
    await store.upsertMints([{ mint: BONK, decimals: 5 }]);
    const events = [game(1), game(2), game(3, { wager: 18_000_000_000_000_000_000n, payout: 36_000_000_000_000_000_000n > 2n ** 64n ? 1n : 5n })];
    const first = await store.writeBatch({ events, signatures: events.map((e) => ({ signature: e.signature, slot: e.slot, blockTime: e.blockTime, failed: false })), state: { 'tail.until': events[2]!.signature } });
    expect(first.gamesInserted).toBe(3);
    const again = await store.writeBatch({ events });
    expect(again).toEqual({ gamesInserted: 0, poolChangesInserted: 0, poolsCreatedInserted: 0, duplicates: 3 });
    expect(await store.getState('tail.until')).toBe(events[2]!.signature);

    const exactVolume = events.reduce((s, e) => s + (e.name === 'GameSettled' ? e.data.wager : 0n), 0n);
    expect(exactVolume > 2n ** 63n).toBe(true);
    const total = await store.queries.total(pool);
    expect(total.volume).toBe(exactVolume);
    expect(total.plays).toBe(3);
    expect(total.usd_volume).toBe(0); // no price yet
    expect((await store.queries.counts()).unpricedGames).toBe(3);

    // A price for the hour of game 1 only re-prices that game.
    const hourMs = Math.floor((events[0]!.blockTime * 1000) / 3_600_000) * 3_600_000;
    const repriced = await store.putPrices([{ mint: BONK, hourMs, usdPrice: 0.00002, source: 'test', publishTime: null }]);
    const inHour = events.filter((e) => Math.floor((e.blockTime * 1000) / 3_600_000) * 3_600_000 === hourMs).length;
    expect(repriced).toBe(inHour);
    const priced = await store.queries.total(pool);
    const expectedUsd = events
      .filter((e) => Math.floor((e.blockTime * 1000) / 3_600_000) * 3_600_000 === hourMs)
      .reduce((s, e) => s + Number(e.name === 'GameSettled' ? e.data.wager : 0n) * (0.00002 / 1e5), 0);
    expect(priced.usd_volume).toBeCloseTo(expectedUsd, 6);

    const before = await store.queries.players({ sortBy: 'token_volume', limit: 10, offset: 0, token: BONK });
    await store.rebuildRollups();
    const after = await store.queries.players({ sortBy: 'token_volume', limit: 10, offset: 0, token: BONK });
    expect(after).toEqual(before);
    expect(after.results[0]!.token_volume).toBe(exactVolume);
  });

  it('maps driver errors of the write path to STORE_UNAVAILABLE (retryable), as for reads (docs/architecture.md convention 5)', async () => {
    const store = await setupStore(dialect);
    await store.close();
    for (const write of [() => store.writeBatch({ events: [game(900)] }), () => store.setState({ k: 'v' }), () => store.putPrices([]), () => store.getState('k')]) {
      await expect(write()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', retryable: true });
    }
  });
});
