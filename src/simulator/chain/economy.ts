import { addressBytes, gambaPda, hashedAddress, SEEDS, SYSTEM_PROGRAM } from './addresses.js';
import { GAME_KINDS, type GameKind } from './games.js';
import type { PriceBook } from './prices.js';
import { hash32, pickWeighted, Rng, unit, Zipf } from './rng.js';
import { BONK, TOKENS, type TokenDef } from './tokens.js';

/**
 * The simulated economy's cast and rules, all derived from the seed: platforms (creators),
 * pools, players, LPs, the RNG key, and the protocol's fee parameters.
 */

/** Gamba state's fee (gambaState.gambaFeeBps) and default pool fee, in bps of the wager. */
export const GAMBA_FEE_BPS = 100;
/** Pool fee of pools without a custom one, in bps of the wager. */
export const DEFAULT_POOL_FEE_BPS = 100;
/** Jackpot win probability in µbps (10^-10 units): 10,000,000 = 0.1 % per game with a jackpot fee. */
export const JACKPOT_PROBABILITY_UBPS = 10_000_000n;
/** Denominator of µbps values: 10^10 µbps = probability 1. */
export const UBPS_SCALE = 10_000_000_000n;
/**
 * A pool pays at most this share of its starting USD liquidity in one game (max payout, sizes
 * wagers): 1 % of the SOL pool's $800k lets a rare win reach thousands of dollars.
 */
const MAX_PAYOUT_SHARE = 0.01;
/**
 * The BONK whale (option `whales`, off by default; docs/design.md §8): seven scheduled games of
 * 1.5·10^18 BONK units each, 7 × 1.5·10^18 > 2^63 (docs/design.md §3: sums beyond i64). At BONK's
 * price each is hundreds of millions of USD, which is why the demo chain leaves them out.
 */
export const BONK_WHALE_WAGER = 1_500_000_000_000_000_000n;
/** Number of the BONK whale's scheduled games. */
export const BONK_WHALE_GAMES = 7;
/** The BONK pool's liquidity with the whale on, in units: it must absorb 1.5·10^18-unit wagers (u64 headroom kept). */
const BONK_WHALE_POOL_UNITS = 2_000_000_000_000_000_000n;
/** High rollers: players 0 … 4 play 1 % of the games with ~100× the median wager (docs/simulator.md "Economy"). */
export const HIGH_ROLLER_COUNT = 5;
/** The platform of the BONK whale's scheduled games (player 0). */
export const WHALE_PLATFORM = 1;
const PLATFORM_COUNT = 24;
/** Liquidity providers per pool (their deposits and withdrawals are the PoolChange events). */
export const LPS_PER_POOL = 8;

/** A pool (docs/protocol.md §4): its token, derived accounts, creation segment, starting liquidity and jackpot (smallest token units), fees (bps) and max payout (USD). */
export interface PoolDef {
  index: number;
  token: TokenDef;
  address: string;
  /** Pool authority: the System program for public pools (docs/protocol.md §4), a wallet for private ones. */
  authority: string;
  lpMint: string;
  underlyingAta: string;
  bonusAta: string;
  jackpotAta: string;
  bonusMint: string;
  /** Segment whose first slots hold the pool_initialize transaction and the initial deposit. */
  createdSegment: number;
  initialLiquidity: bigint;
  initialJackpot: bigint;
  customPoolFeeBps: number | null;
  customGambaFeeBps: number | null;
  poolFeeBps: number;
  gambaFeeBps: number;
  maxPayoutUsd: number;
  /** Share among the pools of its token. */
  weight: number;
}

/** A platform (creator): its fees (bps), games, token preferences and active segment range. */
export interface PlatformDef {
  index: number;
  /** The creator address (GameSettled.creator). */
  address: string;
  creatorFeeBps: number;
  jackpotFeeBps: number;
  games: GameKind[];
  /** Weight of each token (index = TokenDef.index); 0 = not offered. */
  tokenWeights: number[];
  startSegment: number;
  /** First segment where it no longer plays (Infinity = never stops). */
  endSegment: number;
}

/** The seeded cast of the chain: Gamba state accounts, pools, platforms, players and LPs, with address and activity lookups. */
export interface Economy {
  seed: number;
  /** The BONK whale's exact-u64 games are scheduled (EconomyOptions.whales). */
  whales: boolean;
  gambaState: string;
  rng: string;
  rngLookupTable: string;
  eventAuthority: string;
  distributionRecipient: string;
  pools: PoolDef[];
  platforms: PlatformDef[];
  playerCount: number;
  platformZipf: Zipf;
  playerZipf: Zipf;
  playerAddress(i: number): string;
  playerPda(i: number): string;
  gamePda(i: number): string;
  escrow(i: number): string;
  lpAddress(pool: number, k: number): string;
  /** Associated token account of `owner` for `mint` (hashed, see addresses.ts). */
  ata(owner: string, mint: string): string;
  homePlatform(player: number): number;
  favoriteToken(player: number): number;
  /** Pools open for games in segment `seg`, by token. */
  poolsFor(token: number, seg: number): PoolDef[];
  platformActive(p: PlatformDef, seg: number): boolean;
}

