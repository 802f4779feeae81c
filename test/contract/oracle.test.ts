/**
 * The oracle itself, pinned on a history small enough to compute by hand (every expected value
 * below is worked out in the comments from docs/design.md §3–§4), plus identities between its answers
 * on the big fixture. If these fail, the oracle — not the store — is wrong.
 */
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from '../../src/core/index.js';
import type { GameSettled, LocatedEvent, PoolChange } from '../../src/protocol/index.js';
import { createOracle, oracleBuckets } from '../helpers/bruteforce.js';
import { generateFixture } from '../helpers/fixture.js';

const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const sec = (ms: number): number => ms / 1000;
// Distinct, valid-looking base58 names; only their order matters here.
const T = 'TokenTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT'; // decimals 2, $3 per whole token
const U = 'TokenUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUU'; // decimals 0, never priced
const P = 'PoolPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP';
const Q = 'PoolQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ';
const u1 = 'User1111111111111111111111111111111111111111';
const u2 = 'User2222222222222222222222222222222222222222';
const c1 = 'Creator1111111111111111111111111111111111111';
const c2 = 'Creator2222222222222222222222222222222222222';

function game(sig: string, slot: number, timeMs: number, d: Partial<GameSettled>): LocatedEvent {
  const data: GameSettled = {
    user: u1, pool: P, tokenMint: T, creator: c1,
    creatorFee: 0n, gambaFee: 0n, poolFee: 0n, jackpotFee: 0n, underlyingUsed: 0n, bonusUsed: 0n,
    wager: 0n, payout: 0n, multiplierBps: 0, payoutFromBonusPool: 0n, payoutFromNormalPool: 0n,
    jackpotProbabilityUbps: 0n, jackpotResult: 0n, nonce: 0n, clientSeed: 'x', resultIndex: 0n, bet: [],
    jackpotPayoutToUser: 0n, poolLiquidity: 0n, rngSeed: 's', nextRngSeedHashed: 'h', metadata: '',
    ...d,
  };
  return { name: 'GameSettled', data, signature: sig, slot, blockTime: sec(timeMs), eventIndex: 0 };
}
function change(sig: string, slot: number, timeMs: number, d: Omit<PoolChange, 'user' | 'pool' | 'tokenMint'>): LocatedEvent {
  return { name: 'PoolChange', data: { user: u2, pool: P, tokenMint: T, ...d }, signature: sig, slot, blockTime: sec(timeMs), eventIndex: 0 };
}

const t1 = NOW - 2 * MS_PER_DAY;
const t23 = NOW - 30 * 60_000;
const t4 = NOW - 400 * MS_PER_DAY;
const events: LocatedEvent[] = [
  // g4: 1x → profit 0; $9 wager; old (400 d).
  game('Sig4', 1, t4, { user: u2, wager: 300n, payout: 300n, multiplierBps: 10000, creatorFee: 3n, gambaFee: 3n, poolFee: 3n, poolLiquidity: 10_000n }),
  change('SigPc1', 2, NOW - 40 * MS_PER_DAY, { action: 'deposit', amount: 10_000n, postLiquidity: 10_000n, lpSupply: 10_000n }),
  // g1: 2x win: profit 1000 ($30); fees 31 → net 969 ($29.07).
  game('Sig1', 3, t1, { wager: 1000n, payout: 2000n, multiplierBps: 20000, creatorFee: 10n, gambaFee: 10n, poolFee: 10n, jackpotFee: 1n, poolLiquidity: 9_500n }),
  change('SigPc2', 4, NOW - 90 * 60_000, { action: 'withdraw', amount: 2_000n, postLiquidity: 9_000n, lpSupply: 8_000n }),
  // g2: un-priced token U: every USD value 0; same second as g3.
  game('SigA', 5, t23, { pool: Q, tokenMint: U, creator: c2, wager: 500n, creatorFee: 5n, gambaFee: 5n, poolFee: 5n }),
  // g3: jackpot 5000: profit 4800 ($144); fees 6 → net 4794 ($143.82).
  game('SigB', 6, t23, { user: u2, wager: 200n, jackpotPayoutToUser: 5000n, creatorFee: 2n, gambaFee: 2n, poolFee: 2n, poolLiquidity: 4_000n }),
];
const oracle = createOracle({
  events,
  // Stored prices of T: its two event hours (the later one is the "latest known" of R9).
  prices: [{ mint: T, hourMs: Math.floor(t4 / MS_PER_HOUR) * MS_PER_HOUR, usdPrice: 3 }, { mint: T, hourMs: Math.floor(t23 / MS_PER_HOUR) * MS_PER_HOUR, usdPrice: 3 }],
  priceOf: (mint) => (mint === T ? 3 : undefined),
  decimalsOf: (mint) => (mint === T ? 2 : mint === U ? 0 : undefined),
  nowMs: NOW,
});
const close = (a: number, b: number): void => expect(Math.abs(a - b)).toBeLessThan(1e-9);

