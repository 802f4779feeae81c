import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { createCommon, createLogger } from '../src/core/index.js';
import { indexingOptions } from '../src/cli/runtime.js';
import { startIndexing, type HistorySourceKind } from '../src/ingest/index.js';
import { startSimulator } from '../src/simulator/index.js';
import { createStore } from '../src/store/index.js';

/** One history source's backfill of the same simulated chain. */
export interface SourceRun {
  source: HistorySourceKind;
  games: number;
  signatures: number;
  /** JSON-RPC requests the indexer sent from its start to `backfilled()` (batch items one by one; start-up and the tail's first pass included). */
  requests: number;
  requestsPer1000Games: number;
  /** requests / RPC_MAX_RPS: the least time at the configured cap, seconds. */
  secondsAtMaxRps: number;
  /** Wall time on the loopback simulator, seconds (simulator and indexer in this process). */
  wallSeconds: number;
}

/** The sources benchmark: the same chain backfilled through each history source, and the ratio of their requests. */
export interface SourcesFigures {
  days: number;
  playsPerDay: number;
  maxRps: number;
  runs: SourceRun[];
  /** rpc requests per 1,000 games ÷ helius requests per 1,000 games (target ≥ 50). */
  ratio: number;
  /** A year of this chain's history (playsPerDay × 365 games) per source: requests and hours at RPC_MAX_RPS. */
  perYear: { source: HistorySourceKind; games: number; requests: number; hoursAtMaxRps: number }[];
}

/** Target of docs/indexer.md "Chain sources": helius needs ≥ 50× fewer requests per 1,000 games than rpc. */
export const SOURCES_MIN_RATIO = 50;

/**
 * Backfills one simulated chain (`days` × `playsPerDay`, no live games) into a fresh SQLite file
 * through each HISTORY_SOURCE with the real indexer (startIndexing, as `index` runs it) and counts
 * the JSON-RPC requests it sent (docs/benchmarks.md "Chain sources").
 */
export async function measureSources(o: { days: number; playsPerDay: number; maxRps: number; log: (m: string) => void }): Promise<SourcesFigures> {
  const sim = await startSimulator({ seed: 11, days: o.days, playsPerDay: o.playsPerDay, liveRate: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'gamba-bench-sources-'));
  try {
    await sim.ready();
    const feeds = Object.fromEntries(sim.mints.filter((m) => m.pythFeedId).map((m) => [m.mint, m.pythFeedId!]));
    const runs: SourceRun[] = [];
    for (const source of ['rpc', 'helius'] as const) {
      const common = createCommon({ logger: createLogger({ level: 'warn' }) });
      const config = loadConfig(
        {},
        {
          solanaRpcUrl: sim.rpcUrl,
          hermesUrl: sim.hermesUrl,
          jupiterUrl: sim.jupiterUrl,
          historySource: source,
          // Requests are counted, not throttled: the time at RPC_MAX_RPS is derived from the count.
          rpcMaxRps: 100_000,
          backfillDays: o.days + 1,
          pollIntervalMs: 600_000,
          store: { kind: 'sqlite', path: join(dir, `${source}.db`) },
        },
      );
      const store = await createStore({ common, config: config.store });
      const t0 = performance.now();
      const { indexer, rpc, close } = await startIndexing(indexingOptions(config, { common, store, feeds, indexer: { progress: 'off', estimateAtRps: undefined } }));
      await indexer.backfilled();
      const requests = rpc.requests;
      const wallSeconds = (performance.now() - t0) / 1000;
      const c = await store.queries.counts();
      await close();
      await store.close();
      const run: SourceRun = {
        source,
        games: c.totalGames,
        signatures: c.totalSignatures,
        requests,
        requestsPer1000Games: Math.round((requests / Math.max(1, c.totalGames)) * 1000 * 10) / 10,
        secondsAtMaxRps: Math.round(requests / o.maxRps),
        wallSeconds: Math.round(wallSeconds * 10) / 10,
      };
      runs.push(run);
      o.log(`sources: ${source}: ${run.games} games, ${run.signatures} signatures, ${run.requests} requests (${run.requestsPer1000Games} per 1,000 games) in ${run.wallSeconds} s`);
    }
    const [rpcRun, heliusRun] = runs as [SourceRun, SourceRun];
    const ratio = Math.round((rpcRun.requestsPer1000Games / Math.max(0.001, heliusRun.requestsPer1000Games)) * 10) / 10;
    const yearGames = o.playsPerDay * 365;
    const perYear = runs.map((r) => {
      const requests = Math.round((r.requests / Math.max(1, r.games)) * yearGames);
      return { source: r.source, games: yearGames, requests, hoursAtMaxRps: Math.round((requests / o.maxRps / 3600) * 10) / 10 };
    });
    return { days: o.days, playsPerDay: o.playsPerDay, maxRps: o.maxRps, runs, ratio, perYear };
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
