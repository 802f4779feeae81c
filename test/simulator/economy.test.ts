import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GameSettled, PoolChange, PoolCreated } from '../../src/protocol/index.js';
import { collect, startTestSimulator, type GroundTruthEvent, type TestSim } from '../helpers/simulator.js';

/**
 * Economy invariants, checked by brute force over the ground truth of a month: fees are their
 * bps of the wager, outcomes follow the HMAC rule, pool liquidity and LP supply chain exactly
 * from event to event, and players lose in aggregate. The default chain looks like a real
 * casino (per-play USD within the bounds docs/simulator.md documents, for three seeds); the
 * BONK whale's exact-u64 games appear only with `whales: true` (docs/design.md §8).
 */
const BONK_MINT = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
let t: TestSim;
let truth: GroundTruthEvent[];
let games: (GroundTruthEvent & { data: GameSettled })[];

beforeAll(async () => {
  t = await startTestSimulator({ seed: 21, days: 30, playsPerDay: 300 });
  truth = await collect(t.sim.groundTruth());
  games = truth.filter((e): e is GroundTruthEvent & { data: GameSettled } => e.name === 'GameSettled');
});

afterAll(async () => {
  await t.sim.stop();
});

/** The one bps b in [0, max] with floor(wager·b/10000) = fee for every (wager, fee), or null. */
function consistentBps(pairs: [bigint, bigint][], max = 2000): number | null {
  for (let b = 0; b <= max; b++) {
    if (pairs.every(([w, f]) => (w * BigInt(b)) / 10_000n === f)) return b;
  }
  return null;
}

function groupBy<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
}