describe('oracle on a hand-computed history', () => {
  it('stats: all, by creator, from startTime', () => {
    const s = oracle.stats();
    expect([s.players, s.plays, s.creators, s.active_players, s.first_bet_time]).toEqual([2, 4, 2, 2, t4]);
    close(s.usd_volume, 45); // 30 + 0 + 6 + 9
    close(s.revenue_usd, 0.45); // (10 + 2 + 3) × 0.03; g2 un-priced
    close(s.player_net_profit_usd, 172.62); // 29.07 + 143.82 − 0.27
    const c = oracle.stats({ creator: c2 });
    expect(c).toEqual({ players: 1, usd_volume: 0, plays: 1, creators: 1, revenue_usd: 0, player_net_profit_usd: 0, active_players: 1, first_bet_time: t23 });
    const w = oracle.stats({ startTime: t1 });
    expect([w.plays, w.players, w.first_bet_time, w.active_players]).toEqual([3, 2, t1, 2]);
    close(w.usd_volume, 36);
    expect(oracle.stats({ startTime: NOW + 1 })).toMatchObject({ plays: 0, players: 0, first_bet_time: 0, active_players: 2 });
  });

  it('player: favorite token tie broken by USD volume; 404 reading', () => {
    const p1 = oracle.player({ user: u1 })!;
    expect(p1).toMatchObject({ total_plays: 2, favorite_token: T, first_play: t1, last_play: t23, biggest_win_usd: 30 });
    close(p1.total_volume_usd, 30);
    close(p1.biggest_loss_usd, 0);
    const p2 = oracle.player({ user: u2 })!;
    expect(p2).toMatchObject({ total_plays: 2, favorite_token: T, first_play: t4, last_play: t23 });
    close(p2.total_profit_usd, 144);
    close(p2.biggest_win_usd, 144);
    expect(oracle.player({ user: u1, creator: c2 })).toMatchObject({ total_plays: 1, favorite_token: U, total_volume_usd: 0 });
    expect(oracle.player({ user: u1, token: T, creator: c2 })).toBeUndefined();
  });

  it('leaderboard: USD order, token sums only for one token', () => {
    const all = oracle.players({ sortBy: 'usd_profit', limit: 10, offset: 0 });
    expect(all.total).toBe(2);
    expect(all.results.map((r) => [r.user, r.token_volume])).toEqual([[u2, null], [u1, null]]);
    const byPool = oracle.leaderboard({ sortBy: 'token_volume', pool: P });
    expect(byPool.map((r) => [r.user, r.token_volume, r.token_profit])).toEqual([[u1, '1000', '1000'], [u2, '500', '4800']]);
    expect(oracle.leaderboard({ sortBy: 'token_profit', token: T }).map((r) => r.user)).toEqual([u2, u1]);
    expect(() => oracle.leaderboard({ sortBy: 'token_profit' })).toThrow();
  });

  it('settled games: orderings with ties and filters', () => {
    const sigs = (q: Parameters<typeof oracle.settledGamesAll>[0]): string[] => oracle.settledGamesAll(q).map((g) => g.signature);
    expect(sigs({ orderBy: 'time', sorting: 'DESC' })).toEqual(['SigB', 'SigA', 'Sig1', 'Sig4']);
    expect(sigs({ orderBy: 'time', sorting: 'ASC' })).toEqual(['Sig4', 'Sig1', 'SigA', 'SigB']);
    expect(sigs({ orderBy: 'multiplier', sorting: 'DESC' })).toEqual(['Sig1', 'Sig4', 'SigB', 'SigA']);
    expect(sigs({ orderBy: 'multiplier', sorting: 'ASC' })).toEqual(['SigA', 'SigB', 'Sig4', 'Sig1']);
    // usd_profit: 144, 30, 0 (g4 at t4), −0 (g2 un-priced, ties with 0 → time).
    expect(sigs({ orderBy: 'usd_profit', sorting: 'DESC' })).toEqual(['SigB', 'Sig1', 'SigA', 'Sig4']);
    expect(sigs({ orderBy: 'time', sorting: 'DESC', onlyJackpots: true })).toEqual(['SigB']);
    expect(sigs({ orderBy: 'time', sorting: 'DESC', user: u2, pool: P })).toEqual(['SigB', 'Sig4']);
    const g3 = oracle.settledGames({ orderBy: 'time', sorting: 'DESC', page: 0, itemsPerPage: 1 });
    expect(g3.total).toBe(4);
    expect(g3.results[0]).toEqual({
      signature: 'SigB', wager: '200', payout: '0', usd_wager: 6, usd_profit: 144, profit: '4800',
      user: u2, creator: c1, token: T, pool: P, jackpot: '5000', multiplier: 0, time: t23,
      // docs/design.md §14: u2 settled Sig4 before (slot 1), whose commitment 'h' is not sha256('s').
      fairness: 'violation', fairness_rule: 'commitment',
    });
    expect(oracle.settledGames({ orderBy: 'time', sorting: 'DESC', page: 1, itemsPerPage: 3 }).results.map((g) => g.signature)).toEqual(['Sig4']);
  });

  it('pools (R9): latest liquidity and LP supply, TVL, fees, house PnL without the jackpot, windows', () => {
    // P: games Sig4 (slot 1), Sig1 (3), SigB (6); changes SigPc1 (2), SigPc2 (4). Latest liquidity
    // SigB's 4000; latest LP SigPc2's 8000 → LP price 0.5; TVL 4000 × $3 / 10^2 = $120.
    // Σ wager 300 + 1000 + 200 = 1500 ($45); Σ poolFee 3 + 10 + 2 = 15 ($0.45);
    // house PnL 1500 − (300 + 2000 + 0) = −800 ($−24): SigB's 5000 jackpot is not the pool's.
    const p = oracle.pool({ pool: P })!;
    expect({ ...p, usd_volume: 0, pool_fees_usd: 0, house_pnl_usd: 0 }).toEqual({
      pool: P, token: T, authority: null, created_time: null, liquidity: '4000', lp_supply: '8000', lp_price: 0.5, tvl_usd: 120,
      plays: 3, volume: '1500', usd_volume: 0, pool_fees: '15', pool_fees_usd: 0, house_pnl: '-800', house_pnl_usd: 0, last_activity: t23,
    });
    close(p.usd_volume, 45);
    close(p.pool_fees_usd, 0.45);
    close(p.house_pnl_usd, -24);
    // Q: one un-priced game (token U): no liquidity reported (0), no LP supply, no price → TVL 0.
    expect(oracle.pool({ pool: Q })).toEqual({
      pool: Q, token: U, authority: null, created_time: null, liquidity: '0', lp_supply: null, lp_price: null, tvl_usd: 0,
      plays: 1, volume: '500', usd_volume: 0, pool_fees: '5', pool_fees_usd: 0, house_pnl: '500', house_pnl_usd: 0, last_activity: t23,
    });
    expect(oracle.pool({ pool: u1 })).toBeUndefined();
    // Windows [start, end): Sig4 alone before t1; Sig1 and SigB from t1; t23 itself excluded as an end.
    expect(oracle.pool({ pool: P, startTime: t4, endTime: t1 })).toMatchObject({ plays: 1, volume: '300', pool_fees: '3', house_pnl: '0', liquidity: '4000' });
    expect(oracle.pool({ pool: P, startTime: t1 })).toMatchObject({ plays: 2, volume: '1200', pool_fees: '12', house_pnl: '-800' });
    expect(oracle.pool({ pool: P, startTime: t1, endTime: t23 })).toMatchObject({ plays: 1, volume: '1000', house_pnl: '-1000' });
    expect(oracle.poolsAll({ sortBy: 'tvl_usd' }).map((x) => x.pool)).toEqual([P, Q]);
    expect(oracle.poolsAll({ sortBy: 'created_time' }).map((x) => x.pool)).toEqual([P, Q]); // both unknown: pool order
    expect(oracle.poolsAll({ sortBy: 'plays', token: U }).map((x) => x.pool)).toEqual([Q]);
  });

  it('platforms, pools, tokens', () => {
    const pl = oracle.platforms({ limit: 10, days: 7, sortBy: 'usd_volume' });
    expect(pl.map((p) => [p.creator, p.plays, p.unique_players, p.last_activity])).toEqual([[c1, 2, 2, t23], [c2, 1, 1, t23]]);
    close(pl[0]!.usd_volume, 36);
    close(pl[0]!.usd_revenue, 0.36);
    expect(oracle.platformsByPool(P)).toEqual([{ creator: c1, volume: '1500', usd_volume: 45, plays: 3 }]);
    expect(oracle.tokens()).toEqual([{ token: T, plays: 3, volume: '1500', usd_volume: 45, decimals: 2 }, { token: U, plays: 1, volume: '500', usd_volume: 0, decimals: 0 }]);
    expect(oracle.tokens({ creator: c2 })).toEqual([{ token: U, plays: 1, volume: '500', usd_volume: 0, decimals: 0 }]);
    expect(oracle.total(P)).toEqual({ pool: P, token: T, volume: '1500', usd_volume: 45, plays: 3 });
    expect(oracle.total(u1)).toEqual({ pool: u1, token: null, volume: '0', usd_volume: 0, plays: 0 });
    expect(oracle.poolChangesAll(P).map((c) => [c.signature, c.action, c.usd_amount])).toEqual([['SigPc2', 'withdraw', 60], ['SigPc1', 'deposit', 300]]);
  });

  it('dense daily series', () => {
    expect(oracle.chartPlays({ days: 3 })).toEqual([
      { date: '2026-01-08', time: Date.UTC(2026, 0, 8), plays: 1, volume_usd: 30 },
      { date: '2026-01-09', time: Date.UTC(2026, 0, 9), plays: 0, volume_usd: 0 },
      { date: '2026-01-10', time: Date.UTC(2026, 0, 10), plays: 2, volume_usd: 6 },
    ]);
    const dao = oracle.chartDaoUsd({ days: 3 });
    close(dao[0]!.dao_fees_usd, 0.3);
    close(dao[2]!.dao_fees_usd, 0.06);
    expect(oracle.daily({ pool: P, days: 2 })).toEqual([
      { date: '2026-01-09', time: Date.UTC(2026, 0, 9), volume: '0', volume_usd: 0, plays: 0 },
      { date: '2026-01-10', time: Date.UTC(2026, 0, 10), volume: '200', volume_usd: 6, plays: 1 },
    ]);
    expect(oracle.chartPlays({ days: 300 })).toHaveLength(300);
  });

  it('series buckets in a zone: local midnights, DST days of 23 and 25 hours, ISO weeks, repeated hours', () => {
    const ny = (q: Parameters<typeof oracleBuckets>[0]) => oracleBuckets({ tz: 'America/New_York', ...q }, Date.UTC(2025, 11, 1)).map((b) => [b.date, b.time, b.from, b.to]);
    // 2025-03-09 starts at 05:00Z (EST) and lasts 23 hours; 2025-03-10 starts at 04:00Z (EDT).
    expect(ny({ startTime: Date.UTC(2025, 2, 9, 5), endTime: Date.UTC(2025, 2, 11, 4) })).toEqual([
      ['2025-03-09', Date.UTC(2025, 2, 9, 5), Date.UTC(2025, 2, 9, 5), Date.UTC(2025, 2, 10, 4)],
      ['2025-03-10', Date.UTC(2025, 2, 10, 4), Date.UTC(2025, 2, 10, 4), Date.UTC(2025, 2, 11, 4)],
    ]);
    // A window cut inside the buckets keeps their nominal start and clips their part.
    expect(ny({ startTime: Date.UTC(2025, 10, 2, 12), endTime: Date.UTC(2025, 10, 3, 6) })).toEqual([
      ['2025-11-02', Date.UTC(2025, 10, 2, 4), Date.UTC(2025, 10, 2, 12), Date.UTC(2025, 10, 3, 5)],
      ['2025-11-03', Date.UTC(2025, 10, 3, 5), Date.UTC(2025, 10, 3, 5), Date.UTC(2025, 10, 3, 6)],
    ]);
    // 01:00–02:00 local happens twice on 2025-11-02: two hourly buckets.
    expect(ny({ interval: 'hour', startTime: Date.UTC(2025, 10, 2, 5), endTime: Date.UTC(2025, 10, 2, 7) }).map((b) => b[1])).toEqual([Date.UTC(2025, 10, 2, 5), Date.UTC(2025, 10, 2, 6)]);
    // ISO weeks start on Monday (2025-11-03 is a Monday).
    expect(ny({ interval: 'week', startTime: Date.UTC(2025, 10, 1), endTime: Date.UTC(2025, 10, 11) }).map((b) => b[0])).toEqual(['2025-10-27', '2025-11-03', '2025-11-10']);
    // Default: the `days` local dates ending with the date of now (2025-11-30 in New York at 2025-12-01T00:00Z).
    expect(ny({ days: 2 }).map((b) => b[0])).toEqual(['2025-11-29', '2025-11-30']);
    // Kolkata is UTC+05:30: its days start at 18:30Z.
    expect(oracleBuckets({ tz: 'Asia/Kolkata', days: 1 }, Date.UTC(2025, 0, 1, 12))[0]!.time).toBe(Date.UTC(2024, 11, 31, 18, 30));
  });

  it('ratio: dense hourly closing state over 30 days', () => {
    const r = oracle.ratio(P);
    expect(r).toHaveLength(721);
    expect(r[0]).toEqual({ time: NOW - 720 * MS_PER_HOUR, pool_liquidity: '10000', lp_supply: '10000', ratio: 1 });
    const at = (h: number) => r.find((p) => p.time === NOW - h * MS_PER_HOUR);
    expect(at(49)!.ratio).toBe(1);
    expect(at(48)!.ratio).toBe(0.95); // g1 at the very start of that hour
    expect(at(2)).toEqual({ time: NOW - 2 * MS_PER_HOUR, pool_liquidity: '9000', lp_supply: '8000', ratio: 1.125 });
    expect(at(1)!.ratio).toBe(0.5);
    expect(at(0)!.ratio).toBe(0.5); // carried into the current hour
    expect(oracle.ratio(Q)).toEqual([]); // never had a PoolChange: no LP supply
  });

  it('counts', () => {
    expect(oracle.counts()).toEqual({ totalGames: 4, totalPoolChanges: 2, totalSignatures: 6, totalVolumeUsd: 45, unpricedGames: 1, latest: { signature: 'SigB', blockTime: sec(t23) } });
  });
});

