/**
 * A deterministic, realistic Gamba history for contract tests (docs/architecture.md, "Tests that must exist").
 *
 * `generateFixture({ seed, games, poolChanges, nowMs })` returns decoded events as the indexer
 * would hand them to `store.writeBatch`, the token mints (decimals), the hourly USD prices and
 * the wall clock the answers are computed for. Same options → byte-identical output (own PRNG,
 * no Math.random, no Date.now).
 *
 * What is in it, and why (each item exercises a definition of docs/design.md §3–§4):
 * - 5 tokens with different decimals: SOL 9, USDC 6, BONK 5, WBTC 8 (priced) and NOPE 3, which
 *   has NO price at all (its games contribute 0 USD, docs/design.md §6). SOL also misses the price of a
 *   few hours, so a priced token has un-priced games too.
 * - 7 pools: two for SOL, two for USDC (the second one created ~12 days before `nowMs` with a
 *   PoolCreated + first deposit in ONE transaction), one each for the others.
 * - 8 creators and ~250 players, both Zipf-distributed; per-creator fee bps (one creator takes 0).
 * - Real-looking bet tables (flip, dice, roulette, slots, plinko, mines with a 1x outcome):
 *   fees = floor(wager·bps/10000), payout = floor(wager·multiplierBps/10000), rare jackpots.
 * - Games spread over ~400 days (some older than 300 days: outside the charts, inside /stats),
 *   some today, some in the last hour; `active_players` boundary games at exactly now − 3600 s
 *   (inside) and now − 3601 s (outside) by two dedicated players; one game at exactly `nowMs`.
 * - A BONK whale: 5 wagers of ~4e18 (u64, < 2^64): Σ wager > 2^64 > 2^63, Σ profit < −2^63.
 * - Ties: games sharing a blockTime second, and transactions settling 2 games (eventIndex 0/1).
 * - Pool deposits/withdrawals with consistent post_liquidity and lp_supply (LP minted/burned
 *   pro rata to liquidity).
 * Every transaction has its own slot; slots increase with blockTime, so chain order is
 * (slot, eventIndex) without ambiguity.
 */
import { getBase58Codec } from '@solana/kit';
import type { GameSettled, LocatedEvent, PoolChange } from '../../src/protocol/index.js';
import type { HourlyPrice, MintInfo, ProcessedSignature, Store } from '../../src/store/index.js';
import { MS_PER_DAY, MS_PER_HOUR, hourFloor } from '../../src/core/index.js';

export interface FixtureOptions {
  seed?: number;
  /** Approximate number of GameSettled events (the whale and the boundary games come on top). */
  games?: number;
  /** Approximate number of PoolChange events (initial deposits come on top). */
  poolChanges?: number;
  /** Wall clock of the fixture, Unix ms; must be a whole second (blockTime has second resolution). */
  nowMs?: number;
  /** Extra USDC games (pool USDC, creators[2]) at these block times, Unix s: edges a test needs (e.g. local midnights on DST days). */
  extraGameTimesSec?: readonly number[];
}

export type TokenKey = 'SOL' | 'USDC' | 'BONK' | 'WBTC' | 'NOPE';
export type PoolKey = 'SOL_A' | 'SOL_B' | 'USDC' | 'USDC_NEW' | 'BONK' | 'WBTC' | 'NOPE';

export interface Fixture {
  /** Every event, in chain order (slot, eventIndex). */
  events: LocatedEvent[];
  mints: MintInfo[];
  prices: HourlyPrice[];
  nowMs: number;
  /** One entry per transaction signature (none failed). */
  signatures: ProcessedSignature[];
  tokens: Record<TokenKey, string>;
  pools: Record<PoolKey, string>;
  /** Zipf-weighted creators, most active first; the whale plays BONK only on creators[0]. */
  creators: string[];
  /** Zipf players (most active first), then the special ones below. */
  users: string[];
  whale: string;
  /** Plays once at exactly now − 3600 s (inside the active_players window). */
  edgeInUser: string;
  /** Plays once at exactly now − 3601 s (outside it). */
  edgeOutUser: string;
  /** USD per whole token for the UTC hour starting at `hourMs`; undefined when un-priced. */
  priceOf(mint: string, hourMs: number): number | undefined;
  decimalsOf(mint: string): number | undefined;
}

