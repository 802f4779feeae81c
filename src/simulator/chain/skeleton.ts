import { BONK_WHALE_GAMES, BONK_WHALE_WAGER, HIGH_ROLLER_COUNT, LPS_PER_POOL, WHALE_PLATFORM, type Economy, type PlatformDef, type PoolDef } from './economy.js';
import { VARIANTS_BY_GAME, WHALE_VARIANT, type BetVariant, type GameKind } from './games.js';
import type { PriceBook } from './prices.js';
import { fmix32, pickWeighted, Rng } from './rng.js';
import { isSkippedSlot, slotTimeMs, type Timeline } from './timeline.js';
import { BONK, TOKENS } from './tokens.js';

/**
 * The stateless layer of the chain: everything about a segment's transactions that does not
 * depend on pool state — which transactions exist, their slots, signatures, signers, games,
 * wagers and seeds — drawn from a PRNG keyed by (seed, segment). Amounts that depend on the
 * pools' state (liquidity, LP supply, jackpots, deposit/withdraw sizes) are filled in by the
 * ledger's sequential pass (ledger.ts).
 */

/** Kind of a transaction: one per Gamba instruction family the simulator emits. */
export type TxKind = 'play' | 'settle' | 'poolInit' | 'poolOp' | 'playerInit' | 'playerClaim' | 'playerClose' | 'distributeFees';

/** How a failed transaction fails (meta.err is set, no events count). */
export type FailKind = 'anchor' | 'insufficientFunds' | 'settleRetry';

/** A game's stateless part: player, platform, pool, bet table, wager (smallest units), seeds and the play/settle slots. */
export interface GameSkel {
  /** Position among the segment's games in generation order (nonce = segment base + this). */
  seq: number;
  player: number;
  platform: PlatformDef;
  pool: PoolDef;
  variant: BetVariant;
  wager: bigint;
  clientSeed: string;
  rngSeed: string;
  metadata: string;
  jackpotResult: bigint;
  playSlot: number;
  settleSlot: number;
  playFailed: boolean;
}

/** A transaction's stateless part: slot, 64-byte signature, kind, failure, games, actor, compute budget and the uniforms the ledger's choices use. */
export interface TxSkel {
  /** Generation ordinal inside the segment (embedded in the signature, see `locate`). */
  gen: number;
  slot: number;
  sig: Uint8Array;
  kind: TxKind;
  fail: FailKind | null;
  games: GameSkel[];
  pool: PoolDef | null;
  /** Player index (play, settle, player_*), LP index (pool ops), -1 otherwise. */
  actor: number;
  /** Stateless uniforms for the ledger's state-dependent choices (deposit vs withdraw, size). */
  u1: number;
  u2: number;
  initial: boolean;
  emitCpi: boolean;
  v0: boolean;
  cuPrice: number;
  cuLimit: number;
  programCu: number;
  feePayerLamports: number;
  sigStr: string | undefined;
}

/** A segment's transactions in block order, with its slot range [first, end) and game count. */
export interface SegmentSkel {
  index: number;
  first: number;
  end: number;
  live: boolean;
  /** Transactions in block order: slot, then signature bytes (docs/protocol.md §1: in-slot order). */
  txs: TxSkel[];
  /** gen → position in `txs`. */
  genToPos: Int32Array;
  /** Games generated in this segment (settled or not): advances the nonce counter. */
  gameCount: number;
}

/** Inputs of the skeleton generator: seed, game rates (per day in the history, per second live), timeline, economy and price book. */
export interface SkeletonOptions {
  seed: number;
  playsPerDay: number;
  liveRate: number;
  timeline: Timeline;
  economy: Economy;
  prices: PriceBook;
}

const GAME_POPULARITY: Record<GameKind, number> = { flip: 3, dice: 2, roulette: 1.2, slots: 1.2, plinko: 1, mines: 0.8, crash: 1 };

/** Rates of the other transaction kinds, per game or per day (docs/simulator.md: "others without events"). */
const PLAY_FAIL = 0.035;
const SETTLE_RETRY = 0.004;
const BATCH_SETTLE = 0.03;
const EMIT_CPI = 0.04;
const POOL_OP_FAIL = 0.02;
const OTHER_FAIL = 0.01;

/** Intraday, weekly and yearly-trend activity factors, each with mean ≈ 1 (docs/design.md §8 seasonality). */
export function seasonality(ms: number, historyStartMs: number, historyEndMs: number): number {
  const d = new Date(ms);
  const hour = d.getUTCHours() + d.getUTCMinutes() / 60;
  const daily = 1 + 0.35 * Math.sin((2 * Math.PI * (hour - 9)) / 24);
  const dow = d.getUTCDay();
  const weekly = dow === 0 || dow === 6 ? 1.15 : 0.94;
  const span = historyEndMs - historyStartMs;
  const trend = span > 0 ? 0.85 + 0.3 * ((ms - historyStartMs) / span) : 1;
  return daily * weekly * trend;
}

