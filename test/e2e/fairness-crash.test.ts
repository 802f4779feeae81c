/**
 * Fairness verdicts survive crashes (docs/design.md §14): the indexer child backfills a chain with
 * rigged games (fault `rig`) and is killed with SIGKILL mid-backfill, then restarted; the stored
 * verdicts must equal the brute force over the ground truth (test/helpers/fairness-oracle.ts), and
 * every rigged game must be a violation with its rule.
 */
import { describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { STATE_KEYS } from '../../src/ingest/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { startSimulator, type GroundTruthEvent } from '../../src/simulator/index.js';
import { createStore, type KeysetPosition, type Store } from '../../src/store/index.js';
import { fairnessOracle } from '../helpers/fairness-oracle.js';
import { spawnIndexerChild } from '../helpers/indexer-child.js';
import { createTestDatabase } from '../helpers/store.js';

async function verdicts(store: Store): Promise<Map<string, { fairness: string; rule: string | null }>> {
  const out = new Map<string, { fairness: string; rule: string | null }>();
  let after: KeysetPosition | undefined;
  for (;;) {
    const page = await store.queries.settledGames({ orderBy: 'time', sorting: 'ASC', page: 0, itemsPerPage: 500, onlyJackpots: false, after });
    for (const g of page.results) out.set(`${g.signature}:${g.event_index}`, { fairness: g.fairness, rule: g.fairness_rule });
    if (!page.next) return out;
    after = page.next;
  }
}

describe('fairness verdicts across SIGKILL and restart', () => {
  it('ends with the brute force\'s verdicts; every rigged game a violation with its rule', async () => {
    const sim = await startSimulator({ seed: 83, days: 6, playsPerDay: 200, liveRate: 0, faults: 'rig=0.03' });
    const db = createTestDatabase();
    const store = await createStore({ common: createCommon(), config: db.config });
    try {
      const env = {
        SOLANA_RPC_URL: sim.rpcUrl,
        DATABASE_URL: db.databaseUrl,
        BACKFILL_DAYS: '3650',
        HERMES_URL: sim.hermesUrl,
        JUPITER_URL: sim.jupiterUrl,
        PAGE_SIZE: '100',
        COMMIT_SIGNATURES: '300',
        POLL_INTERVAL_MS: '200',
        RPC_MAX_RPS: '100000',
        CHILD_LOG_LEVEL: 'warn',
      };
      let kills = 0;
      for (let k = 0; k < 3; k++) {
        const child = spawnIndexerChild(env);
        await child.waitForLine('STARTED');
        const before = (await store.queries.counts()).totalGames;
        for (let waited = 0; waited < 20_000 && (await store.queries.counts()).totalGames <= before; waited += 25) await new Promise((r) => setTimeout(r, 25));
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300)));
        child.proc.kill('SIGKILL');
        expect((await child.exited).signal).toBe('SIGKILL');
        kills++;
        if ((await store.getState(STATE_KEYS.backfillDone)) !== undefined) break;
      }
      expect(kills).toBeGreaterThan(0);
      const last = spawnIndexerChild(env);
      await last.waitForLine('DONE', 50_000);
      expect((await last.exited).code).toBe(0);

      const truth: GroundTruthEvent[] = [];
      for await (const e of sim.groundTruth()) truth.push(e);
      const oracle = fairnessOracle(truth.map(({ usdPrice: _p, decimals: _d, rigged: _r, ...e }) => e as LocatedEvent));
      const stored = await verdicts(store);
      expect(stored).toEqual(new Map([...oracle].map(([k, v]) => [k, { fairness: v.fairness, rule: v.rule }])));
      const rigged = new Map(truth.filter((e) => e.rigged).map((e) => [`${e.signature}:${e.eventIndex}`, e.rigged]));
      expect(rigged.size).toBeGreaterThan(5);
      expect(new Map([...stored].filter(([, v]) => v.fairness === 'violation').map(([k, v]) => [k, v.rule]))).toEqual(rigged);
    } finally {
      await store.close();
      await db.drop();
      await sim.stop();
    }
  });
});
