/**
 * Bet tables of the simulated games. A Gamba bet is a vector of equally likely outcomes, each a
 * payout multiplier in basis points (docs/protocol.md §4: bet [20000,0] = 2x/0x); the RNG picks
 * `resultIndex` and the player receives wager × bet[resultIndex] / 10000. Every table's
 * expected value is ≤ 1 (the house edge; Gamba rejects player-advantage bets), so players
 * lose overall even before fees.
 */

/** The simulated games. */
export type GameKind = 'flip' | 'dice' | 'roulette' | 'slots' | 'plinko' | 'mines' | 'crash';

/** Every game kind, in a fixed order (indexes are stable across seeds). */
export const GAME_KINDS: readonly GameKind[] = ['flip', 'dice', 'roulette', 'slots', 'plinko', 'mines', 'crash'];

/** One bet table of a game: outcome multipliers in bps, the largest one, the expected value (1 = break even) and the play's metadata string. */
export interface BetVariant {
  id: number;
  game: GameKind;
  /** Third part of the play's metadata, "0:<game>:<label>" (react-ui convention, docs/protocol.md §4). */
  label: string;
  bet: readonly number[];
  /** Largest multiplier in bps (sizes the maximum wager against the pool's max payout). */
  maxBps: number;
  /** Expected value of the table (1 = fair). */
  ev: number;
  /** The play's metadata string, "0:<game>:<label>". */
  metadata: string;
}

const RED_POCKETS = new Set([1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36]);

function pockets(f: (n: number) => number): number[] {
  return Array.from({ length: 37 }, (_, n) => f(n));
}

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

const raw: [GameKind, string, number[]][] = [
  ['flip', 'heads', [20000, 0]],
  ['flip', 'tails', [0, 20000]],
  // Dice, roll under n of 100: winners pay 98/n (a 2 % edge).
  ...[5, 10, 25, 33, 50, 66, 75, 90, 95].map((n): [GameKind, string, number[]] => [
    'dice',
    `under-${n}`,
    Array.from({ length: 100 }, (_, i) => (i < n ? Math.floor(980_000 / n) : 0)),
  ]),
  // European roulette: 37 pockets, the zero is the edge (36/37).
  ['roulette', 'red', pockets((n) => (RED_POCKETS.has(n) ? 20000 : 0))],
  ['roulette', 'black', pockets((n) => (n !== 0 && !RED_POCKETS.has(n) ? 20000 : 0))],
  ['roulette', 'dozen-1', pockets((n) => (n >= 1 && n <= 12 ? 30000 : 0))],
  ['roulette', 'number-17', pockets((n) => (n === 17 ? 360000 : 0))],
  ['slots', 'classic', [100000, 50000, 30000, 30000, 20000, 20000, 20000, ...Array<number>(21).fill(0)]],
  ['plinko', 'low', [15000, 12000, 11000, 10000, 10000, 9000, 5000, 5000, 5000, 5000, 9000, 10000, 10000, 11000, 12000, 15000]],
  ['plinko', 'high', [100000, 20000, 10000, 5000, 3000, 2000, ...Array<number>(18).fill(0), 2000, 3000, 5000, 10000, 20000, 100000]],
  // Mines, 3 mines on 25 cells, k gems revealed: win probability C(22,k)/C(25,k), 3 % edge.
  ...[1, 2, 3, 5].map((k): [GameKind, string, number[]] => {
    const p = choose(22, k) / choose(25, k);
    const winners = Math.round(100 * p);
    const mult = Math.floor((9700 * 100) / winners);
    return ['mines', `3-mines-${k}-gems`, Array.from({ length: 100 }, (_, i) => (i < winners ? mult : 0))];
  }),
  // Crash at target t: floor(98/t) winning outcomes of 100 pay t.
  ...[1.2, 1.5, 2, 3, 5, 10, 25].map((t): [GameKind, string, number[]] => {
    const winners = Math.floor(98 / t);
    return ['crash', `${t.toFixed(2)}x`, Array.from({ length: 100 }, (_, i) => (i < winners ? Math.round(t * 10000) : 0))];
  }),
];

function variant(id: number, game: GameKind, label: string, bet: number[]): BetVariant {
  const ev = bet.reduce((a, b) => a + b, 0) / bet.length / 10000;
  // Frozen: events share the table instead of copying it per game.
  return { id, game, label, bet: Object.freeze(bet), maxBps: Math.max(...bet), ev, metadata: `0:${game}:${label}` };
}

/** The regular bet tables of all games; `id` is the index. */
export const VARIANTS: readonly BetVariant[] = raw.map(([g, l, b], i) => variant(i, g, l, b));

/** The regular bet tables by game kind. */
export const VARIANTS_BY_GAME: ReadonlyMap<GameKind, readonly BetVariant[]> = new Map(
  GAME_KINDS.map((g) => [g, VARIANTS.filter((v) => v.game === g)]),
);

/**
 * The BONK whale's low-variance table (0.8x–1.1x, EV 0.978): it keeps a 1.5·10^18-unit wager
 * from swinging the pool by more than 10 % of the wager.
 */
export const WHALE_VARIANT: BetVariant = variant(VARIANTS.length, 'plinko', 'whale', [11000, 10000, 10000, 9000, 8000, 9000, 10000, 10000, 11000]);

/** Every bet table, the whale's last (its `id` = its index). */
export const ALL_VARIANTS: readonly BetVariant[] = [...VARIANTS, WHALE_VARIANT];
