/**
 * Brute-force answers of the house-edge and LP-return operations (docs/design.md §10), computed
 * from the fixture's raw events (GameSettled bet, metadata, amounts; PoolChange liquidity and LP
 * supply) and the contract oracle's per-game USD values — nothing of the store or the API.
 */
import type { LocatedEvent } from '../../src/protocol/index.js';
import type { Oracle, OracleGame } from './bruteforce.js';

export type GroupBy = 'creator' | 'pool' | 'token' | 'player' | 'game';
export interface EdgeFilter { creator?: string; pool?: string; token?: string; user?: string; startTime?: number; endTime?: number }

type Settled = LocatedEvent & { name: 'GameSettled' };

/** The game kind as docs/design.md §10 defines it: `0:<id>:…` with id 1..64 characters, else "unknown". */
export function kindOfMetadata(metadata: string): string {
  const m = /^0:([^:]*)/.exec(metadata);
  return m && m[1]!.length >= 1 && m[1]!.length <= 64 ? m[1]! : 'unknown';
}

/** ⌊wager × Σbet / (10000 × n)⌋ (docs/design.md §10); 0 for an empty bet. */
export function expectedOf(wager: bigint, bet: readonly number[]): bigint {
  if (bet.length === 0) return 0n;
  return (wager * bet.reduce((a, b) => a + BigInt(b), 0n)) / (10000n * BigInt(bet.length));
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const div = (a: bigint | number, b: bigint | number): number | null => (Number(b) === 0 ? null : Number(a) / Number(b));

export interface HouseWorld {
  events: readonly LocatedEvent[];
  oracle: Oracle;
}

function settled(w: HouseWorld): { e: Settled; g: OracleGame }[] {
  const byId = new Map(w.oracle.games.map((g) => [`${g.signature}/${g.eventIndex}`, g]));
  return w.events.filter((e): e is Settled => e.name === 'GameSettled').map((e) => ({ e, g: byId.get(`${e.signature}/${e.eventIndex}`)! }));
}

const inWindow = (t: number, f: EdgeFilter): boolean => (f.startTime === undefined || t >= f.startTime) && (f.endTime === undefined || t < f.endTime);

/** Every /house-edge row for a grouping and filter, in key (then token) order. */
export function houseEdgeAll(w: HouseWorld, groupBy: GroupBy, f: EdgeFilter): Record<string, unknown>[] {
  const groups = new Map<string, { key: string; token: string; games: { e: Settled; g: OracleGame }[] }>();
  for (const x of settled(w)) {
    const d = x.e.data;
    if (f.creator !== undefined && d.creator !== f.creator) continue;
    if (f.pool !== undefined && d.pool !== f.pool) continue;
    if (f.token !== undefined && d.tokenMint !== f.token) continue;
    if (f.user !== undefined && d.user !== f.user) continue;
    if (!inWindow(x.g.time, f)) continue;
    const key = { creator: d.creator, pool: d.pool, token: d.tokenMint, player: d.user, game: kindOfMetadata(d.metadata) }[groupBy];
    const id = `${key}\u0000${d.tokenMint}`;
    let grp = groups.get(id);
    if (!grp) groups.set(id, (grp = { key, token: d.tokenMint, games: [] }));
    grp.games.push(x);
  }
  const rows = [...groups.values()].sort((a, b) => cmp(a.key, b.key) || cmp(a.token, b.token));
  return rows.map(({ key, token, games }) => {
    let wager = 0n, payout = 0n, expected = 0n, jackpot = 0n, wins = 0, jackpots = 0, usdWager = 0, usdProfit = 0;
    for (const { e, g } of games) {
      wager += e.data.wager;
      payout += e.data.payout;
      expected += expectedOf(e.data.wager, e.data.bet);
      jackpot += e.data.jackpotPayoutToUser;
      if (e.data.payout > e.data.wager) wins++;
      if (e.data.jackpotPayoutToUser > 0n) jackpots++;
      usdWager += g.usd_wager;
      usdProfit += g.usd_profit;
    }
    const rtp = div(payout, wager);
    const expectedRtp = div(expected, wager);
    return {
      key, token, plays: games.length, wins, win_rate: div(wins, games.length),
      wager: wager.toString(), payout: payout.toString(), expected_payout: expected.toString(),
      rtp, expected_rtp: expectedRtp,
      edge: rtp === null ? null : 1 - rtp,
      expected_edge: expectedRtp === null ? null : 1 - expectedRtp,
      edge_diff: rtp === null || expectedRtp === null ? null : expectedRtp - rtp,
      jackpots, jackpot: jackpot.toString(), usd_wager: usdWager, usd_profit: usdProfit,
    };
  });
}

/** /house-edge/wins: payout > wager, by multiplier, USD profit or payout desc, then time, signature, event index desc. */
export function biggestWins(w: HouseWorld, sortBy: 'multiplier' | 'usd_profit' | 'payout', f: EdgeFilter, limit: number): Record<string, unknown>[] {
  const xs = settled(w).filter(({ e, g }) => {
    const d = e.data;
    return d.payout > d.wager && (f.creator === undefined || d.creator === f.creator) && (f.pool === undefined || d.pool === f.pool) &&
      (f.token === undefined || d.tokenMint === f.token) && (f.user === undefined || d.user === f.user) && inWindow(g.time, f);
  });
  const key = (x: (typeof xs)[number]) => (sortBy === 'multiplier' ? x.e.data.multiplierBps : x.g.usd_profit);
  const byKey = (a: (typeof xs)[number], b: (typeof xs)[number]) =>
    sortBy === 'payout' ? (b.e.data.payout > a.e.data.payout ? 1 : b.e.data.payout < a.e.data.payout ? -1 : 0) : key(b) - key(a);
  xs.sort((a, b) => byKey(a, b) || b.g.time - a.g.time || cmp(b.e.signature, a.e.signature) || b.e.eventIndex - a.e.eventIndex);
  return xs.slice(0, limit).map(({ e, g }) => ({
    signature: e.signature, time: g.time, user: e.data.user, creator: e.data.creator, token: e.data.tokenMint, pool: e.data.pool,
    game: kindOfMetadata(e.data.metadata), wager: e.data.wager.toString(), payout: e.data.payout.toString(), jackpot: e.data.jackpotPayoutToUser.toString(),
    multiplier: e.data.multiplierBps / 10000, usd_wager: g.usd_wager, usd_profit: g.usd_profit,
  }));
}

/** The pool's LP state after its last event (by time, then slot, signature, event index) with time < t; null before its first pool change. */
export function lpStateBefore(w: HouseWorld, pool: string, t: number): { liquidity: string; lp_supply: string; lp_price: number } | null {
  let liquidity: bigint | null = null;
  let lp: bigint | null = null;
  const evs = w.events
    .filter((e) => (e.name === 'GameSettled' || e.name === 'PoolChange') && e.data.pool === pool && e.blockTime * 1000 < t)
    .sort((a, b) => a.blockTime - b.blockTime || a.slot - b.slot || cmp(a.signature, b.signature) || a.eventIndex - b.eventIndex);
  for (const e of evs) {
    if (e.name === 'GameSettled') liquidity = e.data.poolLiquidity;
    else if (e.name === 'PoolChange') {
      liquidity = e.data.postLiquidity;
      lp = e.data.lpSupply;
    }
  }
  if (lp === null || liquidity === null) return null;
  return { liquidity: liquidity.toString(), lp_supply: lp.toString(), lp_price: lp === 0n ? 1 : Number(liquidity) / Number(lp) };
}

/** /pool/lp-price: one point per bucket from the one holding startTime to the last starting before endTime, each the state before its end. */
export function lpSeries(w: HouseWorld, pool: string, interval: 'hour' | 'day', startTime: number, endTime: number): Record<string, unknown>[] {
  const step = interval === 'hour' ? 3_600_000 : 86_400_000;
  const out: Record<string, unknown>[] = [];
  for (let t = Math.floor(startTime / step) * step; t < endTime; t += step) {
    const s = lpStateBefore(w, pool, t + step);
    if (s) out.push({ time: t, ...s });
  }
  return out;
}

/** /pool/returns from the states and the contract oracle's /pool window (its own brute force). */
export function poolReturns(w: HouseWorld, pool: string, startTime: number, endTime: number): Record<string, unknown> | undefined {
  const p = w.oracle.pool({ pool, startTime, endTime });
  if (!p) return undefined;
  const start = lpStateBefore(w, pool, startTime);
  const end = lpStateBefore(w, pool, endTime);
  const growth = start && end ? end.lp_price / start.lp_price - 1 : null;
  const annual = growth === null ? null : (1 + growth) ** ((365 * 86_400_000) / (endTime - startTime)) - 1;
  return {
    pool, token: p.token, startTime, endTime, start, end,
    lp_price_growth: growth, lp_price_growth_annualized: annual !== null && Number.isFinite(annual) ? annual : null,
    plays: p.plays, volume: p.volume, usd_volume: p.usd_volume, pool_fees: p.pool_fees, pool_fees_usd: p.pool_fees_usd,
    house_pnl: p.house_pnl, house_pnl_usd: p.house_pnl_usd,
  };
}
