import { GAMBA_PROGRAM_ID } from '../../protocol/index.js';
import { hashedAddress, toBase58, type ChainClock, type Economy, type FaultDice, type Ledger, type RealTx, type TxSkel } from '../chain/index.js';
import { compileTx, type CompiledTx } from './txjson.js';
import { planTransaction } from './txplan.js';

/**
 * What the RPC methods, the WebSocket and the ground truth share: the ledger, the chain clock,
 * the current faults, and caches of built transactions and address filters.
 */
export interface ChainView {
  seed: number;
  ledger: Ledger;
  economy: Economy;
  clock: ChainClock;
  faults(): FaultDice;
  /** Newest segment that exists at the processed head. */
  headSegment(): number;
  signature(tx: TxSkel): string;
  blockhash(slot: number): string;
  /** The built transaction (plan + compiled message); cached. */
  build(real: RealTx): CompiledTx;
  /** A filter for "transactions that mention this account", or null when the account never appears. */
  matcher(address: string): ((tx: TxSkel) => boolean) | null;
  /** The player index of a player's wallet / player PDA / game PDA, or -1. */
  playerOf(address: string): number;
  /** Whether the truncated-logs fault hides this transaction's log events. */
  logsTruncated(tx: TxSkel): boolean;
  /**
   * `getTransaction` `json` answers (with maxSupportedTransactionVersion, untruncated logs)
   * rendered ahead by signature: empty unless the `renderAhead` option filled it (render-ahead.ts).
   */
  rendered: Map<string, Buffer>;
}

type Matcher = (tx: TxSkel) => boolean;

/** The chain view over a ledger, the chain clock and the current faults (read through `faults()` so `setFaults` applies at once). */
export function createChainView(o: { seed: number; ledger: Ledger; clock: ChainClock; faults: () => FaultDice }): ChainView {
  const { seed, ledger } = o;
  const eco = ledger.economy;
  const tl = ledger.timeline;
  const built = new Map<string, CompiledTx>();
  let index: Map<string, Matcher> | null = null;
  const players = new Map<string, number>();

  const hasGames = (tx: TxSkel) => tx.kind === 'play' || tx.kind === 'settle';
  const touchesPool = (pool: number) => (tx: TxSkel) =>
    hasGames(tx) ? tx.games.some((g) => g.pool.index === pool) : (tx.kind === 'poolOp' || tx.kind === 'poolInit') && tx.pool!.index === pool;

  function buildIndex(): Map<string, Matcher> {
    const m = new Map<string, Matcher>();
    m.set(GAMBA_PROGRAM_ID, () => true);
    m.set(eco.rng, (tx) => tx.kind === 'settle');
    m.set(eco.rngLookupTable, (tx) => tx.kind === 'settle' && tx.v0);
    m.set(eco.eventAuthority, (tx) => tx.emitCpi && (tx.kind === 'settle' || tx.kind === 'poolOp'));
    m.set(eco.gambaState, (tx) => tx.kind !== 'playerInit' && tx.kind !== 'playerClose' && tx.kind !== 'playerClaim');
    for (const pool of eco.pools) {
      const f = touchesPool(pool.index);
      for (const a of [pool.address, pool.underlyingAta, pool.jackpotAta, pool.lpMint]) m.set(a, f);
    }
    for (const token of new Set(eco.pools.map((p) => p.token))) {
      m.set(token.mint, (tx) => (hasGames(tx) ? tx.games.some((g) => g.pool.token === token) : tx.pool?.token === token));
    }
    for (const p of eco.platforms) m.set(p.address, (tx) => hasGames(tx) && tx.games.some((g) => g.platform === p));
    for (const pool of eco.pools) {
      for (let k = 0; k < 8; k++) {
        m.set(eco.lpAddress(pool.index, k), (tx) => (tx.kind === 'poolOp' || tx.kind === 'poolInit') && tx.pool!.index === pool.index && tx.actor === k);
      }
    }
    for (let i = 0; i < eco.playerCount; i++) {
      const f: Matcher = (tx) =>
        hasGames(tx) ? tx.games.some((g) => g.player === i) : (tx.kind === 'playerInit' || tx.kind === 'playerClose' || tx.kind === 'playerClaim') && tx.actor === i;
      for (const a of [eco.playerAddress(i), eco.playerPda(i), eco.gamePda(i)]) {
        m.set(a, f);
        players.set(a, i);
      }
    }
    return m;
  }

  const blockhashes = new Map<number, string>();
  return {
    seed,
    ledger,
    economy: eco,
    clock: o.clock,
    faults: o.faults,
    headSegment: () => tl.segmentOfSlot(o.clock.slot('processed')),
    signature(tx) {
      return (tx.sigStr ??= toBase58(tx.sig));
    },
    blockhash(slot) {
      let h = blockhashes.get(slot);
      if (!h) {
        if (blockhashes.size > 10_000) blockhashes.clear();
        h = hashedAddress(seed, 'blockhash', slot);
        blockhashes.set(slot, h);
      }
      return h;
    },
    build(real) {
      const sig = this.signature(real.skel);
      const truncate = this.logsTruncated(real.skel);
      const key = truncate ? `${sig}!` : sig;
      const hit = built.get(key);
      if (hit) return hit;
      const plan = planTransaction(real, {
        economy: eco,
        seed,
        blockTime: tl.blockTime(real.skel.slot),
        blockhash: (s) => this.blockhash(s),
        truncateLogs: truncate,
        signature: sig,
      });
      const c = compileTx(plan);
      built.set(key, c);
      if (built.size > 1_000) built.delete(built.keys().next().value as string);
      return c;
    },
    matcher(address) {
      if (address === GAMBA_PROGRAM_ID) return () => true;
      index ??= buildIndex();
      return index.get(address) ?? null;
    },
    playerOf(address) {
      index ??= buildIndex();
      return players.get(address) ?? -1;
    },
    logsTruncated(tx) {
      return o.faults().truncated(this.signature(tx));
    },
    rendered: new Map(),
  };
}
