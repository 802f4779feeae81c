import { createHash, createHmac } from 'node:crypto';
import type { GambaEvent, GameSettled, PoolChange, PoolCreated } from '../../protocol/index.js';
import { fromBase58 } from './addresses.js';
import { JACKPOT_PROBABILITY_UBPS, type Economy, type PoolDef } from './economy.js';
import type { PriceBook } from './prices.js';
import { fmix32, hash32, unit } from './rng.js';
import { toBase58 } from './addresses.js';
import { createSkeletonGenerator, locationMasks, readU32, type GameSkel, type SegmentSkel, type SkeletonOptions, type TxSkel } from './skeleton.js';
import type { Timeline } from './timeline.js';

/**
 * The stateful layer: a sequential pass over the segments, oldest first, carries each pool's
 * liquidity, LP supply and jackpot, and the nonce counter, and keeps one small snapshot per
 * segment. Any segment is then rebuilt exactly from its snapshot (skeleton + state → events),
 * so memory holds snapshots and a few cached segments, never the whole history.
 */

/** A pool's running state in smallest token units: liquidity, LP supply and jackpot. */
export interface PoolState {
  liquidity: bigint;
  lpSupply: bigint;
  jackpot: bigint;
}

/** Chain state at a segment boundary: every pool's state (by pool index) and the nonce counter. */
export interface ChainState {
  pools: PoolState[];
  /** Games generated before this point (the next game's nonce). */
  nonce: bigint;
}

/** A settled game: its skeleton, its GameSettled event, fees (smallest units) and the pool's liquidity and jackpot before it. */
export interface GameOutcome {
  game: GameSkel;
  event: GameSettled;
  /** Total fees paid on top of the wager (creator + gamba + pool + jackpot). */
  fees: bigint;
  liquidityBefore: bigint;
  jackpotBefore: bigint;
  /** The fairness rule this game was rigged to break (fault `rig`, docs/simulator.md "Faults"), null when honest. */
  rigged: RigRule | null;
}

/**
 * The rules a rigged game breaks (docs/design.md "Fairness audit"): `commitment` (the revealed
 * seed is not the one the player's previous settle committed to), `result_index` (resultIndex is
 * not the HMAC's, multiplier and payout follow the wrong index), `multiplier` (multiplierBps is
 * not bet[resultIndex]), `payout` (payout ≠ wager × multiplierBps / 10000).
 */
export type RigRule = 'commitment' | 'result_index' | 'multiplier' | 'payout';

/** A deposit or withdrawal: underlying and LP amounts (smallest units), its PoolChange event and the pool's state before it. */
export interface PoolOpOutcome {
  action: 'deposit' | 'withdraw';
  /** Underlying moved (PoolChange.amount, see docs/simulator.md). */
  amount: bigint;
  /** LP tokens minted or burned. */
  lp: bigint;
  event: PoolChange;
  liquidityBefore: bigint;
  lpBefore: bigint;
}

/** A transaction with its state-dependent outcomes filled in: games, pool operation, pool creation and the events a decoder must find. */
export interface RealTx {
  skel: TxSkel;
  /** Position in the segment (block order). */
  pos: number;
  /** Settle transactions only: one outcome per rng_settle instruction. */
  games: GameOutcome[];
  poolOp: PoolOpOutcome | null;
  created: PoolCreated | null;
  /** The events of the transaction as a decoder must find them; empty when it failed. */
  events: GambaEvent[];
}

/** A segment rebuilt with its events: the skeleton and its transactions in block order. */
export interface RealSegment {
  skel: SegmentSkel;
  txs: RealTx[];
}

/** The chain's history and live segments with their events, rebuilt on demand from per-segment snapshots. */
export interface Ledger {
  timeline: Timeline;
  economy: Economy;
  prices: PriceBook;
  skeleton(index: number): SegmentSkel;
  /** Rebuilds segment `index` with its events (computing earlier snapshots first when needed). */
  realize(index: number): Promise<RealSegment>;
  /** State at the start of segment `index`. */
  stateBefore(index: number): Promise<ChainState>;
  /** Finds a transaction by base58 signature among segments ≤ maxSegment; null when unknown. */
  locate(signature: string, maxSegment: number): { seg: SegmentSkel; tx: TxSkel } | null;
  /** Highest segment whose start state is known (snapshots computed so far). */
  readonly snapshotsThrough: number;
  /**
   * Whether player `player` may have transactions in segment `index` (a Bloom filter built by
   * the first pass: false is certain, true may be a false positive, unknown segments say true).
   */
  mayHavePlayer(index: number, player: number): boolean;
  /** Stops any running pass (pending calls reject). */
  dispose(): void;
}

