/**
 * `serve` with its indexer in a child process (docs/architecture.md "Process topology"), each
 * `serve` a real process over the chain simulator:
 * - the indexer child SIGKILLed mid-backfill: the API keeps answering, the child is restarted,
 *   and the store and every API answer end equal to the simulator's ground truth (with a 30 s
 *   response cache: answers cached before the indexer's commits are not served after them);
 * - hundreds of concurrent POST /sync start exactly one pass (the indexer's own counter,
 *   `indexer_sync_passes_total{trigger="request"}` on METRICS_PORT) and name it (docs/design.md §5);
 * - `serve --workers 2`: the workers see the indexer's real state and their triggers reach it.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/index.js';
import { STATE_KEYS } from '../../src/ingest/index.js';
import { createKeyService } from '../../src/keys/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/index.js';
import { cliChild, childrenOf } from '../helpers/proc.js';
import { setupTestDatabase } from '../helpers/store.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';
import { waitFor } from '../helpers/indexer-setup.js';
import { freePort, spawnCli, type Proc } from '../helpers/scaleout.js';
import { expectApiMatchesOracle, httpGetter } from '../helpers/api-oracle.js';
import { groundTruth, oracleOf } from '../helpers/ground-truth.js';

async function mintKey(store: Store): Promise<string> {
  return (await createKeyService({ store: store.keys, clock: systemClock }).create({ name: 'e2e', tier: 'enterprise', rpm: 10_000_000, burst: 10_000_000 })).key;
}

/** `serve` over `sim` (not the demo: the test owns the simulator and its ground truth). */
async function startServe(sim: Simulator, databaseUrl: string, env: Record<string, string> = {}, args: string[] = []): Promise<Proc & { url: string }> {
  const p = spawnCli(['serve', '--port', '0', ...args], {
    DATABASE_URL: databaseUrl,
    SOLANA_RPC_URL: sim.rpcUrl,
    HERMES_URL: sim.hermesUrl,
    JUPITER_URL: sim.jupiterUrl,
    BACKFILL_DAYS: '3650',
    RPC_MAX_RPS: '100000',
    POLL_INTERVAL_MS: '200',
    ...env,
  });
  const m = await p.waitFor(/API listening on (http:\/\/\S+) /, 60_000);
  return Object.assign(p, { url: m[1]! });
}

