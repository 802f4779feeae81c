/**
 * The fixture has what the contract tests rely on (docs/architecture.md "Tests that must exist"): checked
 * here so a change to the generator cannot silently drop a case.
 */
import { describe, expect, it } from 'vitest';
import { getBase58Codec } from '@solana/kit';
import { MS_PER_DAY, dayOf, hourFloor } from '../../src/core/index.js';
import { decodeEventBytes, encodeEventBytes } from '../../src/protocol/index.js';
import { generateFixture } from '../helpers/fixture.js';

const f = generateFixture({ seed: 1 });
const games = f.events.flatMap((e) => (e.name === 'GameSettled' ? [{ ...e.data, time: e.blockTime * 1000, e }] : []));
const changes = f.events.flatMap((e) => (e.name === 'PoolChange' ? [e.data] : []));
const bigJson = (x: unknown): string => JSON.stringify(x, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));

describe('fixture', () => {
  it('is deterministic per seed', () => {
    const again = generateFixture({ seed: 1 });
    expect(bigJson(again.events)).toBe(bigJson(f.events));
    expect(bigJson(again.prices)).toBe(bigJson(f.prices));
    expect(bigJson(generateFixture({ seed: 2 }).events)).not.toBe(bigJson(f.events));
  });

  it('has about the requested size', () => {
    expect(games.length).toBeGreaterThanOrEqual(3000);
    expect(changes.length).toBeGreaterThanOrEqual(300);
  });

  it('encodes as valid Borsh events with 32-byte addresses and 64-byte signatures', () => {
    const b58 = getBase58Codec();
    for (const e of f.events) {
      const { name, data } = e;
      const back = decodeEventBytes(encodeEventBytes({ name, data } as never));
      expect(back.ok).toBe(true);
      if (back.ok) expect(bigJson(back.event.data)).toBe(bigJson(data));
      expect(b58.encode(e.signature).length).toBe(64);
    }
    for (const a of [...f.creators, ...f.users, ...Object.values(f.pools), ...Object.values(f.tokens)]) expect(b58.encode(a).length).toBe(32);
  });

  it('is in chain order: one slot per transaction, slots increase with blockTime', () => {
    for (let i = 1; i < f.events.length; i++) {
      const a = f.events[i - 1]!;
      const b = f.events[i]!;
      if (a.signature === b.signature) {
        expect([b.slot, b.blockTime, b.eventIndex]).toEqual([a.slot, a.blockTime, a.eventIndex + 1]);
      } else {
        expect(b.slot).toBeGreaterThan(a.slot);
        expect(b.blockTime).toBeGreaterThanOrEqual(a.blockTime);
      }
    }
    expect(f.signatures.length).toBe(new Set(f.events.map((e) => e.signature)).size);
    expect(f.events.filter((e) => e.eventIndex === 1).length).toBeGreaterThanOrEqual(3);
  });

  it('follows the game arithmetic: fees and payout floor(wager·bps/10000)', () => {
    for (const g of games) {
      expect(g.payout).toBe((g.wager * BigInt(g.multiplierBps)) / 10_000n);
      expect(g.bet[Number(g.resultIndex)]).toBe(g.multiplierBps);
      expect(g.wager).toBeLessThan(1n << 64n);
    }
    expect(games.some((g) => g.multiplierBps === 10_000)).toBe(true); // zero-profit games
    expect(games.some((g) => g.payout === 0n)).toBe(true);
    const jackpots = games.filter((g) => g.jackpotPayoutToUser > 0n);
    expect(jackpots.length).toBeGreaterThanOrEqual(5);
    expect(jackpots.length).toBeLessThan(games.length / 50);
  });

  it('has tokens with different decimals, an un-priced token, and two pools for one token', () => {
    expect(new Set(f.mints.map((m) => m.decimals)).size).toBeGreaterThanOrEqual(4);
    expect(f.mints.find((m) => m.mint === f.tokens.BONK)!.decimals).toBe(5);
    expect(f.prices.some((p) => p.mint === f.tokens.NOPE)).toBe(false);
    expect(games.filter((g) => g.tokenMint === f.tokens.NOPE).length).toBeGreaterThan(50);
    const solUnpriced = games.filter((g) => g.tokenMint === f.tokens.SOL && f.priceOf(g.tokenMint, hourFloor(g.time)) === undefined);
    expect(solUnpriced.length).toBeGreaterThan(5);
    const solPools = new Set(games.filter((g) => g.tokenMint === f.tokens.SOL).map((g) => g.pool));
    expect(solPools.size).toBe(2);
    expect(new Set(games.map((g) => g.creator)).size).toBe(8);
  });

  it('spreads games over ~400 days, today and the last hour, with exact active_players edges', () => {
    const times = games.map((g) => g.time);
    expect(Math.min(...times)).toBeLessThan(f.nowMs - 395 * MS_PER_DAY);
    expect(times.filter((t) => t < f.nowMs - 300 * MS_PER_DAY).length).toBeGreaterThan(100);
    expect(times.filter((t) => dayOf(t) === dayOf(f.nowMs)).length).toBeGreaterThan(20);
    expect(times.filter((t) => t >= f.nowMs - 3_600_000).length).toBeGreaterThan(20);
    expect(Math.max(...times)).toBe(f.nowMs);
    expect(games.filter((g) => g.user === f.edgeInUser).map((g) => g.time)).toEqual([f.nowMs - 3_600_000]);
    expect(games.filter((g) => g.user === f.edgeOutUser).map((g) => g.time)).toEqual([f.nowMs - 3_601_000]);
    const perSecond = new Map<number, number>();
    for (const t of times) perSecond.set(t, (perSecond.get(t) ?? 0) + 1);
    expect([...perSecond.values()].filter((n) => n > 1).length).toBeGreaterThan(20);
  });

  it('has a BONK whale whose sums overflow i64 (and u64)', () => {
    const w = games.filter((g) => g.user === f.whale && g.tokenMint === f.tokens.BONK);
    const wagers = w.reduce((a, g) => a + g.wager, 0n);
    const profit = w.reduce((a, g) => a + g.payout + g.jackpotPayoutToUser - g.wager, 0n);
    expect(wagers).toBeGreaterThan(1n << 64n);
    expect(profit).toBeLessThan(-(1n << 63n));
    expect(new Set(w.map((g) => g.creator))).toEqual(new Set([f.creators[0]]));
  });

  it('has pool changes with consistent liquidity and LP supply', () => {
    expect(changes.some((c) => c.action === 'withdraw')).toBe(true);
    const lastLp = new Map<string, bigint>();
    for (const c of changes) {
      expect(c.lpSupply).toBeGreaterThan(0n);
      expect(c.postLiquidity).toBeLessThanOrEqual((1n << 64n) - 1n);
      const prev = lastLp.get(c.pool);
      if (prev !== undefined) {
        if (c.action === 'deposit') expect(c.lpSupply).toBeGreaterThanOrEqual(prev);
        else expect(c.lpSupply).toBeLessThanOrEqual(prev);
      }
      lastLp.set(c.pool, c.lpSupply);
    }
    const created = f.events.find((e) => e.name === 'PoolCreated')!;
    const sameTx = f.events.filter((e) => e.signature === created.signature).map((e) => e.name);
    expect(sameTx).toEqual(['PoolCreated', 'PoolChange']);
    expect(created.blockTime * 1000).toBeGreaterThan(f.nowMs - 30 * MS_PER_DAY);
  });
});