/** Masks that hide (segment, gen) in the last 8 signature bytes, keyed by the first 56 and the seed. */
export function locationMasks(seed: number, sig: Uint8Array): [number, number] {
  let h = fmix32(seed ^ 0x9e3779b9);
  for (let j = 0; j < 56; j += 4) {
    const w = sig[j]! | (sig[j + 1]! << 8) | (sig[j + 2]! << 16) | (sig[j + 3]! << 24);
    h = fmix32((h ^ w) + 0x6a09e667);
  }
  return [h, fmix32(h ^ 0x5bd1e995)];
}

function writeU32(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = (v >>> 24) & 0xff;
}

/** Reads a little-endian u32 at byte offset `at`. */
export function readU32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

function unskip(slot: number): number {
  return isSkippedSlot(slot) ? slot + 1 : slot;
}

/** Two significant digits, as people type wagers (0.25 SOL, 1,500 BONK). */
function roundWager(units: bigint): bigint {
  const s = units.toString();
  if (s.length <= 2) return units;
  return BigInt(s.slice(0, 2) + '0'.repeat(s.length - 2));
}

/** Indexes of the history segments holding the BONK whale's games (spread evenly; none without history). */
export function whaleSegments(historySegments: number): number[] {
  if (historySegments < 2) return [];
  return Array.from({ length: BONK_WHALE_GAMES }, (_, k) => 1 + Math.floor(((k + 0.5) * (historySegments - 1)) / BONK_WHALE_GAMES));
}