/** Inputs of `createEconomy`: seed, history length (segments), game rates (per day, per second), start and history start (Unix ms), the price book. */
export interface EconomyOptions {
  seed: number;
  historySegments: number;
  playsPerDay: number;
  liveRate: number;
  startTimeMs: number;
  historyStartMs: number;
  prices: PriceBook;
  /** Schedule the BONK whale's seven 1.5·10^18-unit games and size the BONK pool for them (default off). */
  whales?: boolean;
}

function tokenUnits(usd: number, token: TokenDef, price: number): bigint {
  return BigInt(Math.round((usd / price) * 10 ** token.decimals));
}

/** Derives the economy from the seed: addresses (PDAs through @solana/kit, hence async), pools sized from USD at the pool's creation price, platforms and players. */
export async function createEconomy(o: EconomyOptions): Promise<Economy> {
  const { seed } = o;
  const whales = o.whales === true;
  const H = o.historySegments;
  const r = new Rng(seed, 'economy');

  const platforms: PlatformDef[] = [];
  for (let i = 0; i < PLATFORM_COUNT; i++) {
    const fees = [0, 50, 100, 100, 150, 200, 250, 300, 400, 500];
    const games = GAME_KINDS.filter((g) => g === 'flip' || r.chance(0.55));
    const tokenWeights = TOKENS.map((t) => (t.index === 0 || r.chance(0.7) ? t.weight * (0.3 + 1.4 * r.next()) : 0));
    let startSegment = 0;
    let endSegment = Infinity;
    // The two biggest platforms run all along; others start late or stop (docs/simulator.md).
    if (i >= 2 && H >= 24) {
      if (r.chance(0.25)) startSegment = Math.floor(H * (0.1 + 0.6 * r.next()));
      if (r.chance(0.15)) endSegment = Math.max(startSegment + 1, Math.floor(H * (0.4 + 0.55 * r.next())));
    }
    platforms.push({
      index: i,
      address: hashedAddress(seed, 'creator', i),
      creatorFeeBps: fees[r.int(fees.length)]!,
      // Platform 1 (always on) takes no jackpot fee: it hosts the BONK whale, whose fees would
      // otherwise grow one jackpot to a size that swamps every other player's result.
      jackpotFeeBps: r.chance(0.6) && i !== WHALE_PLATFORM ? 10 : 0,
      games,
      tokenWeights,
      startSegment,
      endSegment,
    });
  }

  const gambaState = await gambaPda(SEEDS.gambaState);
  const eventAuthority = await gambaPda(SEEDS.eventAuthority);
  const privateAuthority = hashedAddress(seed, 'house-pool-authority');

  // Starting liquidity in USD, the size of a Gamba casino's pools: hundreds of thousands of
  // dollars in SOL and USDC, tens of thousands in the memecoins (docs/simulator.md "Economy").
  const specs: { token: TokenDef; usd: number; priv: boolean; weight: number; created: number; custom?: [number, number] }[] = [
    { token: TOKENS[0]!, usd: 800_000, priv: false, weight: 0.75, created: 0 },
    { token: TOKENS[0]!, usd: 150_000, priv: true, weight: 0.25, created: 0, custom: [150, 50] },
    { token: TOKENS[1]!, usd: 400_000, priv: false, weight: 1, created: 0 },
    { token: TOKENS[2]!, usd: 120_000, priv: false, weight: 1, created: 0 },
    { token: BONK, usd: 90_000, priv: false, weight: 1, created: 0 },
    { token: TOKENS[4]!, usd: 70_000, priv: false, weight: 1, created: 0 },
    { token: TOKENS[5]!, usd: 50_000, priv: false, weight: 1, created: Math.floor(H * 0.35) },
  ];
  const pools: PoolDef[] = [];
  for (const [index, s] of specs.entries()) {
    const authority = s.priv ? privateAuthority : SYSTEM_PROGRAM;
    const poolAddr = await gambaPda(SEEDS.pool, addressBytes(s.token.mint), addressBytes(authority));
    const createdMs = o.historyStartMs + s.created * 3_600_000;
    const price = o.prices.usdAtMs(s.token, createdMs);
    const whalePool = whales && s.token === BONK;
    const initialLiquidity = whalePool ? BONK_WHALE_POOL_UNITS : tokenUnits(s.usd, s.token, price);
    const usdValue = whalePool ? (Number(initialLiquidity) / 10 ** BONK.decimals) * price : s.usd;
    const poolFeeBps = s.custom?.[0] ?? DEFAULT_POOL_FEE_BPS;
    const gambaFeeBps = s.custom?.[1] ?? GAMBA_FEE_BPS;
    pools.push({
      index,
      token: s.token,
      address: poolAddr,
      authority,
      lpMint: await gambaPda(SEEDS.lpMint, addressBytes(poolAddr)),
      underlyingAta: await gambaPda(SEEDS.poolAta, addressBytes(poolAddr)),
      bonusAta: await gambaPda(SEEDS.poolBonusAta, addressBytes(poolAddr)),
      jackpotAta: await gambaPda(SEEDS.poolJackpot, addressBytes(poolAddr)),
      bonusMint: await gambaPda(SEEDS.bonusMint, addressBytes(poolAddr)),
      createdSegment: s.created,
      initialLiquidity,
      initialJackpot: tokenUnits(200, s.token, price),
      customPoolFeeBps: s.custom?.[0] ?? null,
      customGambaFeeBps: s.custom?.[1] ?? null,
      poolFeeBps,
      gambaFeeBps,
      maxPayoutUsd: Math.min(usdValue * MAX_PAYOUT_SHARE, 250_000),
      weight: s.weight,
    });
  }

  const playerCount = Math.max(300, Math.min(150_000, Math.round(Math.max(o.playsPerDay, o.liveRate * 1000) * 1.2)));
  const platformZipf = new Zipf(PLATFORM_COUNT, 1.15);
  const playerZipf = new Zipf(playerCount - HIGH_ROLLER_COUNT, 1.05);
  // Derived addresses repeat across transactions (every settle names ~10 of them): memoised by
  // player index / (owner, mint) without building a string key per lookup. Bounded like before.
  const MEMO_LIMIT = 400_000;
  let memoSize = 0;
  const byIndex = { w: new Map<number, string>(), p: new Map<number, string>(), g: new Map<number, string>(), e: new Map<number, string>() };
  const atas = new Map<string, Map<string, string>>();
  const lps = new Map<number, string>();
  const room = () => {
    if (++memoSize <= MEMO_LIMIT) return;
    for (const m of Object.values(byIndex)) m.clear();
    atas.clear();
    lps.clear();
    memoSize = 1;
  };
  const perPlayer = (kind: keyof typeof byIndex, label: string) => (i: number) => {
    const m = byIndex[kind];
    let v = m.get(i);
    if (v === undefined) {
      room();
      v = hashedAddress(seed, label, i);
      m.set(i, v);
    }
    return v;
  };
  const tokenWeightsBase = TOKENS.map((t) => t.weight);

  const economy: Economy = {
    seed,
    whales,
    gambaState,
    rng: hashedAddress(seed, 'rng-provider'),
    rngLookupTable: hashedAddress(seed, 'rng-lookup-table'),
    eventAuthority,
    distributionRecipient: hashedAddress(seed, 'dao-treasury'),
    pools,
    platforms,
    playerCount,
    platformZipf,
    playerZipf,
    playerAddress: perPlayer('w', 'player'),
    playerPda: perPlayer('p', 'player-pda'),
    gamePda: perPlayer('g', 'game-pda'),
    escrow: perPlayer('e', 'escrow'),
    lpAddress: (pool, k) => {
      const key = pool * 1_000_003 + k;
      let v = lps.get(key);
      if (v === undefined) {
        room();
        v = hashedAddress(seed, 'lp', pool, k);
        lps.set(key, v);
      }
      return v;
    },
    ata: (owner, mint) => {
      let m = atas.get(owner);
      if (m === undefined) atas.set(owner, (m = new Map()));
      let v = m.get(mint);
      if (v === undefined) {
        room();
        v = hashedAddress(seed, 'ata', owner, mint);
        m.set(mint, v);
      }
      return v;
    },
    homePlatform: (p) => platformZipf.sample(unit(hash32(seed, 'home', p))),
    favoriteToken: (p) => pickWeighted(tokenWeightsBase, unit(hash32(seed, 'fav', p))),
    poolsFor: (token, seg) => pools.filter((p) => p.token.index === token && seg > p.createdSegment),
    // Live segments (≥ H) see the platforms that had not stopped by the end of the history.
    platformActive: (p, seg) => seg >= p.startSegment && seg < p.endSegment,
  };
  return economy;
}
