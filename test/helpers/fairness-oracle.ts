import { createHash, createHmac } from 'node:crypto';
import type { GameSettled, LocatedEvent } from '../../src/protocol/index.js';

/** A verdict as the oracle computes it, independently of src/store (docs/design.md "Fairness audit"). */
export interface OracleVerdict {
  signature: string;
  eventIndex: number;
  player: string;
  creator: string;
  pool: string;
  token: string;
  timeMs: number;
  fairness: 'verified' | 'unverifiable' | 'violation';
  /** Violation rule or unverifiable reason; null when verified. */
  rule: string | null;
}

type Game = LocatedEvent & { name: 'GameSettled'; data: GameSettled };

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/**
 * Brute force over raw GameSettled events: order each player's games by (slot, signature,
 * eventIndex), run the HMAC and SHA-256 here, and give every game its verdict.
 */
export function fairnessOracle(events: readonly LocatedEvent[]): Map<string, OracleVerdict> {
  const games = events.filter((e): e is Game => e.name === 'GameSettled');
  games.sort((a, b) => a.slot - b.slot || (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0) || a.eventIndex - b.eventIndex);
  const last = new Map<string, GameSettled>();
  const out = new Map<string, OracleVerdict>();
  for (const e of games) {
    const d = e.data;
    const prev = last.get(d.user);
    last.set(d.user, d);
    const rules: string[] = [];
    if (prev && sha256(d.rngSeed) !== prev.nextRngSeedHashed) rules.push('commitment');
    let fairness: OracleVerdict['fairness'];
    let rule: string | null = null;
    if (d.bet.length === 0) {
      fairness = 'unverifiable';
      rule = 'no_bet';
    } else {
      const hmac = createHmac('sha256', d.rngSeed).update(`${d.clientSeed}-${d.nonce.toString()}`).digest('hex');
      const idx = parseInt(hmac.slice(0, 5), 16) % d.bet.length;
      if (BigInt(idx) !== d.resultIndex) rules.push('result_index');
      else if (d.bet[idx] !== d.multiplierBps) rules.push('multiplier');
      const exact = d.wager * BigInt(d.multiplierBps);
      const diff = d.payout * 10_000n - exact;
      if (diff <= -10_000n || diff >= 10_000n) rules.push('payout');
      if (rules.length > 0) {
        fairness = 'violation';
        rule = rules[0]!;
      } else if (!prev) {
        fairness = 'unverifiable';
        rule = 'first_seen';
      } else fairness = 'verified';
    }
    if (fairness !== 'violation' && rules.includes('commitment')) {
      fairness = 'violation';
      rule = 'commitment';
    }
    out.set(`${e.signature}:${e.eventIndex}`, {
      signature: e.signature,
      eventIndex: e.eventIndex,
      player: d.user,
      creator: d.creator,
      pool: d.pool,
      token: d.tokenMint,
      timeMs: e.blockTime * 1000,
      fairness,
      rule,
    });
  }
  return out;
}