/** A pure function segment index → its skeleton (same options ⇒ same skeleton); callers cache. */
export function createSkeletonGenerator(o: SkeletonOptions): (index: number) => SegmentSkel {
  const { seed, economy: eco, timeline: tl, prices } = o;
  const historyStartMs = slotTimeMs(tl.historyStartSlot);
  const historyEndMs = slotTimeMs(tl.startSlot);
  const whaleSegs = eco.whales ? whaleSegments(tl.historySegments) : [];
  const bonkPool = eco.pools.find((p) => p.token === BONK)!;
  // Per-player preferences are pure functions of the seed; cached because they are hot.
  const home = new Int16Array(eco.playerCount).fill(-1);
  const fav = new Int8Array(eco.playerCount).fill(-1);
  const homeOf = (p: number) => (home[p]! >= 0 ? home[p]! : (home[p] = eco.homePlatform(p)));
  const favOf = (p: number) => (fav[p]! >= 0 ? fav[p]! : (fav[p] = eco.favoriteToken(p)));
  const popularity = new Map(eco.platforms.map((p) => [p, p.games.map((g) => GAME_POPULARITY[g])]));

  function choosePlatform(r: Rng, player: number, seg: number): PlatformDef {
    const h = eco.platforms[homeOf(player)]!;
    if (r.chance(0.7) && eco.platformActive(h, seg)) return h;
    for (let tries = 0; tries < 24; tries++) {
      const p = eco.platforms[eco.platformZipf.sample(r.next())]!;
      if (eco.platformActive(p, seg)) return p;
    }
    return eco.platforms[0]!;
  }

  function chooseVariant(r: Rng, platform: PlatformDef): BetVariant {
    const game = platform.games[pickWeighted(popularity.get(platform)!, r.next())]!;
    const vs = VARIANTS_BY_GAME.get(game)!;
    return vs[r.int(vs.length)]!;
  }

  return function generate(index: number): SegmentSkel {
    const b = tl.bounds(index);
    const r = new Rng(seed, 'segment', index);
    const span = b.end - b.first;
    const midMs = slotTimeMs(b.first + span / 2);
    const days = (span * 400) / 86_400_000;
    // Plays that fail never settle: draw a few more so that settled games average the rate asked.
    const settledMean = b.live ? o.liveRate * ((span * 400) / 1000) : o.playsPerDay * days * seasonality(midMs, historyStartMs, historyEndMs);
    const gameMean = settledMean / (1 - PLAY_FAIL);
    // Pools open for games in this segment, by token (created in an earlier segment).
    const poolsByToken = TOKENS.map((t) => eco.poolsFor(t.index, index));
    const poolWeights = poolsByToken.map((ps) => ps.map((p) => p.weight));
    const priceAtStart = TOKENS.map((t) => prices.usdAtMs(t, slotTimeMs(b.first)));

    const txs: TxSkel[] = [];
    const tx = (kind: TxKind, slot: number, pool: PoolDef | null, actor: number, programCu: number): TxSkel => {
      const t: TxSkel = {
        gen: txs.length,
        slot: unskip(slot),
        sig: EMPTY_SIG,
        kind,
        fail: null,
        games: [],
        pool,
        actor,
        u1: r.next(),
        u2: r.next(),
        initial: false,
        emitCpi: false,
        v0: false,
        cuPrice: r.int(5) === 0 ? 0 : 1000 + r.int(200_000),
        cuLimit: 0,
        programCu,
        feePayerLamports: Math.floor(r.logNormal(2e9, 1.2)) + 10_000_000,
        sigStr: undefined,
      };
      txs.push(t);
      return t;
    };

    // Pools created in this segment: pool_initialize, then the initial deposit by the same LP.
    for (const pool of eco.pools) {
      if (pool.createdSegment !== index) continue;
      const at = b.first + 2 + pool.index * 3;
      tx('poolInit', at, pool, 0, 60_000 + r.int(20_000));
      tx('poolOp', at + 1, pool, 0, 25_000 + r.int(8_000)).initial = true;
    }

    // Games.
    const games: GameSkel[] = [];
    const n = r.poisson(gameMean);
    // Plays start after the segment's pool creations (if any) and leave room for the settle
    // (≤ 3 slots later, +2 for a retried settle, +1 for a skipped slot) inside the segment.
    const lead = eco.pools.some((p) => p.createdSegment === index) ? 40 : 2;
    const makeGame = (player: number, platform: PlatformDef, pool: PoolDef, variant: BetVariant, wager: bigint): void => {
      const playSlot = unskip(b.first + lead + r.int(span - lead - 9));
      const settleSlot = unskip(playSlot + 1 + r.int(3));
      games.push({
        seq: games.length,
        player,
        platform,
        pool,
        variant,
        wager,
        clientSeed: r.chance(0.8) ? r.hex(8) : r.hex(16),
        rngSeed: r.hex(32),
        metadata: variant.metadata,
        jackpotResult: BigInt(Math.floor(r.next() * 1e10)),
        playSlot,
        settleSlot,
        playFailed: false,
      });
    };
    for (let k = 0; k < n; k++) {
      const highRoller = r.chance(0.01);
      const player = highRoller ? r.int(HIGH_ROLLER_COUNT) : HIGH_ROLLER_COUNT + eco.playerZipf.sample(r.next());
      const platform = choosePlatform(r, player, index);
      // Token: often the player's favourite when the platform offers it, else the platform's mix.
      const f = favOf(player);
      let token: number;
      if (platform.tokenWeights[f]! > 0 && poolsByToken[f]!.length > 0 && r.chance(0.5)) token = f;
      else {
        let total = 0;
        for (let t = 0; t < TOKENS.length; t++) if (poolsByToken[t]!.length > 0) total += platform.tokenWeights[t]!;
        if (total === 0) continue;
        let x = r.next() * total;
        token = 0;
        for (let t = 0; t < TOKENS.length; t++) {
          if (poolsByToken[t]!.length === 0) continue;
          token = t;
          x -= platform.tokenWeights[t]!;
          if (x < 0) break;
        }
      }
      const pools = poolsByToken[token]!;
      const pool = pools.length === 1 ? pools[0]! : pools[pickWeighted(poolWeights[token]!, r.next())]!;
      const variant = chooseVariant(r, platform);
      let usd = highRoller ? Math.min(r.logNormal(300, 1.0), 20_000) : Math.min(r.logNormal(3, 1.4), 5_000);
      usd = Math.max(0.05, Math.min(usd, pool.maxPayoutUsd / (variant.maxBps / 10_000)));
      let units = BigInt(Math.max(1, Math.round((usd / priceAtStart[token]!) * 10 ** pool.token.decimals)));
      if (r.chance(0.6)) units = roundWager(units);
      makeGame(player, platform, pool, variant, units);
    }
    // The BONK whale (player 0, option `whales`): 1.5·10^18-unit wagers so its BONK volume passes 2^63.
    for (const s of whaleSegs) {
      if (s === index) makeGame(0, eco.platforms[WHALE_PLATFORM]!, bonkPool, WHALE_VARIANT, BONK_WHALE_WAGER);
    }

    // Transactions of the games: play (player-signed), then the RNG's settle 1–3 slots later.
    const bySlot = [...games].sort((a, b2) => a.playSlot - b2.playSlot || a.seq - b2.seq);
    let pendingBatch: { game: GameSkel; settle: TxSkel } | null = null;
    for (const g of bySlot) {
      // The whale's scheduled games always settle (their sum must pass 2^63).
      const playFail = r.chance(PLAY_FAIL) && g.variant !== WHALE_VARIANT;
      const play = tx('play', g.playSlot, g.pool, g.player, 26_000 + r.int(10_000));
      play.games.push(g);
      play.fail = playFail ? (r.chance(0.6) ? 'insufficientFunds' : 'anchor') : null;
      play.v0 = r.chance(0.4);
      play.cuLimit = r.chance(0.6) ? 250_000 : 0;
      if (playFail) {
        g.playFailed = true;
        pendingBatch = null;
        continue;
      }
      const cpi = r.chance(EMIT_CPI);
      if (r.chance(SETTLE_RETRY)) {
        const failed = tx('settle', g.settleSlot, g.pool, g.player, 30_000 + r.int(10_000));
        failed.games.push(g);
        failed.fail = 'settleRetry';
        failed.v0 = true;
        g.settleSlot = unskip(g.settleSlot + 2);
        const ok = tx('settle', g.settleSlot, g.pool, g.player, 40_000 + r.int(20_000));
        ok.games.push(g);
        ok.v0 = true;
        ok.emitCpi = cpi;
        pendingBatch = null;
        continue;
      }
      // The RNG sometimes settles two games in one transaction (two rng_settle instructions).
      if (pendingBatch && r.chance(BATCH_SETTLE)) {
        const prev = pendingBatch.settle;
        const slot = Math.max(prev.slot, g.settleSlot);
        prev.slot = slot;
        pendingBatch.game.settleSlot = slot;
        g.settleSlot = slot;
        prev.games.push(g);
        prev.programCu += 40_000 + r.int(20_000);
        pendingBatch = null;
        continue;
      }
      const settle = tx('settle', g.settleSlot, g.pool, g.player, 40_000 + r.int(20_000));
      settle.games.push(g);
      settle.v0 = true;
      settle.emitCpi = cpi;
      pendingBatch = { game: g, settle };
    }

    // Pool deposits and withdrawals (direction and size are decided by the ledger from state).
    const openPools = eco.pools.filter((p) => index > p.createdSegment);
    if (openPools.length > 0) {
      // About one LP action per 400 games, and at least a few a day.
      const ops = r.poisson(gameMean / 400 + 3 * days);
      const weights = openPools.map((p) => (p.token === BONK ? 0.5 : 1));
      for (let k = 0; k < ops; k++) {
        const pool = openPools[pickWeighted(weights, r.next())]!;
        const slot = b.first + 10 + r.int(span - 12);
        const actor = 1 + r.int(LPS_PER_POOL - 1);
        const op = tx('poolOp', slot, pool, actor, 25_000 + r.int(8_000));
        op.fail = r.chance(POOL_OP_FAIL) ? 'anchor' : null;
        op.emitCpi = r.chance(EMIT_CPI);
      }
    }

    // Other Gamba instructions without events.
    const others: [TxKind, number][] = [
      ['playerInit', n * 0.03],
      ['playerClaim', n * 0.01],
      ['playerClose', n * 0.003],
      ['distributeFees', 2 * days],
    ];
    for (const [kind, mean] of others) {
      const count = r.poisson(mean);
      for (let k = 0; k < count; k++) {
        const player = HIGH_ROLLER_COUNT + eco.playerZipf.sample(r.next());
        const pool = eco.pools[r.int(eco.pools.length)]!;
        const withPool = kind === 'distributeFees' || kind === 'playerClaim';
        const slot = b.first + 10 + r.int(span - 12);
        const other = tx(kind, slot, withPool ? pool : null, kind === 'distributeFees' ? -1 : player, 8_000 + r.int(12_000));
        other.fail = r.chance(OTHER_FAIL) ? 'anchor' : null;
      }
    }

    // Signatures: 56 random bytes + (segment, gen) masked by a keyed hash of those bytes, so
    // any signature can be located without an index (ledger.locate) — 64 bytes like ed25519's.
    const sigBytes = r.fill(new Uint8Array(64 * txs.length));
    for (const t of txs) {
      const sig = sigBytes.subarray(64 * t.gen, 64 * t.gen + 64);
      const [m1, m2] = locationMasks(seed, sig);
      writeU32(sig, 56, (index ^ m1) >>> 0);
      writeU32(sig, 60, (t.gen ^ m2) >>> 0);
      t.sig = sig;
    }
    txs.sort((a, b2) => a.slot - b2.slot || compareBytes(a.sig, b2.sig));
    const genToPos = new Int32Array(txs.length);
    txs.forEach((t, pos) => (genToPos[t.gen] = pos));
    return { index, first: b.first, end: b.end, live: b.live, txs, genToPos, gameCount: games.length };
  };
}

const EMPTY_SIG = new Uint8Array(64);

/** Orders two 64-byte signatures byte-wise (the in-slot block order, docs/protocol.md §1). */
export function compareSignatures(a: Uint8Array, b: Uint8Array): number {
  return compareBytes(a, b);
}