describe('the simulated economy', () => {
  it('has about playsPerDay × days settled games, on six tokens with their real decimals', () => {
    expect(games.length).toBeGreaterThan(300 * 30 * 0.9);
    expect(games.length).toBeLessThan(300 * 30 * 1.1);
    const decimals = new Map(games.map((g) => [g.data.tokenMint, g.decimals]));
    expect(Object.fromEntries(decimals)).toEqual({
      So11111111111111111111111111111111111111112: 9,
      EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: 6,
      Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB: 6,
      DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263: 5,
      JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN: 6,
      EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm: 6,
    });
  });

  it('charges each fee as floor(wager × bps / 10000) with one bps per creator (creator, jackpot) and per pool (gamba, pool)', () => {
    for (const [creator, gs] of groupBy(games, (g) => g.data.creator)) {
      const creatorBps = consistentBps(gs.map((g) => [g.data.wager, g.data.creatorFee]));
      expect(creatorBps, `creator fee of ${creator}`).not.toBeNull();
      expect(creatorBps!).toBeLessThanOrEqual(500); // creator fee 0–5 %
      expect(consistentBps(gs.map((g) => [g.data.wager, g.data.jackpotFee]))).not.toBeNull();
    }
    for (const [pool, gs] of groupBy(games, (g) => g.data.pool)) {
      expect(consistentBps(gs.map((g) => [g.data.wager, g.data.gambaFee])), `gamba fee of ${pool}`).toBeGreaterThan(0);
      expect(consistentBps(gs.map((g) => [g.data.wager, g.data.poolFee])), `pool fee of ${pool}`).toBeGreaterThan(0);
    }
    expect(new Set(games.map((g) => g.data.creator)).size).toBeGreaterThan(10);
  });

  it('derives each outcome from the revealed seed: resultIndex = HMAC rule, payout = wager × bet[resultIndex]', () => {
    for (const { data: g } of games) {
      const hex = createHmac('sha256', g.rngSeed).update(`${g.clientSeed}-${g.nonce}`).digest('hex');
      const index = parseInt(hex.slice(0, 5), 16) % g.bet.length;
      expect(g.resultIndex).toBe(BigInt(index));
      expect(g.multiplierBps).toBe(g.bet[index]);
      expect(g.payout).toBe((g.wager * BigInt(g.multiplierBps)) / 10_000n);
      expect(g.payoutFromNormalPool + g.payoutFromBonusPool).toBe(g.payout);
      expect(g.underlyingUsed + g.bonusUsed).toBe(g.wager);
      expect(g.metadata).toMatch(/^0:(flip|dice|roulette|slots|plinko|mines|crash):/);
      // Bet tables never favour the player (expected value ≤ 1).
      expect(g.bet.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10_000 * g.bet.length);
      if (g.jackpotPayoutToUser > 0n) expect(g.jackpotResult < g.jackpotProbabilityUbps).toBe(true);
    }
    const nonces = games.map((g) => g.data.nonce);
    expect(new Set(nonces.map(String)).size).toBe(nonces.length);
  });

  it('chains pool liquidity and LP supply exactly across games, deposits and withdrawals', () => {
    const pools = new Map<string, { liquidity: bigint; lp: bigint; created: boolean }>();
    let deposits = 0;
    let withdrawals = 0;
    for (const e of truth) {
      if (e.name === 'PoolCreated') {
        const d = e.data as PoolCreated;
        expect(pools.has(d.pool)).toBe(false);
        pools.set(d.pool, { liquidity: 0n, lp: 0n, created: true });
        continue;
      }
      const st = pools.get(e.data.pool as string);
      expect(st, 'an event on a pool before its PoolCreated').toBeDefined();
      if (e.name === 'GameSettled') {
        const g = e.data as GameSettled;
        expect(g.poolLiquidity).toBe(st!.liquidity + g.wager + g.poolFee - g.payout);
        st!.liquidity = g.poolLiquidity;
      } else {
        const c = e.data as PoolChange;
        if (c.action === 'deposit') {
          deposits++;
          expect(c.postLiquidity).toBe(st!.liquidity + c.amount);
          const minted = c.lpSupply - st!.lp;
          expect(minted).toBe(st!.lp === 0n ? c.amount : (c.amount * st!.lp) / st!.liquidity);
        } else {
          withdrawals++;
          expect(c.postLiquidity).toBe(st!.liquidity - c.amount);
          const burned = st!.lp - c.lpSupply;
          expect(burned).toBeGreaterThan(0n);
          expect(c.amount).toBe((burned * st!.liquidity) / st!.lp);
        }
        st!.liquidity = c.postLiquidity;
        st!.lp = c.lpSupply;
      }
      expect(st!.liquidity).toBeGreaterThan(0n);
      expect(st!.liquidity).toBeLessThan(1n << 64n);
    }
    expect(pools.size).toBe(7);
    expect(deposits).toBeGreaterThan(20);
    expect(withdrawals).toBeGreaterThan(10);
  });

  it('makes players lose in aggregate (expected before fees, realized after fees; realized before fees within chance of expected), with rare jackpots', () => {
    const usd = (amount: bigint, e: GroundTruthEvent) => (Number(amount) / 10 ** e.decimals) * e.usdPrice;
    // The default chain has no BONK whale (its hundreds-of-millions-USD games would dominate any USD sum).
    expect(games.every((e) => e.data.wager < 10n ** 18n)).toBe(true);
    let expectedUsd = 0;
    let variance = 0;
    let outcomeUsd = 0;
    let netUsd = 0;
    let volumeUsd = 0;
    for (const e of games) {
      const g = e.data;
      const mult = g.bet.map((b) => b / 10_000);
      const ev = mult.reduce((a, b) => a + b, 0) / mult.length;
      const w = usd(g.wager, e);
      expectedUsd += w * (ev - 1);
      variance += w * w * (mult.reduce((a, m) => a + m * m, 0) / mult.length - ev * ev);
      outcomeUsd += usd(g.payout - g.wager, e);
      const fees = g.creatorFee + g.gambaFee + g.poolFee + g.jackpotFee;
      netUsd += usd(g.payout + g.jackpotPayoutToUser - g.wager - fees, e);
      volumeUsd += w;
    }
    expect(expectedUsd).toBeLessThan(0);
    // A month of a casino's games has a few wins of thousands of dollars: the realized result
    // before fees is expected ± chance, not always negative. Within 4 standard deviations.
    expect(Math.abs(outcomeUsd - expectedUsd)).toBeLessThan(4 * Math.sqrt(variance));
    expect(netUsd).toBeLessThan(0);
    expect(netUsd / volumeUsd).toBeLessThan(-0.01);
    const jackpots = games.filter((g) => g.data.jackpotPayoutToUser > 0n).length;
    expect(jackpots).toBeGreaterThan(0);
    expect(jackpots / games.length).toBeLessThan(0.005);
  });

  it('with whales: true, has a BONK whale whose BONK volume exceeds 2^63 smallest units (each wager a u64)', async () => {
    const w = await startTestSimulator({ seed: 21, days: 3, playsPerDay: 100, whales: true });
    try {
      const whaleGames = (await collect(w.sim.groundTruth())).filter((e): e is GroundTruthEvent & { data: GameSettled } => e.name === 'GameSettled');
      const bonk = whaleGames.filter((g) => g.data.tokenMint === BONK_MINT);
      const byUser = groupBy(bonk, (g) => g.data.user);
      const volumes = [...byUser.values()].map((gs) => gs.reduce((a, g) => a + g.data.wager, 0n));
      const top = volumes.reduce((a, b) => (a > b ? a : b), 0n);
      expect(top).toBeGreaterThan(1n << 63n);
      for (const g of bonk) expect(g.data.wager).toBeLessThan(1n << 64n);
    } finally {
      await w.sim.stop();
    }
    // Without the flag (this file's month), no BONK player comes near it.
    const bonkVolumes = [...groupBy(games.filter((g) => g.data.tokenMint === BONK_MINT), (g) => g.data.user).values()].map((gs) => gs.reduce((a, g) => a + g.data.wager, 0n));
    expect(bonkVolumes.length).toBeGreaterThan(10);
    for (const v of bonkVolumes) expect(v).toBeLessThan(10n ** 15n);
  });

  it('distributes players and platforms unevenly (Zipf): the top player has many games, most players few', () => {
    const counts = [...groupBy(games, (g) => g.data.user).values()].map((gs) => gs.length).sort((x, y) => y - x);
    const median = counts[Math.floor(counts.length / 2)]!;
    expect(counts[0]!).toBeGreaterThan(20 * median);
    const platforms = [...groupBy(games, (g) => g.data.creator).values()].map((gs) => gs.length).sort((x, y) => y - x);
    expect(platforms[0]!).toBeGreaterThan(5 * platforms[platforms.length - 1]!);
  });
});

