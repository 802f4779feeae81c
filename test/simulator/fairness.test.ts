/**
 * The simulator's seed chain (docs/simulator.md "Games"): each player's settle commits to the
 * seed revealed at that player's next settle, results follow the HMAC, and the fault `rig`
 * breaks exactly the rules its ground truth names — checked by an independent brute force.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator, type GroundTruthEvent, type Simulator } from '../../src/simulator/index.js';
import { fairnessOracle } from '../helpers/fairness-oracle.js';

const sims: Simulator[] = [];
afterAll(async () => {
  for (const s of sims) await s.stop();
});

async function truthOf(faults?: string): Promise<GroundTruthEvent[]> {
  const sim = await startSimulator({ seed: 41, days: 3, playsPerDay: 400, liveRate: 0, startTimeMs: Date.UTC(2026, 5, 1), faults });
  sims.push(sim);
  await sim.ready();
  const out: GroundTruthEvent[] = [];
  for await (const e of sim.groundTruth()) out.push(e);
  return out;
}

describe('simulator fairness', () => {
  it('a clean chain: every game after a player\'s first is verified, none is a violation', async () => {
    const truth = await truthOf();
    const verdicts = [...fairnessOracle(truth).values()];
    expect(verdicts.length).toBeGreaterThan(500);
    expect(verdicts.filter((v) => v.fairness === 'violation')).toEqual([]);
    const players = new Set(verdicts.map((v) => v.player));
    expect(verdicts.filter((v) => v.fairness === 'unverifiable').length).toBe(players.size);
    expect(truth.some((e) => e.rigged)).toBe(false);
  });

  it('rig: the violations found are exactly the rigged games, each with its rule', async () => {
    const truth = await truthOf('rig=0.02');
    const rigged = new Map(truth.filter((e) => e.rigged).map((e) => [`${e.signature}:${e.eventIndex}`, e.rigged]));
    expect(rigged.size).toBeGreaterThan(5);
    const found = new Map([...fairnessOracle(truth)].filter(([, v]) => v.fairness === 'violation').map(([k, v]) => [k, v.rule]));
    expect(found).toEqual(rigged);
    expect(new Set(rigged.values())).toEqual(new Set(['commitment', 'result_index', 'multiplier', 'payout']));
  });
});