/** 2^64 − 1: the largest u64 (Borsh u64, docs/protocol.md §3). */
const U64_MAX = (1n << 64n) - 1n;
const DEFAULT_NOW_MS = Date.UTC(2026, 0, 15, 13, 27, 41);

// ───────────────────────────── PRNG ─────────────────────────────

/** mulberry32: tiny, fast, good enough for test data; deterministic per seed. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  u32(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  float(): number {
    return this.u32() / 4_294_967_296;
  }
  /** Integer in [lo, hi], inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)]!;
  }
  /** Index drawn with probability proportional to weights[i]. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0);
    let x = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]!;
      if (x < 0) return i;
    }
    return weights.length - 1;
  }
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
  hex(nBytes: number): string {
    return Buffer.from(this.bytes(nBytes)).toString('hex');
  }
  u64(): bigint {
    return (BigInt(this.u32()) << 32n) | BigInt(this.u32());
  }
  /** Uniform bigint in [lo, hi] (tiny modulo bias is irrelevant here). */
  bigBetween(lo: bigint, hi: bigint): bigint {
    const span = hi - lo + 1n;
    const r = (this.u64() << 64n) | this.u64();
    return lo + (r % span);
  }
}

const base58 = getBase58Codec();
function address(rng: Rng): string {
  return base58.decode(rng.bytes(32));
}
function signature(rng: Rng): string {
  return base58.decode(rng.bytes(64));
}

// ───────────────────────────── world ─────────────────────────────

interface TokenSpec {
  key: TokenKey;
  mint?: string;
  decimals: number;
  /** USD per whole token around which the hourly price moves; null = never priced. */
  basePrice: number | null;
  /** Log-uniform wager range, in whole tokens. */
  wager: [number, number];
  weight: number;
}