describe('oracle identities on the fixture', () => {
  const f = generateFixture({ seed: 7, games: 1500, poolChanges: 120 });
  const o = createOracle(f);
  const rel = (a: number, b: number): void => expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(Math.abs(a), Math.abs(b)) + 1e-6);

  it('leaderboard, tokens and creators partition the stats', () => {
    const s = o.stats();
    const lb = o.leaderboard({ sortBy: 'usd_volume' });
    expect(lb.length).toBe(s.players);
    expect(lb.reduce((a, r) => a + r.total_plays, 0)).toBe(s.plays);
    rel(lb.reduce((a, r) => a + r.usd_volume, 0), s.usd_volume);
    const toks = o.tokens();
    expect(toks.reduce((a, t) => a + t.plays, 0)).toBe(s.plays);
    const perCreator = f.creators.map((c) => o.stats({ creator: c }));
    expect(perCreator.reduce((a, c) => a + c.plays, 0)).toBe(s.plays);
    rel(perCreator.reduce((a, c) => a + c.revenue_usd, 0), s.revenue_usd);
  });

  it('charts over 400 days sum to the whole history', () => {
    const s = o.stats();
    const series = o.chartPlays({ days: 402 });
    expect(series.reduce((a, p) => a + p.plays, 0)).toBe(s.plays);
    rel(series.reduce((a, p) => a + p.volume_usd, 0), s.usd_volume);
  });

  it('pool totals equal the sum of their daily series and of their platforms', () => {
    for (const pool of Object.values(f.pools)) {
      const t = o.total(pool);
      const d = o.daily({ pool, days: 402 });
      expect(d.reduce((a, p) => a + BigInt(p.volume), 0n).toString()).toBe(t.volume);
      expect(o.platformsByPool(pool).reduce((a, p) => a + p.plays, 0)).toBe(t.plays);
      // /pool agrees with /total; its windows split the totals exactly; its ratio is /ratio's last.
      const e = o.pool({ pool })!;
      expect([e.plays, e.volume, e.token]).toEqual([t.plays, t.volume, t.token]);
      const cut = f.nowMs - 77 * MS_PER_DAY + 12_345;
      const [before, after] = [o.pool({ pool, endTime: cut })!, o.pool({ pool, startTime: cut })!];
      expect(before.plays + after.plays).toBe(e.plays);
      for (const k of ['volume', 'pool_fees', 'house_pnl'] as const) expect((BigInt(before[k]) + BigInt(after[k])).toString()).toBe(e[k]);
      const r = o.ratio(pool).at(-1);
      if (r) expect([r.pool_liquidity, r.lp_supply]).toEqual([e.liquidity, e.lp_supply]);
    }
  });
});
