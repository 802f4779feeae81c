/**
 * Faults (docs/indexer.md): with the simulator injecting ~10 % errors of each kind (HTTP 429 with
 * Retry-After, HTTP 503, JSON-RPC -32005, slow answers, null transactions), the indexed result
 * is identical to the fault-free one — same events, same counts, same USD.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCommon, type Common } from '../../src/core/index.js';
import type { Indexer } from '../../src/ingest/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/index.js';
import { usdClose } from '../helpers/compare.js';
import { setupStore } from '../helpers/store.js';
import { buildIndexer } from '../helpers/indexer-setup.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';
import { groundTruth, simulatorPrices } from '../helpers/ground-truth.js';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s();
});

async function indexOnce(faults: string | undefined, startTimeMs: number): Promise<{ sim: Simulator; store: Store; indexer: Indexer; common: Common }> {
  const common = createCommon();
  const sim = await startSimulator({ seed: 31, days: 7, playsPerDay: 150, liveRate: 0, startTimeMs, faults });
  stops.push(() => sim.stop());
  const store = await setupStore();
  const indexer = buildIndexer({ rpcUrl: sim.rpcUrl, store, common, prices: simulatorPrices(sim), backfillDays: 8, options: { pageSize: 250 } });
  stops.push(() => indexer.stop());
  await indexer.start();
  await indexer.backfilled();
  await indexer.syncNow();
  return { sim, store, indexer, common };
}

describe('fault injection', () => {
  it('429 / 503 / -32005 / slow / null transactions: identical indexed result', async () => {
    const startTimeMs = Date.now();
    const clean = await indexOnce(undefined, startTimeMs);
    const faulty = await indexOnce('429=0.1,retry-after=1,503=0.1,unhealthy=0.1,slow=0.1@300,null-tx=30', startTimeMs);
    const truth = await groundTruth(clean.sim);
    const pools = poolsOf(truth.events);
    const cleanLines = await storedEventLines(clean.store, pools);
    expect(cleanLines).toEqual(expectedEventLines(truth.events));
    expect(await storedEventLines(faulty.store, pools)).toEqual(cleanLines);
    const [a, b] = [await clean.store.queries.counts(), await faulty.store.queries.counts()];
    // USD totals are doubles summed in the store's row order, which the faults change on
    // PostgreSQL (docs/design.md §3): equal within the contract tests' tolerance, everything else exactly.
    expect({ ...b, totalVolumeUsd: 0 }).toEqual({ ...a, totalVolumeUsd: 0 });
    expect(usdClose(b.totalVolumeUsd, a.totalVolumeUsd), `${b.totalVolumeUsd} vs ${a.totalVolumeUsd}`).toBe(true);
    expect(b.unpricedGames).toBe(0);
    // The faults did happen and were retried.
    const errors = await metricValues(faulty.common, 'rpc_errors_total');
    for (const kind of ['http_429', 'http_503', 'rpc_-32005']) expect(errors.get(kind) ?? 0, kind).toBeGreaterThan(0);
    expect(sum(await metricValues(faulty.common, 'rpc_retries_total'))).toBeGreaterThan(10);
    expect(sum(await metricValues(clean.common, 'rpc_errors_total'))).toBe(0);
  });
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
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