const TOKEN_SPECS: TokenSpec[] = [
  { key: 'SOL', mint: 'So11111111111111111111111111111111111111112', decimals: 9, basePrice: 150, wager: [0.01, 5], weight: 44 },
  { key: 'USDC', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6, basePrice: 1, wager: [1, 500], weight: 24 },
  { key: 'BONK', mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', decimals: 5, basePrice: 0.00002, wager: [1e5, 1e9], weight: 16 },
  { key: 'WBTC', decimals: 8, basePrice: 60_000, wager: [0.0001, 0.05], weight: 8 },
  { key: 'NOPE', decimals: 3, basePrice: null, wager: [10, 10_000], weight: 8 },
];

/** Bet tables in bps (basisPoints(x) = round(x·10000), docs/protocol.md §4); 10000 = 1x (zero profit). */
const BET_TABLES: { game: string; bet: number[] }[] = [
  { game: 'flip', bet: [20000, 0] },
  { game: 'dice', bet: [0, 0, 0, 0, 0, 59400] },
  { game: 'roulette', bet: [20000, 0, 20000, 0, 0, 0, 30000, 0] },
  { game: 'slots', bet: [0, 0, 0, 0, 0, 0, 0, 5000, 10000, 15000, 30000, 70000] },
  { game: 'plinko', bet: [0, 5000, 10000, 10000, 15000, 30000, 0, 5000] },
  { game: 'mines', bet: [10000, 0, 12500, 0] },
];

/** Deterministic hash of (mint, hour) → [0, 1), so a price never depends on generation order. */
function hash01(text: string, n: number): number {
  let h = 2166136261 ^ n;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
  return ((h ^ (h >>> 15)) >>> 0) / 4_294_967_296;
}

interface Plan {
  timeSec: number;
  order: number;
  kind: 'game' | 'change' | 'created';
  /** For games: how many GameSettled events the transaction carries (1 or 2). */
  count?: number;
  user?: string;
  token?: TokenKey;
  pool?: PoolKey;
  /** Whale games: fixed wager and result. */
  whale?: { wager: bigint; win: boolean };
  /** Forced creator (boundary games). */
  creator?: string;
}

interface PoolState {
  liquidity: bigint;
  lpSupply: bigint;
  gambaFeeBps: number;
  poolFeeBps: number;
}

export function generateFixture(opts: FixtureOptions = {}): Fixture {
  const seed = opts.seed ?? 1;
  const nGames = opts.games ?? 3000;
  const nChanges = opts.poolChanges ?? 300;
  const nowMs = opts.nowMs ?? DEFAULT_NOW_MS;
  if (nowMs % 1000 !== 0) throw new RangeError('nowMs must be a whole second (blockTime is in seconds)');
  const nowSec = nowMs / 1000;
  const rng = new Rng(seed);

  const tokens = {} as Record<TokenKey, string>;
  for (const t of TOKEN_SPECS) tokens[t.key] = t.mint ?? address(rng);
  const spec = (k: TokenKey): TokenSpec => TOKEN_SPECS.find((t) => t.key === k)!;
  const mints: MintInfo[] = TOKEN_SPECS.map((t) => ({ mint: tokens[t.key], decimals: t.decimals }));
  const decimalsByMint = new Map(mints.map((m) => [m.mint, m.decimals]));

  const poolToken: Record<PoolKey, TokenKey> = {
    SOL_A: 'SOL', SOL_B: 'SOL', USDC: 'USDC', USDC_NEW: 'USDC', BONK: 'BONK', WBTC: 'WBTC', NOPE: 'NOPE',
  };
  const poolKeys = Object.keys(poolToken) as PoolKey[];
  const pools = {} as Record<PoolKey, string>;
  for (const k of poolKeys) pools[k] = address(rng);
  const newPoolSec = nowSec - 12 * 86_400 - 3_217;

  const creators = Array.from({ length: 8 }, () => address(rng));
  const creatorWeights = creators.map((_, i) => 1 / (i + 1) ** 1.2);
  const creatorFeeBps = [100, 200, 0, 300, 50, 500, 150, 100];
  const players = Array.from({ length: 250 }, () => address(rng));
  const playerWeights = players.map((_, i) => 1 / (i + 1));
  const lpUsers = [...Array.from({ length: 12 }, () => address(rng)), ...players.slice(0, 5)];
  const whale = address(rng);
  const edgeInUser = address(rng);
  const edgeOutUser = address(rng);

  // ── price model (USD per whole token per UTC hour); only hours with events are stored ──
  const modelPrice = (mint: string, hourMs: number): number | undefined => {
    const t = TOKEN_SPECS.find((s) => tokens[s.key] === mint);
    if (!t || t.basePrice === null) return undefined;
    const hourIdx = hourMs / MS_PER_HOUR;
    // SOL misses ~1 hour in 23: priced token, un-priced games (docs/design.md §6).
    if (t.key === 'SOL' && hash01(mint, hourIdx) < 1 / 23) return undefined;
    const wave = 1 + 0.25 * Math.sin(hourIdx / 500 + t.decimals);
    const noise = 1 + 0.04 * (hash01(mint + ':n', hourIdx) - 0.5);
    return t.basePrice * wave * noise;
  };

  // ── plans (what happens when), then sorted into chain order ──
  const plans: Plan[] = [];
  let order = 0;
  const tokenWeights = TOKEN_SPECS.map((t) => t.weight);
  const startSec = nowSec - 400 * 86_400;
  for (let i = 0; i < nGames; i++) {
    const u = rng.float();
    let timeSec: number;
    // ≤ now − 1 s: the game at exactly `now` (below) is the unique latest transaction.
    if (u < 0.8) timeSec = rng.int(startSec, nowSec - 86_400);
    else if (u < 0.92) timeSec = rng.int(nowSec - 86_400, nowSec - 7_200);
    else timeSec = rng.int(nowSec - 7_200, nowSec - 1);
    const token = TOKEN_SPECS[rng.weighted(tokenWeights)]!.key;
    let pool: PoolKey;
    if (token === 'SOL') pool = rng.float() < 0.7 ? 'SOL_A' : 'SOL_B';
    else if (token === 'USDC') pool = timeSec > newPoolSec && rng.float() < 0.4 ? 'USDC_NEW' : 'USDC';
    else pool = token as PoolKey;
    const count = rng.float() < 0.015 ? 2 : 1;
    plans.push({ timeSec, order: order++, kind: 'game', token, pool, count });
  }
  // Same-second ties: ~3% of games copy the second of another game.
  for (let i = 0; i < Math.round(nGames * 0.03); i++) {
    const a = plans[rng.int(0, nGames - 1)]!;
    const b = plans[rng.int(0, nGames - 1)]!;
    if (b.pool !== 'USDC_NEW' && a.pool !== 'USDC_NEW') b.timeSec = a.timeSec; // the new pool's games stay after its creation
  }
  // The whale: 5 BONK wagers of ~4e18; one win, four losses → Σ wager > 2^64, Σ profit < −2^63.
  const whaleTimes = [nowSec - 380 * 86_400 + 77, nowSec - 200 * 86_400 + 5, nowSec - 45 * 86_400 + 911, nowSec - 3 * 86_400 + 42, nowSec - 5_000];
  whaleTimes.forEach((timeSec, i) => {
    plans.push({
      // All on creators[0], so every other creator's figures are whale-free (small errors stay visible).
      timeSec, order: order++, kind: 'game', count: 1, token: 'BONK', pool: 'BONK', user: whale, creator: creators[0],
      whale: { wager: rng.bigBetween(3_800_000_000_000_000_000n, 4_300_000_000_000_000_000n), win: i === 2 },
    });
  });
  // The whale also plays SOL three times (favorite_token: BONK by plays).
  for (let i = 0; i < 3; i++) plans.push({ timeSec: rng.int(startSec, nowSec - 1), order: order++, kind: 'game', count: 1, token: 'SOL', pool: 'SOL_A', user: whale });
  // active_players boundary (window [now − 60 min, now], docs/design.md §3) and a game at exactly now.
  plans.push({ timeSec: nowSec - 3_600, order: order++, kind: 'game', count: 1, token: 'USDC', pool: 'USDC', user: edgeInUser, creator: creators[1] });
  plans.push({ timeSec: nowSec - 3_601, order: order++, kind: 'game', count: 1, token: 'USDC', pool: 'USDC', user: edgeOutUser, creator: creators[1] });
  plans.push({ timeSec: nowSec, order: order++, kind: 'game', count: 1, token: 'SOL', pool: 'SOL_A' });
  for (const t of opts.extraGameTimesSec ?? []) plans.push({ timeSec: t, order: order++, kind: 'game', count: 1, token: 'USDC', pool: 'USDC', creator: creators[2] });

  // Pool changes: an initial deposit per pool before any game, the new pool's creation, then random ones.
  for (const k of poolKeys) {
    if (k === 'USDC_NEW') continue;
    plans.push({ timeSec: startSec - 5 * 86_400 - rng.int(0, 86_400), order: order++, kind: 'change', pool: k, token: poolToken[k] });
  }
  plans.push({ timeSec: newPoolSec, order: order++, kind: 'created', pool: 'USDC_NEW', token: 'USDC' });
  for (let i = 0; i < nChanges; i++) {
    const pool = rng.pick(poolKeys);
    const from = pool === 'USDC_NEW' ? newPoolSec + 1 : startSec;
    plans.push({ timeSec: rng.int(from, nowSec - 1), order: order++, kind: 'change', pool, token: poolToken[pool] });
  }

  plans.sort((a, b) => a.timeSec - b.timeSec || a.order - b.order);

  // ── simulate in chain order ──
  const poolState = new Map<PoolKey, PoolState>();
  for (const k of poolKeys) {
    poolState.set(k, { liquidity: 0n, lpSupply: 0n, gambaFeeBps: k === 'SOL_B' ? 50 : 100, poolFeeBps: k === 'USDC_NEW' ? 70 : 100 });
  }
  const nonces = new Map<string, bigint>();
  const events: LocatedEvent[] = [];
  const signatures: ProcessedSignature[] = [];
  const jackpotEvery = 160; // ~0.6 % of games win a jackpot
  let gameCounter = 0;
  let slot = 280_000_000;
  let lastSec = plans[0]!.timeSec;

  const units = (k: TokenKey, whole: number): bigint => BigInt(Math.max(1, Math.round(whole * 10 ** spec(k).decimals)));
  const logUniform = (lo: number, hi: number): number => Math.exp(Math.log(lo) + rng.float() * (Math.log(hi) - Math.log(lo)));
  const clamp = (x: bigint): bigint => (x < 0n ? 0n : x > U64_MAX ? U64_MAX : x);

  const makeGame = (plan: Plan): GameSettled => {
    const token = plan.token!;
    const pool = plan.pool!;
    const st = poolState.get(pool)!;
    const user = plan.user ?? players[rng.weighted(playerWeights)]!;
    const ci = plan.creator ? creators.indexOf(plan.creator) : rng.weighted(creatorWeights);
    const creator = creators[ci]!;
    const table = plan.whale ? BET_TABLES[0]! : rng.pick(BET_TABLES);
    let resultIndex = rng.int(0, table.bet.length - 1);
    if (plan.whale) resultIndex = plan.whale.win ? 0 : 1;
    const multiplierBps = table.bet[resultIndex]!;
    const wager = plan.whale?.wager ?? units(token, logUniform(spec(token).wager[0], spec(token).wager[1]));
    const fee = (bps: number): bigint => (wager * BigInt(bps)) / 10_000n;
    const payout = (wager * BigInt(multiplierBps)) / 10_000n;
    gameCounter++;
    const jackpot = !plan.whale && gameCounter % jackpotEvery === 37 ? wager * BigInt(rng.int(50, 500)) : 0n;
    st.liquidity = clamp(st.liquidity + wager - payout - jackpot + fee(st.poolFeeBps));
    const nonce = (nonces.get(user) ?? 0n) + 1n;
    nonces.set(user, nonce);
    return {
      user, pool: pools[pool], tokenMint: tokens[token], creator,
      creatorFee: fee(creatorFeeBps[ci]!), gambaFee: fee(st.gambaFeeBps), poolFee: fee(st.poolFeeBps), jackpotFee: fee(10),
      underlyingUsed: wager, bonusUsed: 0n, wager, payout, multiplierBps,
      payoutFromBonusPool: 0n, payoutFromNormalPool: payout,
      jackpotProbabilityUbps: BigInt(rng.int(1_000, 100_000)), jackpotResult: BigInt(rng.u32()),
      nonce, clientSeed: rng.hex(4), resultIndex: BigInt(resultIndex), bet: table.bet.slice(),
      jackpotPayoutToUser: jackpot, poolLiquidity: st.liquidity,
      rngSeed: rng.hex(16), nextRngSeedHashed: rng.hex(32), metadata: `0:${table.game}:`,
    };
  };

  const makeChange = (plan: Plan, forceDeposit: boolean): PoolChange => {
    const pool = plan.pool!;
    const token = plan.token!;
    const st = poolState.get(pool)!;
    const user = rng.pick(lpUsers);
    const wantDeposit = forceDeposit || st.liquidity === 0n || rng.float() < 0.6;
    let amount: bigint;
    let minted = 0n;
    if (st.liquidity === 0n) {
      // Initial liquidity: big enough to pay the whale's win in the BONK pool.
      amount = pool === 'BONK' ? 12_000_000_000_000_000_000n : units(token, spec(token).wager[1] * 200);
      minted = st.lpSupply === 0n ? amount : st.lpSupply;
    } else {
      amount = (st.liquidity * BigInt(rng.int(100, 2_000))) / 10_000n;
      if (amount === 0n) amount = 1n;
      minted = (amount * st.lpSupply) / st.liquidity;
    }
    // A deposit that would overflow u64 (the BONK pool sits near 2^64 after the whale) becomes a withdrawal.
    const fits = st.liquidity + amount <= U64_MAX && st.lpSupply + minted <= U64_MAX;
    const action: 'deposit' | 'withdraw' = wantDeposit && (fits || st.liquidity === 0n) ? 'deposit' : 'withdraw';
    if (action === 'deposit') {
      st.liquidity += amount;
      st.lpSupply += minted;
    } else {
      amount = (st.liquidity * BigInt(rng.int(100, 2_000))) / 10_000n;
      const burned = (amount * st.lpSupply) / st.liquidity;
      st.liquidity -= amount;
      st.lpSupply -= burned;
    }
    return { user, pool: pools[pool], tokenMint: tokens[token], action, amount, postLiquidity: st.liquidity, lpSupply: st.lpSupply };
  };

  for (const plan of plans) {
    // One transaction per plan, each in its own slot (~2.5 slots per second, strictly increasing).
    slot = Math.max(slot + 1, slot + Math.floor((plan.timeSec - lastSec) * 2.5));
    lastSec = plan.timeSec;
    const sig = signature(rng);
    const located = (ev: LocatedEvent['name'], data: unknown, eventIndex: number): LocatedEvent =>
      ({ name: ev, data, signature: sig, slot, blockTime: plan.timeSec, eventIndex }) as LocatedEvent;
    if (plan.kind === 'game') {
      for (let i = 0; i < (plan.count ?? 1); i++) events.push(located('GameSettled', makeGame(plan), i));
    } else if (plan.kind === 'created') {
      const authority = address(rng);
      events.push(located('PoolCreated', { user: authority, authority, pool: pools[plan.pool!], tokenMint: tokens[plan.token!] }, 0));
      events.push(located('PoolChange', makeChange(plan, true), 1));
    } else {
      events.push(located('PoolChange', makeChange(plan, false), 0));
    }
    signatures.push({ signature: sig, slot, blockTime: plan.timeSec, failed: false });
  }

  // ── prices: every (priced mint, hour) that has an event, minus the deliberately missing ones ──
  const prices: HourlyPrice[] = [];
  const seen = new Set<string>();
  for (const e of events) {
    if (e.name === 'PoolCreated') continue;
    const mint = e.data.tokenMint;
    const hourMs = hourFloor(e.blockTime * 1000);
    const key = `${mint}|${hourMs}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const usdPrice = modelPrice(mint, hourMs);
    if (usdPrice === undefined) continue;
    prices.push({ mint, hourMs, usdPrice, source: 'fixture', publishTime: hourMs / 1000 + 7 });
  }

  // The oracle's price function is exactly what the store is given: the stored prices.
  const priceByKey = new Map(prices.map((p) => [`${p.mint}|${p.hourMs}`, p.usdPrice]));
  const priceOf = (mint: string, hourMs: number): number | undefined => priceByKey.get(`${mint}|${hourMs}`);

  return {
    events, mints, prices, nowMs, signatures, tokens, pools, creators,
    users: [...players, whale, edgeInUser, edgeOutUser], whale, edgeInUser, edgeOutUser,
    priceOf, decimalsOf: (mint) => decimalsByMint.get(mint),
  };
}

/** Convenience for tests: the time (ms) of an event (blockTime is seconds, docs/design.md §3). */
export function eventTimeMs(e: LocatedEvent): number {
  return e.blockTime * 1000;
}

export { MS_PER_DAY, MS_PER_HOUR };

/**
 * How prices reach the store: all before the events (games priced at write time), or the
 * events first and every price afterwards / half of the hours afterwards (the re-pricing path,
 * docs/design.md §6). The answers must not depend on it.
 */
export type LoadOrder = 'prices-first' | 'prices-last' | 'split';

/** Loads a fixture through the store's write path (mints, prices, events in transaction-aligned batches). */
export async function loadFixture(store: Store, f: Fixture, order: LoadOrder = 'prices-first'): Promise<void> {
  await store.upsertMints(f.mints);
  const early = order === 'prices-first' ? f.prices : order === 'split' ? f.prices.filter((_, i) => i % 2 === 0) : [];
  const late = order === 'prices-first' ? [] : order === 'split' ? f.prices.filter((_, i) => i % 2 === 1) : f.prices;
  if (early.length) await store.putPrices(early);
  // Batches of ~400 events, never splitting a transaction (as the indexer writes).
  const bySig = new Map(f.signatures.map((s) => [s.signature, s]));
  let batch: typeof f.events = [];
  const flush = async (): Promise<void> => {
    if (!batch.length) return;
    const sigs = [...new Set(batch.map((e) => e.signature))].map((s) => bySig.get(s)!);
    await store.writeBatch({ events: batch, signatures: sigs });
    batch = [];
  };
  for (let i = 0; i < f.events.length; i++) {
    batch.push(f.events[i]!);
    const next = f.events[i + 1];
    if (batch.length >= 400 && (!next || next.signature !== f.events[i]!.signature)) await flush();
  }
  await flush();
  if (late.length) await store.putPrices(late);
}
