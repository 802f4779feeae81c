/**
 * Live (docs/indexer.md, docs/design.md §5): a game the simulator produces after start-up is returned by
 * `/events/settledGames` within 10 s of its confirmation — polling every 2 s (the default) with
 * `logsSubscribe` as the early wake-up.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import type { Indexer } from '../../src/ingest/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { setupStore } from '../helpers/store.js';
import { buildIndexer, waitFor } from '../helpers/indexer-setup.js';
import { httpGetter } from '../helpers/api-oracle.js';
import { simulatorPrices } from '../helpers/ground-truth.js';

let sim: Simulator | undefined;
let indexer: Indexer | undefined;
let app: TestApp | undefined;
afterAll(async () => {
  await app?.close();
  await indexer?.stop();
  await sim?.stop();
});

async function firstLiveGame(s: Simulator): Promise<{ signature: string; slot: number } | undefined> {
  for await (const e of s.groundTruth()) {
    if (e.name === 'GameSettled' && e.slot >= s.startSlot) return { signature: e.signature, slot: e.slot };
  }
  return undefined;
}

describe('live tail', () => {
  // Polling only also runs with fresh transactions answering null for 2 s (a lagging node):
  // the tail keeps them pending and gets them on a later poll, still within 10 s.
  for (const mode of ['polling + logsSubscribe', 'polling only, null for 2 s'] as const) {
    it(`a game settled after start-up is listed by /events/settledGames within 10 s (${mode})`, async () => {
      await app?.close();
      await indexer?.stop();
      await sim?.stop();
      sim = await startSimulator({ seed: 7, days: 1, playsPerDay: 200, liveRate: 1, faults: mode === 'polling + logsSubscribe' ? undefined : 'null-tx=2' });
      const store = await setupStore();
      indexer = buildIndexer({
        rpcUrl: sim.rpcUrl,
        wsUrl: mode === 'polling + logsSubscribe' ? sim.wsUrl : undefined,
        store,
        prices: simulatorPrices(sim),
        backfillDays: 2,
        pollIntervalMs: 2000,
      });
      await indexer.start();
      await indexer.backfilled();
      app = await buildTestApp({ store, clock: new ManualClock(Date.now()), sync: indexer.controller });
      const get = httpGetter(app.baseUrl, app.key);

      // Wait for the simulator to confirm a game produced after start-up; time from then.
      let live: { signature: string; slot: number } | undefined;
      await waitFor(async () => (live = await firstLiveGame(sim!)) !== undefined, 20_000, 'a live game');
      const confirmedAt = Date.now();
      let seenAt: number | undefined;
      await waitFor(async () => {
        const r = await get('/events/settledGames', { itemsPerPage: 200 });
        if (r.body.results.some((g: { signature: string }) => g.signature === live!.signature)) seenAt = Date.now();
        return seenAt !== undefined;
      }, 15_000, 'the live game in /events/settledGames');
      expect(seenAt! - confirmedAt).toBeLessThan(10_000);
    });
  }
});
