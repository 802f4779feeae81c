/**
 * LIVE_SOURCE=yellowstone (docs/indexer.md "Chain sources"): the simulator's Yellowstone gRPC
 * server streams the program's transactions; the indexer writes them slot by slot with the same
 * checkpoints as a tail pass. With polling switched off (a 10-minute interval), everything after
 * the backfill arrives through the stream — and when the stream drops, the gap is filled from
 * history on reconnection: nothing is lost, nothing written twice. Switching LIVE_SOURCE on a
 * store continues from the same tail checkpoint.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCommon, type Common } from '../../src/core/index.js';
import type { Indexer } from '../../src/ingest/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/index.js';
import { setupStore } from '../helpers/store.js';
import { buildIndexer, waitFor } from '../helpers/indexer-setup.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';
import { groundTruth, simulatorPrices } from '../helpers/ground-truth.js';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s();
});

async function start(o: { faults?: string; historySource?: 'rpc' | 'helius'; days?: number } = {}): Promise<{ sim: Simulator; store: Store; indexer: Indexer; common: Common }> {
  const days = o.days ?? 2;
  const sim = await startSimulator({ seed: 21, days, playsPerDay: days > 2 ? 120 : 300, liveRate: 6, yellowstone: true, faults: o.faults });
  stops.push(() => sim.stop());
  const store = await setupStore();
  const common = createCommon();
  const indexer = buildIndexer({
    rpcUrl: sim.rpcUrl,
    store,
    common,
    prices: simulatorPrices(sim),
    backfillDays: days + 1,
    // No safety-net polling within the test: live games come through the stream or its gap-fill.
    pollIntervalMs: 600_000,
    options: { yellowstone: { url: sim.yellowstoneUrl! }, historySource: o.historySource ?? 'rpc' },
  });
  stops.push(() => indexer.stop());
  await indexer.start();
  await indexer.backfilled();
  return { sim, store, indexer, common };
}

/**
 * Waits until the store holds every ground-truth event up to the simulator's confirmed slot now,
 * then compares exactly (events of later slots aside): no loss, no duplicate. Returns the live
 * events (after the simulation's start) in that truth.
 */
async function expectCaughtUp(sim: Simulator, store: Store): Promise<number> {
  const slot = sim.slot('confirmed');
  const truth = await groundTruth(sim, slot);
  const expected = expectedEventLines(truth.events);
  const signatures = new Set(truth.events.map((e) => e.signature));
  const pools = poolsOf(truth.events);
  const upTo = async () => (await storedEventLines(store, pools)).filter((l) => signatures.has(l.split(' ')[0]!));
  await waitFor(async () => (await upTo()).length >= expected.length, 20_000, 'the store to hold the ground truth up to the confirmed slot');
  expect(await upTo()).toEqual(expected);
  return truth.events.filter((e) => e.slot >= sim.startSlot).length;
}

describe('LIVE_SOURCE=yellowstone', () => {
  it('live games arrive through the stream: the store equals the ground truth, no getTransaction needed', async () => {
    const { sim, store, common } = await start();
    await new Promise((r) => setTimeout(r, 4000));
    const live = await expectCaughtUp(sim, store);
    expect(live).toBeGreaterThan(10);
    const requests = await metric(common, 'rpc_requests_total');
    // Backfill and one gap-fill pass only: the live transactions came whole over gRPC.
    const before = requests.get('getTransaction') ?? 0;
    await new Promise((r) => setTimeout(r, 3000));
    await expectCaughtUp(sim, store);
    expect((await metric(common, 'rpc_requests_total')).get('getTransaction') ?? 0).toBe(before);
  });

  it('a simulated month through helius history and yellowstone live: exactly the ground truth', async () => {
    const { sim, store } = await start({ days: 30, historySource: 'helius' });
    await new Promise((r) => setTimeout(r, 3000));
    expect(await expectCaughtUp(sim, store)).toBeGreaterThan(5);
  });

  it('switching LIVE_SOURCE poll → yellowstone → poll on one store: no gap, no duplicate', async () => {
    const sim = await startSimulator({ seed: 22, days: 1, playsPerDay: 200, liveRate: 6, yellowstone: true });
    stops.push(() => sim.stop());
    const store = await setupStore();
    const run = async (yellowstone: boolean, ms: number) => {
      const indexer = buildIndexer({
        rpcUrl: sim.rpcUrl,
        store,
        prices: simulatorPrices(sim),
        backfillDays: 2,
        pollIntervalMs: yellowstone ? 600_000 : 300,
        options: yellowstone ? { yellowstone: { url: sim.yellowstoneUrl! } } : {},
      });
      await indexer.start();
      await indexer.backfilled();
      await new Promise((r) => setTimeout(r, ms));
      await indexer.stop();
    };
    await run(false, 2500);
    await run(true, 2500);
    // Down for a while, then polling again: it continues from the stream's checkpoint.
    await new Promise((r) => setTimeout(r, 1500));
    const last = buildIndexer({ rpcUrl: sim.rpcUrl, store, prices: simulatorPrices(sim), backfillDays: 2, pollIntervalMs: 300 });
    stops.push(() => last.stop());
    await last.start();
    await last.backfilled();
    expect(await expectCaughtUp(sim, store)).toBeGreaterThan(20);
  });

  it('the stream dropping and reconnecting loses nothing (gap-filled from history), with ~10 % RPC faults', async () => {
    const { sim, store, common } = await start({ faults: '429=0.1,retry-after=1,503=0.1,unhealthy=0.1,slow=0.1@300' });
    await expectCaughtUp(sim, store);
    const fetchedBefore = (await metric(common, 'rpc_requests_total')).get('getTransaction') ?? 0;
    for (let i = 0; i < 3; i++) {
      // Dropped, and refused for 1.5 s: several slots of live games pass while no stream is open.
      await waitFor(() => sim.yellowstoneStreams() > 0, 20_000, 'an open stream to drop');
      expect(sim.dropYellowstoneStreams(1500)).toBe(1);
      await new Promise((r) => setTimeout(r, 2500));
    }
    await expectCaughtUp(sim, store);
    const errors = await metric(common, 'rpc_errors_total');
    expect(errors.get('stream_ended') ?? 0).toBeGreaterThanOrEqual(3);
    expect(errors.get('connect') ?? 0).toBeGreaterThan(0);
    // What the stream missed came from history.
    expect((await metric(common, 'rpc_requests_total')).get('getTransaction') ?? 0).toBeGreaterThan(fetchedBefore);
    const passes = await metric(common, 'indexer_sync_passes_total', 'trigger');
    expect(passes.get('gap-fill') ?? 0).toBeGreaterThanOrEqual(4);
  });
});

/** A counter's values by `label` (default: kind, else method), summed over the other labels. */
async function metric(common: Common, name: string, label?: string): Promise<Map<string, number>> {
  const m = (await common.metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
  const out = new Map<string, number>();
  for (const v of m?.values ?? []) {
    const k = String(label ? v.labels[label] : (v.labels.kind ?? v.labels.method));
    out.set(k, (out.get(k) ?? 0) + Number(v.value));
  }
  return out;
}