/**
 * The ledger is built from the same inputs as the skeleton generator it drives, plus `rig`: the
 * share of settled games that are rigged (fault `rig`, decided per game from the seed, stable;
 * part of the chain's identity: 0 or absent = every game fair).
 */
export type LedgerOptions = SkeletonOptions & { rig?: number };

/**
 * The seed the RNG reveals at a player's settle: a pure function of (chain seed, player, the
 * identity of the player's previous successful settle, -1 for the first), so the previous settle
 * can commit to it (`nextRngSeedHashed` = SHA-256 hex of this string, docs/simulator.md "Games").
 */
export function chainSeed(seed: number, player: number, prevId: number): string {
  return createHash('sha256').update(`${seed}:rng:${player}:${prevId}`).digest('hex').slice(0, 32);
}

/** SHA-256 of a seed's text (UTF-8), lowercase hex: the commitment `nextRngSeedHashed` (docs/protocol.md §4). */
export function seedCommitment(rngSeed: string): string {
  return createHash('sha256').update(rngSeed).digest('hex');
}

/** A settle's identity in the seed chain: segment, generation ordinal and event index (stateless). */
function settleId(seg: number, gen: number, eventIndex: number): number {
  return seg * 2 ** 28 + gen * 256 + eventIndex;
}

/** A game's seeds: the revealed seed, the commitment to the player's next seed, and its rig. */
interface GameSeeds {
  rngSeed: string;
  nextRngSeedHashed: string;
  rig: RigRule | null;
}

/** Players' previous settle identities at a segment's start (players sorted ascending). */
interface ChainEntry {
  players: Int32Array;
  prev: Float64Array;
}

/** HMAC-SHA256(key = rngSeed, msg = `${clientSeed}-${nonce}`): first 5 hex chars as an int (docs/protocol.md §4). */
export function resultNumber(rngSeed: string, clientSeed: string, nonce: bigint): number {
  const hex = createHmac('sha256', rngSeed).update(`${clientSeed}-${nonce}`).digest('hex');
  return parseInt(hex.slice(0, 5), 16);
}

/** Fee amounts of a game: floor(wager × bps / 10000) each (fees on top of the wager, docs/protocol.md §4). */
export function gameFees(g: GameSkel): { creatorFee: bigint; gambaFee: bigint; poolFee: bigint; jackpotFee: bigint; total: bigint } {
  const bps = (b: number) => (g.wager * BigInt(b)) / 10_000n;
  const creatorFee = bps(g.platform.creatorFeeBps);
  const gambaFee = bps(g.pool.gambaFeeBps);
  const poolFee = bps(g.pool.poolFeeBps);
  const jackpotFee = bps(g.platform.jackpotFeeBps);
  return { creatorFee, gambaFee, poolFee, jackpotFee, total: creatorFee + gambaFee + poolFee + jackpotFee };
}

const U64_MAX = (1n << 64n) - 1n;
/** Segments kept rebuilt in memory (an hour of 30,000 plays/day is ~2,700 transactions). */
const SKELETON_CACHE = 48;
const REALIZED_CACHE = 16;

function checkU64(v: bigint, what: string): bigint {
  if (v < 0n || v > U64_MAX) throw new RangeError(`simulator invariant broken: ${what} = ${v} is outside u64`);
  return v;
}

function cloneState(s: ChainState): ChainState {
  return { pools: s.pools.map((p) => ({ ...p })), nonce: s.nonce };
}

function bloomHashes(player: number, bits: number): [number, number] {
  return [fmix32(player * 2 + 1) % bits, fmix32(player * 2 + 0x9e3779b9) % bits];
}

/** LRU by insertion order of a Map. */
function lruGet<K, V>(m: Map<K, V>, k: K): V | undefined {
  const v = m.get(k);
  if (v !== undefined) {
    m.delete(k);
    m.set(k, v);
  }
  return v;
}

function lruSet<K, V>(m: Map<K, V>, k: K, v: V, cap: number): void {
  m.set(k, v);
  if (m.size > cap) m.delete(m.keys().next().value as K);
}

