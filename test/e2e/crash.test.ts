/**
 * Crash safety (docs/indexer.md): the indexer runs in its own process and is killed with SIGKILL at
 * random points during the backfill, several times, restarted each time; the store must end
 * with exactly the chain's events — no loss, no duplicate. Once against the chain simulator's
 * ground truth, once against the controlled ledger (exact signature counts, failed txs).
 */
import { describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { STATE_KEYS } from '../../src/ingest/index.js';
import { startSimulator } from '../../src/simulator/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { generateFixture } from '../helpers/fixture.js';
import { createTestDatabase, testStore, type TestDialect } from '../helpers/store.js';
import { fixtureTransactions, startLedger } from '../helpers/ledger.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';
import { spawnIndexerChild } from '../helpers/indexer-child.js';
import { groundTruth } from '../helpers/ground-truth.js';

/**
 * Kills the indexer child up to `kills` times at random moments after it started, then lets a
 * last one finish. Returns the store's signature count after each kill.
 */
async function killAndRestart(store: Store, env: Record<string, string>, kills: number, beforeLast?: () => void): Promise<number[]> {
  const progress: number[] = [];
  for (let k = 0; k < kills; k++) {
    const child = spawnIndexerChild(env);
    await child.waitForLine('STARTED');
    // Kill only once this run has stored something (a loaded machine may start slowly), at a
    // random moment after that: every kill then lands mid-backfill.
    const before = progress[progress.length - 1] ?? 0;
    for (let waited = 0; waited < 20_000 && (await store.queries.counts()).totalSignatures <= before; waited += 25) {
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300)));
    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    progress.push((await store.queries.counts()).totalSignatures);
    if ((await store.getState(STATE_KEYS.backfillDone)) !== undefined) break;
  }
  beforeLast?.();
  const last = spawnIndexerChild(env);
  await last.waitForLine('DONE', 50_000);
  expect((await last.exited).code).toBe(0);
  return progress;
}

const childEnv = (rpcUrl: string, databaseUrl: string, hermes: string, jupiter: string, pageSize: number) => ({
  SOLANA_RPC_URL: rpcUrl,
  DATABASE_URL: databaseUrl,
  BACKFILL_DAYS: '3650',
  HERMES_URL: hermes,
  JUPITER_URL: jupiter,
  PAGE_SIZE: String(pageSize),
  // Transactions of three pages (backfill.ts commitSignatures), so kills also land between pages held for one.
  COMMIT_SIGNATURES: String(3 * pageSize),
  POLL_INTERVAL_MS: '200',
  RPC_MAX_RPS: '100000',
  CHILD_LOG_LEVEL: 'warn',
});

/**
 * Whether a chain-source case runs in this project. The controlled-ledger case checks each store
 * backend's crash safety; the chain-source cases check each source's checkpoints, so when both
 * backends run (TEST_DATABASE_URL set: CI) each source runs on one of them, and on SQLite alone
 * every source runs there.
 */
function sourceRunsHere(owner: TestDialect): boolean {
  return process.env.TEST_DATABASE_URL === undefined || testStore() === owner;
}

describe('crash safety (kill -9 during backfill, restart)', () => {
  // The same kill/restart run through each history source (docs/indexer.md "Chain sources").
  it.each(
    [
      { source: 'rpc', seed: 77, owner: 'sqlite' as const },
      { source: 'helius', seed: 78, owner: 'postgres' as const },
    ].filter((c) => sourceRunsHere(c.owner)),
  )('HISTORY_SOURCE=$source against the simulator: ends with exactly the ground-truth events', async ({ source, seed }) => {
    const sim = await startSimulator({ seed, days: 8, playsPerDay: 150, liveRate: 0 });
    const db = createTestDatabase();
    const store = await createStore({ common: createCommon(), config: db.config });
    try {
      const env = { ...childEnv(sim.rpcUrl, db.databaseUrl, sim.hermesUrl, sim.jupiterUrl, 100), HISTORY_SOURCE: source };
      const progress = await killAndRestart(store, env, 3);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
      const truth = await groundTruth(sim);
      expect(await storedEventLines(store, poolsOf(truth.events))).toEqual(expectedEventLines(truth.events));
      const counts = await store.queries.counts();
      expect(counts.totalGames).toBe(truth.events.filter((e) => e.name === 'GameSettled').length);
      expect(counts.totalPoolChanges).toBe(truth.events.filter((e) => e.name === 'PoolChange').length);
      expect(counts.unpricedGames).toBe(0);
    } finally {
      await store.close();
      await db.drop();
      await sim.stop();
    }
  });

  it.runIf(sourceRunsHere('postgres'))('LIVE_SOURCE=yellowstone with live games: ends with exactly the ground truth up to the last run', async () => {
    const sim = await startSimulator({ seed: 79, days: 7, playsPerDay: 150, liveRate: 4, yellowstone: true });
    const db = createTestDatabase();
    const store = await createStore({ common: createCommon(), config: db.config });
    try {
      const env = { ...childEnv(sim.rpcUrl, db.databaseUrl, sim.hermesUrl, sim.jupiterUrl, 100), LIVE_SOURCE: 'yellowstone', YELLOWSTONE_URL: sim.yellowstoneUrl! };
      let slot = 0;
      const progress = await killAndRestart(store, env, 5, () => (slot = sim.slot('confirmed')));
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      // The last run's catch-up pass started after `slot`: everything up to it is stored, once.
      const truth = await groundTruth(sim, slot);
      const signatures = new Set(truth.events.map((e) => e.signature));
      const stored = (await storedEventLines(store, poolsOf(truth.events))).filter((l) => signatures.has(l.split(' ')[0]!));
      expect(stored).toEqual(expectedEventLines(truth.events));
      expect(truth.events.some((e) => e.slot >= sim.startSlot)).toBe(true);
    } finally {
      await store.close();
      await db.drop();
      await sim.stop();
    }
  });

  it('against the controlled ledger: every signature once, every event once', async () => {
    const fixture = generateFixture({ seed: 99, games: 1500, poolChanges: 150 });
    const { txs } = fixtureTransactions(fixture.events);
    // A little latency per request so the kills land mid-backfill.
    const ledger = await startLedger({ txs, mints: fixture.mints, finalizedDepth: 10, delayMs: 10 });
    const db = createTestDatabase();
    const store = await createStore({ common: createCommon(), config: db.config });
    const base = ledger.url.replace(/\/$/, '');
    try {
      const progress = await killAndRestart(store, childEnv(ledger.url, db.databaseUrl, base, `${base}/jup`, 50), 5);
      // Each restart resumed (progress never went back) and at least two kills hit mid-backfill.
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.filter((n) => n > 0 && n < txs.length).length).toBeGreaterThanOrEqual(2);
      expect(await storedEventLines(store, poolsOf(fixture.events))).toEqual(expectedEventLines(fixture.events));
      const counts = await store.queries.counts();
      expect(counts.totalSignatures).toBe(txs.length);
      expect(counts.totalGames).toBe(fixture.events.filter((e) => e.name === 'GameSettled').length);
      expect(counts.totalPoolChanges).toBe(fixture.events.filter((e) => e.name === 'PoolChange').length);
    } finally {
      await store.close();
      await db.drop();
      await ledger.close();
    }
  });
});
