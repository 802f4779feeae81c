/**
 * Chain sources (docs/indexer.md "Chain sources"): the backfill through HISTORY_SOURCE=helius
 * (getTransactionsForAddress) ends with exactly the simulator's ground truth, with faults too,
 * and a store backfilled partly through one source and finished through the other continues
 * from its checkpoint: no gap, no duplicate.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCommon, type Common } from '../../src/core/index.js';
import { STATE_KEYS, type HistorySourceKind, type Indexer } from '../../src/ingest/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/index.js';
import { setupStore } from '../helpers/store.js';
import { buildIndexer, waitFor } from '../helpers/indexer-setup.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';
import { groundTruth, simulatorPrices, type Truth } from '../helpers/ground-truth.js';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s();
});

const startTimeMs = Date.now();
let simulator: Promise<{ sim: Simulator; truth: Truth }> | undefined;
/** Twelve simulated days (no live games), shared by the tests that need no faults. */
function history(): Promise<{ sim: Simulator; truth: Truth }> {
  return (simulator ??= (async () => {
    const sim = await startSimulator({ seed: 4242, days: 12, playsPerDay: 120, liveRate: 0, startTimeMs });
    stops.push(() => sim.stop());
    return { sim, truth: await groundTruth(sim) };
  })());
}

function indexerOf(sim: Simulator, store: Store, historySource: HistorySourceKind, common?: Common, extra: Record<string, unknown> = {}): Indexer {
  const indexer = buildIndexer({ rpcUrl: sim.rpcUrl, store, common, prices: simulatorPrices(sim), backfillDays: 13, options: { historySource, pageSize: 100, ...extra } });
  stops.push(() => indexer.stop());
  return indexer;
}

async function expectTruth(store: Store, truth: Truth): Promise<void> {
  expect(await storedEventLines(store, poolsOf(truth.events))).toEqual(expectedEventLines(truth.events));
  const counts = await store.queries.counts();
  expect(counts.totalGames).toBe(truth.events.filter((e) => e.name === 'GameSettled').length);
  expect(counts.totalPoolChanges).toBe(truth.events.filter((e) => e.name === 'PoolChange').length);
  expect(counts.unpricedGames).toBe(0);
}

describe('HISTORY_SOURCE=helius', () => {
  it('indexes the simulated days to exactly the ground truth, failed transactions recorded', async () => {
    const { sim, truth } = await history();
    const store = await setupStore();
    const common = createCommon();
    const indexer = indexerOf(sim, store, 'helius', common);
    await indexer.start();
    await indexer.backfilled();
    await indexer.syncNow();
    expect(truth.events.length).toBeGreaterThan(1000);
    await expectTruth(store, truth);
    const counts = await store.queries.counts();
    expect(counts.skipped.failed_transaction ?? 0).toBeGreaterThan(0);
    // The same signatures as the rpc source records.
    const rpcStore = await setupStore();
    const rpcIndexer = indexerOf(sim, rpcStore, 'rpc');
    await rpcIndexer.start();
    await rpcIndexer.backfilled();
    await rpcIndexer.syncNow();
    const rpcCounts = await rpcStore.queries.counts();
    expect(counts.totalSignatures).toBe(rpcCounts.totalSignatures);
    expect(counts.skipped).toEqual(rpcCounts.skipped);
    const methods = await metricValues(common, 'rpc_requests_total');
    expect(methods.get('getTransactionsForAddress') ?? 0).toBeGreaterThan(0);
    // The backfill fetched no transaction one by one (the tail's polls may).
    expect(methods.get('getTransaction') ?? 0).toBeLessThan(counts.totalSignatures / 10);
  });

  it('with ~10 % faults of each kind: the same result', async () => {
    const sim = await startSimulator({ seed: 4242, days: 7, playsPerDay: 120, liveRate: 0, startTimeMs, faults: '429=0.1,retry-after=1,503=0.1,unhealthy=0.1,slow=0.1@300,null-tx=30' });
    stops.push(() => sim.stop());
    const truth = await groundTruth(sim);
    const store = await setupStore();
    const common = createCommon();
    const indexer = buildIndexer({ rpcUrl: sim.rpcUrl, store, common, prices: simulatorPrices(sim), backfillDays: 8, options: { historySource: 'helius', pageSize: 100 } });
    stops.push(() => indexer.stop());
    await indexer.start();
    await indexer.backfilled();
    await indexer.syncNow();
    await expectTruth(store, truth);
    const errors = await metricValues(common, 'rpc_errors_total');
    for (const kind of ['http_429', 'http_503', 'rpc_-32005']) expect(errors.get(kind) ?? 0, kind).toBeGreaterThan(0);
  });
});

describe('switching HISTORY_SOURCE on an existing store', () => {
  for (const [first, second] of [
    ['rpc', 'helius'],
    ['helius', 'rpc'],
  ] as const) {
    it(`${first} → ${second}: continues from the checkpoint, no gap, no duplicate`, async () => {
      const { sim, truth } = await history();
      const store = await setupStore();
      // Small commits so the first source stops mid-backfill with a cursor inside the range.
      const a = indexerOf(sim, store, first, undefined, { backfillCommitSignatures: 100 });
      await a.start();
      await waitFor(async () => (await store.queries.counts()).totalSignatures > 400, 30_000, 'the first source to commit');
      await a.stop();
      expect(await store.getState(STATE_KEYS.backfillDone)).toBeUndefined();
      const cursor = await store.getState(STATE_KEYS.backfillCursor);
      expect(cursor).toBeDefined();
      const before = (await store.queries.counts()).totalSignatures;

      const b = indexerOf(sim, store, second);
      await b.start();
      await b.backfilled();
      await b.syncNow();
      await expectTruth(store, truth);
      expect((await store.queries.counts()).totalSignatures).toBeGreaterThan(before);
    });
  }
});

/** A counter's values by its `kind` label (or method), summed over the other labels. */
async function metricValues(common: Common, name: string): Promise<Map<string, number>> {
  const m = (await common.metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
  const out = new Map<string, number>();
  for (const v of m?.values ?? []) {
    const k = String(v.labels.kind ?? v.labels.method);
    out.set(k, (out.get(k) ?? 0) + Number(v.value));
  }
  return out;
}