/** Creates the ledger; segment snapshots are computed on demand (`stateBefore`, `realize`), none at creation. */
export function createLedger(o: LedgerOptions): Ledger {
  const eco = o.economy;
  const generate = createSkeletonGenerator(o);
  const skeletons = new Map<number, SegmentSkel>();
  const realized = new Map<number, RealSegment>();
  const inFlight = new Map<number, Promise<RealSegment>>();
  const snapshots: ChainState[] = [{ pools: eco.pools.map(() => ({ liquidity: 0n, lpSupply: 0n, jackpot: 0n })), nonce: 0n }];

  function skeleton(index: number): SegmentSkel {
    let s = lruGet(skeletons, index);
    if (!s) {
      s = generate(index);
      lruSet(skeletons, index, s, SKELETON_CACHE);
    }
    return s;
  }

  const rigShare = o.rig ?? 0;

  /** The player's settles of a segment in the indexer's order: slot, base58 signature, event index (docs/design.md "Fairness audit"). */
  function chainOrder(skel: SegmentSkel): { g: GameSkel; id: number }[] {
    const out: { g: GameSkel; id: number; tx: TxSkel; i: number }[] = [];
    for (const tx of skel.txs) {
      if (tx.kind !== 'settle' || tx.fail !== null) continue;
      for (let i = 0; i < tx.games.length; i++) out.push({ g: tx.games[i]!, id: settleId(skel.index, tx.gen, i), tx, i });
    }
    out.sort((a, b) => {
      if (a.tx.slot !== b.tx.slot) return a.tx.slot - b.tx.slot;
      if (a.tx === b.tx) return a.i - b.i;
      const sa = (a.tx.sigStr ??= toBase58(a.tx.sig));
      const sb = (b.tx.sigStr ??= toBase58(b.tx.sig));
      return sa < sb ? -1 : sa > sb ? 1 : 0;
    });
    return out;
  }

  /** Which rule (if any) a game is rigged to break; `hasPrev`: the player settled before. */
  function rigOf(g: GameSkel, id: number, hasPrev: boolean): RigRule | null {
    if (rigShare <= 0 || unit(hash32(o.seed, 'rig', id)) >= rigShare) return null;
    const bet = g.variant.bet;
    const varied = bet.some((m) => m !== bet[0]);
    const kinds: RigRule[] = ['payout'];
    if (hasPrev) kinds.push('commitment');
    if (varied) kinds.push('result_index', 'multiplier');
    return kinds[hash32(o.seed, 'rig-kind', id) % kinds.length]!;
  }

  /**
   * The seeds of a segment's settled games (by seq), from the players' previous settles at its
   * start (`prevAt`, -1 = none) — updated in place to the identities at its end when `advanceTo` is given.
   */
  function segmentSeeds(skel: SegmentSkel, prevAt: (player: number) => number, advanceTo?: Map<number, number>): Map<number, GameSeeds> {
    const seeds = new Map<number, GameSeeds>();
    const local = new Map<number, number>();
    for (const { g, id } of chainOrder(skel)) {
      const prev = local.has(g.player) ? local.get(g.player)! : prevAt(g.player);
      local.set(g.player, id);
      const rig = rigOf(g, id, prev >= 0);
      const honest = chainSeed(o.seed, g.player, prev);
      seeds.set(g.seq, {
        rngSeed: rig === 'commitment' ? createHash('sha256').update(`${o.seed}:rigged:${id}`).digest('hex').slice(0, 32) : honest,
        nextRngSeedHashed: seedCommitment(chainSeed(o.seed, g.player, id)),
        rig,
      });
    }
    if (advanceTo) for (const [p, id] of local) advanceTo.set(p, id);
    return seeds;
  }

  /** Result index, multiplier and payout of a game under its (possibly rigged) seeds. */
  function outcome(g: GameSkel, nonce: bigint, s: GameSeeds | undefined): { resultIndex: number; multiplierBps: number; payout: bigint } {
    const bet = g.variant.bet;
    const honest = resultNumber(s?.rngSeed ?? g.rngSeed, g.clientSeed, nonce) % bet.length;
    let resultIndex = honest;
    let multiplierBps = bet[honest]!;
    if (s?.rig === 'result_index' || s?.rig === 'multiplier') {
      let j = (honest + 1) % bet.length;
      while (bet[j] === bet[honest]) j = (j + 1) % bet.length;
      multiplierBps = bet[j]!;
      if (s.rig === 'result_index') resultIndex = j;
    }
    let payout = (g.wager * BigInt(multiplierBps)) / 10_000n;
    if (s?.rig === 'payout') payout += payout / 100n + 2n;
    return { resultIndex, multiplierBps, payout };
  }

  function settle(g: GameSkel, nonce: bigint, st: PoolState, commit: boolean, s: GameSeeds | undefined): GameOutcome {
    const fees = gameFees(g);
    const bet = g.variant.bet;
    const { resultIndex, multiplierBps, payout } = outcome(g, nonce, s);
    const liquidityBefore = st.liquidity;
    const jackpotBefore = st.jackpot;
    // The escrowed wager and the pool fee enter the pool; the payout leaves it (docs/design.md §3 names).
    const liquidity = checkU64(st.liquidity + g.wager + fees.poolFee - payout, 'pool liquidity');
    const jackpotOn = g.platform.jackpotFeeBps > 0;
    let jackpot = st.jackpot + fees.jackpotFee;
    const won = jackpotOn && g.jackpotResult < JACKPOT_PROBABILITY_UBPS ? jackpot : 0n;
    jackpot -= won;
    if (commit) {
      st.liquidity = liquidity;
      st.jackpot = jackpot;
    }
    const event: GameSettled = {
      user: eco.playerAddress(g.player),
      pool: g.pool.address,
      tokenMint: g.pool.token.mint,
      creator: g.platform.address,
      creatorFee: fees.creatorFee,
      gambaFee: fees.gambaFee,
      poolFee: fees.poolFee,
      jackpotFee: fees.jackpotFee,
      underlyingUsed: g.wager,
      bonusUsed: 0n,
      wager: g.wager,
      payout,
      multiplierBps,
      payoutFromBonusPool: 0n,
      payoutFromNormalPool: payout,
      jackpotProbabilityUbps: jackpotOn ? JACKPOT_PROBABILITY_UBPS : 0n,
      jackpotResult: g.jackpotResult,
      nonce,
      clientSeed: g.clientSeed,
      resultIndex: BigInt(resultIndex),
      bet: [...bet],
      jackpotPayoutToUser: won,
      poolLiquidity: liquidity,
      // A failed settle reveals nothing that counts: its (never emitted) event keeps the skeleton's seed.
      rngSeed: s?.rngSeed ?? g.rngSeed,
      // sha256 (hex) of the seed the RNG will reveal at this player's next settle (docs/protocol.md §4).
      nextRngSeedHashed: s?.nextRngSeedHashed ?? seedCommitment(g.rngSeed),
      metadata: g.metadata,
    };
    return { game: g, event, fees: fees.total, liquidityBefore, jackpotBefore, rigged: s?.rig ?? null };
  }

  function poolOp(tx: TxSkel, pool: PoolDef, st: PoolState, commit: boolean): PoolOpOutcome {
    const L = st.liquidity;
    const LP = st.lpSupply;
    let action: 'deposit' | 'withdraw';
    let amount: bigint;
    let lp: bigint;
    if (tx.initial) {
      action = 'deposit';
      amount = pool.initialLiquidity;
    } else {
      // Mean-reverting LPs: below the starting liquidity deposits dominate, above it withdrawals.
      const ratio = Number(L) / Number(pool.initialLiquidity);
      const pDeposit = Math.min(0.9, Math.max(0.1, 0.5 + 0.9 * (1 - ratio)));
      action = tx.u1 < pDeposit || LP === 0n ? 'deposit' : 'withdraw';
      amount = 0n;
    }
    // Size: 0.2 %–3 % of the pool (log-uniform), in underlying for deposits, in LP for withdrawals.
    const fracPpm = BigInt(Math.round(2_000 * Math.pow(15, tx.u2)));
    if (action === 'deposit') {
      if (!tx.initial) amount = (L * fracPpm) / 1_000_000n || 1n;
      lp = LP === 0n || L === 0n ? amount : (amount * LP) / L;
    } else {
      lp = (LP * fracPpm) / 1_000_000n;
      if (lp === 0n) lp = 1n;
      amount = (lp * L) / LP;
    }
    const liquidity = checkU64(action === 'deposit' ? L + amount : L - amount, 'pool liquidity');
    const lpSupply = checkU64(action === 'deposit' ? LP + lp : LP - lp, 'LP supply');
    if (commit) {
      st.liquidity = liquidity;
      st.lpSupply = lpSupply;
    }
    const user = eco.lpAddress(pool.index, tx.actor);
    return {
      action,
      amount,
      lp,
      liquidityBefore: L,
      lpBefore: LP,
      event: { user, pool: pool.address, tokenMint: pool.token.mint, action, amount, postLiquidity: liquidity, lpSupply },
    };
  }

  /**
   * The first pass only needs each segment's end state: the same arithmetic as `settle` /
   * `poolOp` without building events (no allocation per game beyond the HMAC).
   */
  function advance(skel: SegmentSkel, start: ChainState, seeds: Map<number, GameSeeds>): ChainState {
    const st = cloneState(start);
    for (const tx of skel.txs) {
      if (tx.fail !== null) continue;
      if (tx.kind === 'settle') {
        for (const g of tx.games) {
          const p = st.pools[g.pool.index]!;
          const nonce = start.nonce + BigInt(g.seq);
          const { payout } = outcome(g, nonce, seeds.get(g.seq));
          const poolFee = (g.wager * BigInt(g.pool.poolFeeBps)) / 10_000n;
          p.liquidity = checkU64(p.liquidity + g.wager + poolFee - payout, 'pool liquidity');
          if (g.platform.jackpotFeeBps > 0) {
            p.jackpot += (g.wager * BigInt(g.platform.jackpotFeeBps)) / 10_000n;
            if (g.jackpotResult < JACKPOT_PROBABILITY_UBPS) p.jackpot = 0n;
          }
        }
      } else if (tx.kind === 'poolOp') {
        poolOp(tx, tx.pool!, st.pools[tx.pool!.index]!, true);
      } else if (tx.kind === 'poolInit') {
        st.pools[tx.pool!.index]!.jackpot = tx.pool!.initialJackpot;
      }
    }
    st.nonce = start.nonce + BigInt(skel.gameCount);
    return st;
  }

  /** Applies one segment to a copy of `start`; returns the realized transactions and the end state. */
  function apply(skel: SegmentSkel, start: ChainState, seeds: Map<number, GameSeeds>): { seg: RealSegment; end: ChainState } {
    const st = cloneState(start);
    const txs: RealTx[] = [];
    for (let pos = 0; pos < skel.txs.length; pos++) {
      const tx = skel.txs[pos]!;
      const ok = tx.fail === null;
      const real: RealTx = { skel: tx, pos, games: [], poolOp: null, created: null, events: [] };
      if (tx.kind === 'settle') {
        for (const g of tx.games) {
          const out = settle(g, start.nonce + BigInt(g.seq), st.pools[g.pool.index]!, ok, ok ? seeds.get(g.seq) : undefined);
          real.games.push(out);
          if (ok) real.events.push({ name: 'GameSettled', data: out.event });
        }
      } else if (tx.kind === 'poolOp') {
        const pool = tx.pool!;
        real.poolOp = poolOp(tx, pool, st.pools[pool.index]!, ok);
        if (ok) real.events.push({ name: 'PoolChange', data: real.poolOp.event });
      } else if (tx.kind === 'poolInit') {
        const pool = tx.pool!;
        real.created = { user: eco.lpAddress(pool.index, 0), authority: pool.authority, pool: pool.address, tokenMint: pool.token.mint };
        if (ok) {
          st.pools[pool.index]!.jackpot = pool.initialJackpot;
          real.events.push({ name: 'PoolCreated', data: real.created });
        }
      }
      txs.push(real);
    }
    st.nonce = start.nonce + BigInt(skel.gameCount);
    return { seg: { skel, txs }, end: st };
  }

  // Per-segment Bloom filters of the players present, so that getSignaturesForAddress for one
  // player skips most segments without rebuilding them (8 bits per player, 2 hashes: ~5 % false hits).
  const playerBlooms: Uint32Array[] = [];
  function playerBloom(skel: SegmentSkel): Uint32Array {
    let n = 0;
    for (const t of skel.txs) if (t.actor >= 0 && t.kind !== 'poolOp' && t.kind !== 'poolInit') n += Math.max(1, t.games.length);
    const bloom = new Uint32Array(Math.max(2, Math.ceil((n * 8) / 32)));
    const bits = bloom.length * 32;
    const add = (player: number) => {
      const [h1, h2] = bloomHashes(player, bits);
      bloom[h1 >>> 5]! |= 1 << (h1 & 31);
      bloom[h2 >>> 5]! |= 1 << (h2 & 31);
    };
    for (const t of skel.txs) {
      if (t.kind === 'poolOp' || t.kind === 'poolInit') continue;
      for (const g of t.games) add(g.player);
      if (t.actor >= 0) add(t.actor);
    }
    return bloom;
  }

  // The seed chain: each player's last successful settle at the pass's frontier, and per
  // segment the previous settles of the players it settles (12 bytes per player and segment).
  const lastSettle = new Map<number, number>();
  const entries: ChainEntry[] = [];
  function entryOf(skel: SegmentSkel): ChainEntry {
    const ps = new Set<number>();
    for (const tx of skel.txs) if (tx.kind === 'settle' && tx.fail === null) for (const g of tx.games) ps.add(g.player);
    const players = Int32Array.from(ps).sort();
    const prev = new Float64Array(players.length);
    for (let i = 0; i < players.length; i++) prev[i] = lastSettle.get(players[i]!) ?? -1;
    return { players, prev };
  }
  function prevIn(e: ChainEntry): (player: number) => number {
    return (player) => {
      let lo = 0;
      let hi = e.players.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const v = e.players[mid]!;
        if (v === player) return e.prev[mid]!;
        if (v < player) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    };
  }

  let lastYield = performance.now();
  let disposed = false;
  async function ensureSnapshot(index: number): Promise<void> {
    while (snapshots.length <= index) {
      if (disposed) throw new Error('simulator stopped');
      const k = snapshots.length - 1;
      // Skeletons of the pass are not cached (a year is thousands of them); the last ones will be.
      const skel = lruGet(skeletons, k) ?? generate(k);
      const entry = entryOf(skel);
      entries[k] = entry;
      const seeds = segmentSeeds(skel, prevIn(entry), lastSettle);
      snapshots.push(advance(skel, snapshots[k]!, seeds));
      playerBlooms[k] = playerBloom(skel);
      // Let the server answer other requests during a long first pass (10M-game histories).
      if (performance.now() - lastYield > 15) {
        await new Promise<void>((r) => setImmediate(r));
        lastYield = performance.now();
      }
    }
  }

  return {
    timeline: o.timeline,
    economy: eco,
    prices: o.prices,
    skeleton,
    realize(index) {
      const hit = lruGet(realized, index);
      if (hit) return Promise.resolve(hit);
      // Concurrent requests for one segment share one rebuild.
      let p = inFlight.get(index);
      if (!p) {
        // One segment past `index`: its seed-chain entry is recorded when the pass crosses it.
        p = ensureSnapshot(index + 1).then(() => {
          const skel = skeleton(index);
          const { seg } = apply(skel, snapshots[index]!, segmentSeeds(skel, prevIn(entries[index]!)));
          lruSet(realized, index, seg, REALIZED_CACHE);
          return seg;
        });
        inFlight.set(index, p);
        void p.then(
          () => inFlight.delete(index),
          () => inFlight.delete(index),
        );
      }
      return p;
    },
    dispose() {
      disposed = true;
    },
    async stateBefore(index) {
      await ensureSnapshot(index);
      return cloneState(snapshots[index]!);
    },
    locate(signature, maxSegment) {
      const bytes = fromBase58(signature);
      if (!bytes || bytes.length !== 64) return null;
      const [m1, m2] = locationMasks(o.seed, bytes);
      const index = (readU32(bytes, 56) ^ m1) >>> 0;
      const gen = (readU32(bytes, 60) ^ m2) >>> 0;
      if (index > maxSegment) return null;
      const seg = skeleton(index);
      if (gen >= seg.genToPos.length) return null;
      const tx = seg.txs[seg.genToPos[gen]!]!;
      for (let i = 0; i < 64; i++) if (tx.sig[i] !== bytes[i]) return null;
      return { seg, tx };
    },
    mayHavePlayer(index, player) {
      const bloom = playerBlooms[index];
      if (!bloom) return true;
      const bits = bloom.length * 32;
      const [h1, h2] = bloomHashes(player, bits);
      return (bloom[h1 >>> 5]! & (1 << (h1 & 31))) !== 0 && (bloom[h2 >>> 5]! & (1 << (h2 & 31))) !== 0;
    },
    get snapshotsThrough() {
      return snapshots.length - 1;
    },
  };
}
