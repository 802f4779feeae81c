import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { createCommon, createLogger } from '../src/core/index.js';
import { indexingOptions } from '../src/cli/runtime.js';
import { startIndexing, type HistorySourceKind, type LiveSourceKind } from '../src/ingest/index.js';
import { slotTimeMs } from '../src/simulator/chain/index.js';
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

/** Game-to-store freshness of one live source: from a game's slot time to the first poll of the store that lists it. */
export interface FreshnessRun {
  live: LiveSourceKind;
  games: number;
  /** ms from the game's slot time (the simulator's clock, 400 ms slots) to being listed by the settled-games query. */
  p50: number;
  p99: number;
  max: number;
}

/** The freshness benchmark: one simulator with live games, indexed through each LIVE_SOURCE. */
export interface FreshnessFigures {
  seconds: number;
  liveRate: number;
  pollIntervalMs: number;
  runs: FreshnessRun[];
}

/** Target of docs/indexer.md "Chain sources": with yellowstone, p99 game-to-API ≤ 2 s on the simulator. */
export const FRESHNESS_P99_MS = 2000;

/**
 * Game-to-API freshness per LIVE_SOURCE (docs/benchmarks.md "Chain sources"): a simulator with
 * `liveRate` new games per second (and Yellowstone gRPC) is indexed by the real indexer
 * (startIndexing, POLL_INTERVAL_MS 2000 as deployed); after the backfill, for `seconds` the
 * store's settled-games query (what `/events/settledGames` runs; the API's response cache is
 * invalidated by the indexer's commits) is read every 50 ms, and each new game's first sighting
 * is compared with its slot's time.
 */
export async function measureFreshness(o: { seconds: number; liveRate: number; log: (m: string) => void }): Promise<FreshnessFigures> {
  const pollIntervalMs = 2000;
  const runs: FreshnessRun[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'gamba-bench-fresh-'));
  try {
    for (const live of ['poll', 'yellowstone'] as const) {
      const sim = await startSimulator({ seed: 12, days: 1, playsPerDay: 200, liveRate: o.liveRate, yellowstone: true });
      try {
        const common = createCommon({ logger: createLogger({ level: 'warn' }) });
        const config = loadConfig(
          {},
          {
            solanaRpcUrl: sim.rpcUrl,
            hermesUrl: sim.hermesUrl,
            jupiterUrl: sim.jupiterUrl,
            liveSource: live,
            yellowstoneUrl: sim.yellowstoneUrl,
            rpcMaxRps: 100_000,
            backfillDays: 2,
            pollIntervalMs,
            store: { kind: 'sqlite', path: join(dir, `${live}.db`) },
          },
        );
        const feeds = Object.fromEntries(sim.mints.filter((m) => m.pythFeedId).map((m) => [m.mint, m.pythFeedId!]));
        const store = await createStore({ common, config: config.store });
        const { indexer, close } = await startIndexing(indexingOptions(config, { common, store, feeds, indexer: { progress: 'off', estimateAtRps: undefined } }));
        await indexer.backfilled();
        const startSlot = sim.slot('processed');
        const seen = new Map<string, number>();
        const end = Date.now() + o.seconds * 1000;
        while (Date.now() < end) {
          const page = await store.queries.settledGames({ itemsPerPage: 100, page: 0, onlyJackpots: false, orderBy: 'time', sorting: 'DESC' });
          const now = Date.now();
          for (const g of page.results) if (!seen.has(g.signature)) seen.set(g.signature, now);
          await new Promise((r) => setTimeout(r, 50));
        }
        const lastSlot = sim.slot('confirmed');
        await close();
        await store.close();
        const lags: number[] = [];
        for await (const e of sim.groundTruth({ maxSlot: lastSlot - 10 })) {
          if (e.name !== 'GameSettled' || e.slot <= startSlot + 5) continue;
          const at = seen.get(e.signature);
          // A game never seen within the window counts as the whole window late.
          lags.push(at === undefined ? o.seconds * 1000 : at - slotTimeMs(e.slot));
        }
        lags.sort((a, b) => a - b);
        const q = (p: number) => Math.round(lags[Math.min(lags.length - 1, Math.floor(p * lags.length))] ?? NaN);
        const run: FreshnessRun = { live, games: lags.length, p50: q(0.5), p99: q(0.99), max: Math.round(lags[lags.length - 1] ?? NaN) };
        runs.push(run);
        o.log(`freshness: ${live}: ${run.games} live games, game-to-API p50 ${run.p50} ms, p99 ${run.p99} ms, max ${run.max} ms`);
      } finally {
        await sim.stop();
      }
    }
    return { seconds: o.seconds, liveRate: o.liveRate, pollIntervalMs, runs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
