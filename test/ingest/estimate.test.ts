/**
 * The start-up cost estimate (docs/indexer.md "Chain sources"): one getSignaturesForAddress sample
 * extrapolated over the range is close to the real number of transactions, and priced per source.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import type { IngestContext } from '../../src/ingest/batch.js';
import { estimateBackfill } from '../../src/ingest/estimate.js';
import { createHeliusHistory, createRpcHistory } from '../../src/ingest/sources/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { createRpcClient } from '../../src/solana/index.js';

let sim: Simulator | undefined;
afterAll(async () => {
  await sim?.stop();
});

describe('backfill estimate', () => {
  it('extrapolates one sample to within 25 % of the range, priced per source', async () => {
    // A fixed "now": the simulator's history follows a weekly rhythm, so a sample of its newest
    // transactions runs above or below the range's average rate by the hour of the week (over one
    // week of starts, the estimate over the history's 10 days was off by -6 % to +21 %). Pinned,
    // the test checks the same history at every run.
    const startTimeMs = Date.UTC(2026, 10, 23, 0);
    sim = await startSimulator({ seed: 5, days: 10, playsPerDay: 400, liveRate: 0, startTimeMs });
    const common = createCommon();
    const rpc = createRpcClient({ common, url: sim.rpcUrl, maxRps: 100_000 });
    const ctx = { common, rpc, programId: sim.programId, signal: new AbortController().signal } as unknown as IngestContext;
    // The real count: every signature of the program within the range.
    let total = 0;
    let before: string | undefined;
    for (;;) {
      const page = await rpc.getSignaturesForAddress(sim.programId, { before, limit: 1000 });
      total += page.length;
      if (page.length < 1000) break;
      before = page[page.length - 1]!.signature;
    }
    // The range is the history: from its first day (10 days before "now") to now.
    const cutoff = Math.floor((startTimeMs - 10 * 86_400_000) / 1000);
    const rpcEstimate = await estimateBackfill(ctx, { source: createRpcHistory(ctx, 1000), cursor: undefined, cutoff, maxRps: 50 });
    expect(Math.abs(rpcEstimate.transactions - total) / total).toBeLessThan(0.25);
    expect(rpcEstimate.requests).toBe(Math.ceil(rpcEstimate.transactions / 1000) + rpcEstimate.transactions);
    expect(rpcEstimate.seconds).toBe(Math.round(rpcEstimate.requests / 50));
    const helius = await estimateBackfill(ctx, { source: createHeliusHistory(ctx, 1000), cursor: undefined, cutoff, maxRps: 50 });
    expect(helius).toMatchObject({ source: 'helius', transactions: rpcEstimate.transactions, requests: Math.ceil(rpcEstimate.transactions / 100) + 1 });
  });
});
