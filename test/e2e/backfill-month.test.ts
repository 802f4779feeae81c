/**
 * End to end over real sockets (docs/indexer.md): chain simulator (JSON-RPC, Hermes, Jupiter) →
 * indexer → store → HTTP API; after backfilling a simulated month, every operation's answer
 * equals the brute-force oracle over the simulator's ground truth. The chain has the BONK whale
 * (`whales: true`), so token sums past 2^63 go the whole way from the RPC to the JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import type { Indexer } from '../../src/ingest/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { setupStore } from '../helpers/store.js';
import { buildIndexer } from '../helpers/indexer-setup.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';
import { expectApiMatchesOracle, httpGetter } from '../helpers/api-oracle.js';
import { groundTruth, oracleOf, simulatorPrices, type Truth } from '../helpers/ground-truth.js';

const BONK_MINT = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
let sim: Simulator;
let store: Store;
let indexer: Indexer;
let app: TestApp;
let truth: Truth;
const now = Date.now();

beforeAll(async () => {
  sim = await startSimulator({ seed: 2026, days: 30, playsPerDay: 150, liveRate: 0, startTimeMs: now, whales: true });
  store = await setupStore();
  indexer = buildIndexer({ rpcUrl: sim.rpcUrl, store, prices: simulatorPrices(sim), backfillDays: 31, options: { pageSize: 500 } });
  await indexer.start();
  await indexer.backfilled();
  await indexer.syncNow();
  truth = await groundTruth(sim);
  app = await buildTestApp({ store, clock: new ManualClock(now), sync: indexer.controller });
});

afterAll(async () => {
  await app?.close();
  await indexer?.stop();
  await sim?.stop();
});

describe('simulated month: simulator → indexer → store → API', () => {
  it('stores exactly the ground-truth events (no loss, no duplicate), all priced', async () => {
    expect(truth.events.length).toBeGreaterThan(3000);
    expect(await storedEventLines(store, poolsOf(truth.events))).toEqual(expectedEventLines(truth.events));
    const counts = await store.queries.counts();
    expect(counts.totalGames).toBe(truth.events.filter((e) => e.name === 'GameSettled').length);
    expect(counts.unpricedGames).toBe(0);
    // The whale's BONK volume passes 2^63: the exact sums below are exercised past i64.
    const bonkVolume = truth.events.reduce((a, e) => (e.name === 'GameSettled' && e.data.tokenMint === BONK_MINT ? a + e.data.wager : a), 0n);
    expect(bonkVolume).toBeGreaterThan(1n << 63n);
    expect(counts.skipped.failed_transaction ?? 0).toBeGreaterThan(0);
    const state = indexer.controller.state();
    expect(state).toMatchObject({ syncing: false, backfillDone: true, lastError: null });
    // The chain keeps producing slots (400 ms each) and the tail keeps polling: caught up within a few.
    expect(state.lagSlots).toBeLessThanOrEqual(5);
  });

  it('every operation over HTTP equals the brute-force oracle over the ground truth', async () => {
    const checks = await expectApiMatchesOracle(httpGetter(app.baseUrl, app.key), oracleOf(truth, now));
    expect(checks).toBeGreaterThan(50);
  });

  it('/status and /sync/status report the real sync state', async () => {
    const get = httpGetter(app.baseUrl, app.key);
    const status = await get('/status');
    expect(status.body).toMatchObject({ syncing: false, totalGames: truth.events.filter((e) => e.name === 'GameSettled').length });
    expect(Date.parse(status.body.lastSync)).toBeGreaterThan(now - 60_000);
    const ss = await get('/sync/status');
    const newest = truth.events[truth.events.length - 1]!;
    expect(ss.body.data.latestUpdate.blockTime).toBe(newest.blockTime);
    expect(ss.body.data.unpricedGames).toBe(0);
  });
});