/** Sum of a Prometheus series' values whose labels contain `labels` (0 when absent). */
async function scrape(port: number, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

type Trigger = { passId: string; alreadyRunning: boolean; scheduled: boolean; startedAt: string; syncing: boolean };

async function postSync(url: string, key: string, fresh = false): Promise<{ status: number; data: Trigger }> {
  const res = await fetch(`${url}/sync`, { method: 'POST', headers: { 'X-API-Key': key, ...(fresh ? { Connection: 'close' } : {}) } });
  const body = (await res.json()) as { data: Trigger };
  return { status: res.status, data: body.data };
}

/**
 * Coalesced answers (docs/design.md §5): exactly one call started a pass; every other one joined
 * it or the one pass scheduled `interval` ms after it.
 */
function expectCoalesced(answers: { status: number; data: Trigger }[], intervalMs: number): void {
  expect(answers.every((a) => a.status === 202), JSON.stringify(answers.filter((a) => a.status !== 202).slice(0, 3))).toBe(true);
  const started = answers.filter((a) => !a.data.alreadyRunning && !a.data.scheduled);
  expect(started).toHaveLength(1);
  const first = started[0]!.data;
  expect(first.passId).toMatch(/^pass_[0-9a-f]{16}$/);
  const scheduledIds = new Set<string>();
  for (const { data } of answers) {
    if (data.passId === first.passId) {
      expect(data.scheduled).toBe(false);
      expect(data.startedAt).toBe(first.startedAt);
    } else {
      expect(data).toMatchObject({ scheduled: true, alreadyRunning: false, startedAt: new Date(Date.parse(first.startedAt) + intervalMs).toISOString() });
      scheduledIds.add(data.passId);
    }
  }
  expect(scheduledIds.size).toBeLessThanOrEqual(1);
}

describe('serve: the indexer as a supervised child process', () => {
  it('indexer child SIGKILLed mid-backfill: the API keeps answering, the child restarts, the end state equals the ground truth', async () => {
    // Three hours old, no live games: the chain is fixed and no game falls in the last hour.
    const sim = await startSimulator({ seed: 91, days: 20, playsPerDay: 200, liveRate: 0, startTimeMs: Date.now() - 3 * 3_600_000, faults: 'slow=1@15' });
    const { store, db } = await setupTestDatabase();
    const key = await mintKey(store);
    const serve = await startServe(sim, db.databaseUrl, { CACHE_TTL_MS: '30000' });
    const get = httpGetter(serve.url, key);
    try {
      const truth = await groundTruth(sim);
      const first = cliChild(serve.proc.pid!, 'index');
      expect(first).toBeDefined();
      await waitFor(async () => (await store.queries.counts()).totalSignatures > 0, 60_000, 'the indexer to write');
      process.kill(first!.pid, 'SIGKILL');
      const atKill = (await store.queries.counts()).totalSignatures;
      expect(await store.getState(STATE_KEYS.backfillDone)).toBeUndefined();
      // Fill the response cache with answers from the middle of the backfill (they differ from the
      // truth). After the kill, so a loaded machine cannot finish the backfill meanwhile.
      await expectApiMatchesOracle(get, oracleOf(truth, Date.now())).catch(() => undefined);
      // While no indexer runs, the API answers (and says it is not syncing).
      for (let i = 0; i < 5; i++) {
        expect((await get('/health')).status).toBe(200);
        expect((await get('/stats')).status).toBe(200);
        expect((await get('/events/settledGames', { itemsPerPage: 20 })).status).toBe(200);
      }
      const restarted = await waitFor(() => {
        const c = cliChild(serve.proc.pid!, 'index');
        return c !== undefined && c.pid !== first!.pid;
      }, 30_000, 'a new indexer child').then(() => cliChild(serve.proc.pid!, 'index')!);
      expect(restarted.pid).not.toBe(first!.pid);

      await waitFor(async () => (await store.getState(STATE_KEYS.backfillDone)) !== undefined, 90_000, 'the restarted indexer to finish the backfill');
      await waitFor(async () => (await store.queries.counts()).unpricedGames === 0, 30_000, 'every game priced');
      expect(atKill).toBeLessThan((await store.queries.counts()).totalSignatures);
      expect(await storedEventLines(store, poolsOf(truth.events))).toEqual(expectedEventLines(truth.events));
      // Every answer over HTTP equals the oracle, though the cache (30 s) held mid-backfill answers.
      // The indexer's state reaches the API within a second.
      await waitFor(async () => (await get('/status')).body.syncing === false, 10_000, '/status syncing false');
      expect((await get('/status')).body.totalGames).toBe(truth.events.filter((e) => e.name === 'GameSettled').length);
      expect(await expectApiMatchesOracle(get, oracleOf(truth, Date.now()))).toBeGreaterThan(50);
      expect(serve.proc.exitCode).toBeNull();
      expect((await serve.stop()).code).toBe(0);
      expect(cliChild(serve.proc.pid!, 'index')).toBeUndefined();
    } finally {
      await serve.stop('SIGKILL');
      await sim.stop();
    }
  }, 240_000);

  it('hundreds of concurrent POST /sync start exactly one pass and share its id', async () => {
    const interval = 60_000;
    const sim = await startSimulator({ seed: 92, days: 2, playsPerDay: 150, liveRate: 1 });
    const { store, db } = await setupTestDatabase();
    // Several keys: one key may have only 72 requests in flight (docs/errors.md 429).
    const keys = await Promise.all(Array.from({ length: 4 }, () => mintKey(store)));
    const key = keys[0]!;
    const metricsPort = await freePort();
    // The tail polls rarely, so passes come from POST /sync only.
    const serve = await startServe(sim, db.databaseUrl, { POLL_INTERVAL_MS: '600000', SYNC_MIN_INTERVAL_MS: String(interval), METRICS_PORT: String(metricsPort) });
    try {
      await waitFor(async () => (await store.getState(STATE_KEYS.backfillDone)) !== undefined, 60_000, 'the backfill');
      expect(await scrape(metricsPort, 'indexer_sync_passes_total', 'trigger="request"')).toBe(0);
      const answers = await Promise.all(Array.from({ length: 240 }, (_, i) => postSync(serve.url, keys[i % keys.length]!)));
      expectCoalesced(answers, interval);
      // The counter is the indexer's own (its child process, aggregated on METRICS_PORT).
      await new Promise((r) => setTimeout(r, 1000));
      expect(await scrape(metricsPort, 'indexer_sync_passes_total', 'trigger="request"')).toBe(1);
      // The pass ran: lastSync moved to after its start.
      const startedAt = Date.parse(answers.find((a) => !a.data.alreadyRunning && !a.data.scheduled)!.data.startedAt);
      await waitFor(async () => {
        const s = (await (await fetch(`${serve.url}/status`, { headers: { 'X-API-Key': key } })).json()) as { lastSync: string | null };
        return s.lastSync !== null && Date.parse(s.lastSync) >= startedAt;
      }, 10_000, 'the triggered pass to end');
    } finally {
      await serve.stop();
      await sim.stop();
    }
  }, 120_000);

  it('serve --workers 2: every worker sees the indexer’s state and its triggers reach the one indexer', async () => {
    const interval = 60_000;
    const sim = await startSimulator({ seed: 93, days: 2, playsPerDay: 150, liveRate: 1 });
    const { store, db } = await setupTestDatabase();
    const key = await mintKey(store);
    const metricsPort = await freePort();
    const serve = await startServe(sim, db.databaseUrl, { POLL_INTERVAL_MS: '600000', SYNC_MIN_INTERVAL_MS: String(interval), METRICS_PORT: String(metricsPort), REDIS_URL: '' }, ['--workers', '2']);
    try {
      // Two workers and the indexer, all children of the primary.
      const kids = childrenOf(serve.proc.pid!).filter((c) => c.args.some((a) => a.endsWith('run-cli.js')));
      expect(kids.filter((c) => c.args.includes('serve'))).toHaveLength(2);
      expect(cliChild(serve.proc.pid!, 'index')).toBeDefined();
      expect(serve.output()).toMatch(/without REDIS_URL: each worker keeps its own rate-limit buckets/);
      await waitFor(async () => (await store.getState(STATE_KEYS.backfillDone)) !== undefined, 60_000, 'the backfill');
      // Fresh connections take turns between the workers: each answer carries the indexer's state
      // (an API process without it would say lastSync null, lagSlots null).
      await waitFor(async () => {
        const answers = await Promise.all(
          Array.from({ length: 6 }, async () => {
            const ready = (await (await fetch(`${serve.url}/ready`, { headers: { Connection: 'close' } })).json()) as { lagSlots: number | null };
            const status = (await (await fetch(`${serve.url}/status`, { headers: { 'X-API-Key': key, Connection: 'close' } })).json()) as { lastSync: string | null };
            return ready.lagSlots !== null && status.lastSync !== null;
          }),
        );
        return answers.every(Boolean);
      }, 10_000, 'every worker to report the indexer state');
      expect(await scrape(metricsPort, 'indexer_sync_passes_total', 'trigger="request"')).toBe(0);
      const answers = [];
      for (let i = 0; i < 8; i++) answers.push(await postSync(serve.url, key, true));
      expectCoalesced(answers, interval);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await scrape(metricsPort, 'indexer_sync_passes_total', 'trigger="request"')).toBe(1);
      expect((await serve.stop()).code).toBe(0);
    } finally {
      await serve.stop('SIGKILL');
      await sim.stop();
    }
  }, 120_000);
});