/**
 * The per-play USD distribution of the default chain (docs/simulator.md "Economy", documented
 * bounds), from the ground truth: wager × the token's USD price at the game's hour. Three seeds,
 * 60 days × 300 plays a day each (≈ 18,000 games).
 */
describe('the demo economy looks like a real casino', () => {
  const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  it.each([1, 2, 3])('seed %i: per-play USD median 2.50–4, p99 60–300, max ≤ 20,000; wins above 1,000 USD rare', async (seed) => {
    const w = await startTestSimulator({ seed, days: 60, playsPerDay: 300 });
    try {
      const truth = await collect(w.sim.groundTruth());
      const usd = (amount: bigint, e: GroundTruthEvent) => (Number(amount) / 10 ** e.decimals) * e.usdPrice;
      const plays: number[] = [];
      const wins: number[] = [];
      const tokens = new Set<string>();
      for (const e of truth) {
        if (e.name !== 'GameSettled') continue;
        const g = e.data as GameSettled;
        plays.push(usd(g.wager, e));
        wins.push(usd(g.payout + g.jackpotPayoutToUser - g.wager, e));
        tokens.add(g.tokenMint);
      }
      plays.sort((a, b) => a - b);
      expect(plays.length).toBeGreaterThan(15_000);
      expect(quantile(plays, 0.5)).toBeGreaterThanOrEqual(2.5);
      expect(quantile(plays, 0.5)).toBeLessThanOrEqual(4);
      expect(quantile(plays, 0.99)).toBeGreaterThanOrEqual(60);
      expect(quantile(plays, 0.99)).toBeLessThanOrEqual(300);
      expect(plays[plays.length - 1]!).toBeLessThanOrEqual(20_000);
      expect(plays[0]!).toBeGreaterThan(0);
      // Rare wins of thousands: at least one above $1,000, at most one game in a thousand.
      const big = wins.filter((x) => x > 1_000).length;
      expect(big).toBeGreaterThan(0);
      expect(big / wins.length).toBeLessThan(0.001);
      expect(Math.max(...wins)).toBeLessThanOrEqual(20_000);
      expect(tokens.size).toBe(6);
    } finally {
      await w.sim.stop();
    }
  });
});
