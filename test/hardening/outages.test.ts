/**
 * Outages (docs/hardening.md), with nothing lost: the SQLite file write-locked by another process, and the
 * RPC node down (a proxy in front of the chain simulator cut, then restored). The API keeps
 * answering what it can, the indexer keeps retrying and resumes from its checkpoint, and the
 * store ends with exactly the simulator's ground truth. (PostgreSQL and Redis outages are
 * covered by the scale-out tests.)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { startSimulator } from '../../src/simulator/index.js';
import { createStore } from '../../src/store/index.js';
import { simulatorPrices, groundTruth } from '../helpers/ground-truth.js';
import { buildTestApp } from '../helpers/app.js';
import { buildIndexer, waitFor } from '../helpers/indexer-setup.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';
import { http } from '../helpers/api-operations.js';
import { startTcpProxy } from '../helpers/proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'gamba-outage-'));
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite file locked by another process', () => {
  test('reads keep being served; the indexer retries its writes and ends with exactly the ground truth', async () => {
    const sim = await startSimulator({ seed: 41, days: 5, playsPerDay: 120, liveRate: 0 });
    stops.push(() => sim.stop());
    const path = join(dir, 'locked.db');
    const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path } });
    stops.push(() => store.close());
    const t = await buildTestApp({ store });
    stops.push(() => t.close());

    // Another process takes the write lock before the indexer's first write.
    const other = new BetterSqlite3(path);
    other.exec('BEGIN IMMEDIATE');
    const indexer = buildIndexer({ rpcUrl: sim.rpcUrl, store, prices: simulatorPrices(sim), backfillDays: 6, options: { pageSize: 100 } });
    stops.push(() => indexer.stop());
    await indexer.start();
    await waitFor(() => indexer.controller.state().lastError !== null, 30_000, 'a failed write');
    expect(indexer.controller.state().lastError).toMatch(/locked|busy/i);
    expect((await store.queries.counts()).totalSignatures).toBe(0);

    // WAL: readers are not blocked by a writer's lock — the API answers from what it has.
    const stats = await http(t.baseUrl, '/stats', { key: t.key });
    expect(stats.status, stats.text).toBe(200);
    expect((await http(t.baseUrl, '/ready')).status).toBe(200);

    other.exec('ROLLBACK');
    other.close();
    await indexer.backfilled();
    await indexer.syncNow();
    const truth = await groundTruth(sim);
    expect(await storedEventLines(store, poolsOf(truth.events))).toEqual(expectedEventLines(truth.events));
    expect(indexer.controller.state().lastError).toBeNull();
  });
});

/** Whether this machine lets us mark a file immutable (root + ext4: yes; elsewhere the test is skipped). */
function canMakeImmutable(): boolean {
  const probe = join(dir, 'probe');
  writeFileSync(probe, '');
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.runIf(canMakeImmutable())('SQLite storage turns read-only mid-run (files made immutable)', () => {
  test('reads keep being served; failed writes are retried; ends with exactly the ground truth', async () => {
    const sim = await startSimulator({ seed: 45, days: 5, playsPerDay: 120, liveRate: 0, faults: 'slow=1@10' });
    stops.push(() => sim.stop());
    const path = join(dir, 'readonly.db');
    const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path } });
    stops.push(() => store.close());
    const t = await buildTestApp({ store });
    stops.push(() => t.close());
    // Two pages per backfill transaction (backfill.ts commitSignatures): writes happen mid-backfill.
    const indexer = buildIndexer({ rpcUrl: sim.rpcUrl, store, prices: simulatorPrices(sim), backfillDays: 6, options: { pageSize: 50, backfillCommitSignatures: 100 } });
    stops.push(() => indexer.stop());
    const files = [path, `${path}-wal`];
    const setImmutable = (on: boolean) => {
      for (const f of files) if (existsSync(f)) execFileSync('chattr', [on ? '+i' : '-i', f]);
    };
    stops.push(async () => setImmutable(false));
    await indexer.start();
    await waitFor(async () => (await store.queries.counts()).totalSignatures > 0, 30_000, 'first committed page');
    setImmutable(true);
    try {
      await waitFor(() => indexer.controller.state().lastError !== null, 30_000, 'a failed write');
      const stats = await http(t.baseUrl, '/stats', { key: t.key });
      // Reads need no write: served (200) — or, if the driver cannot read either, a clean 503.
      expect([200, 503], stats.text).toContain(stats.status);
      if (stats.status === 503) expect(stats.body.code).toBe('STORE_UNAVAILABLE');
      if (process.env.HARDENING_VERBOSE) console.log('read-only:', indexer.controller.state().lastError, '/stats →', stats.status);
      expect(indexer.controller.state().backfillDone).toBe(false);
    } finally {
      setImmutable(false);
    }
    await indexer.backfilled();
    await indexer.syncNow();
    const truth = await groundTruth(sim);
    expect(await storedEventLines(store, poolsOf(truth.events))).toEqual(expectedEventLines(truth.events));
    expect((await http(t.baseUrl, '/stats', { key: t.key })).status).toBe(200);
  });
});

describe('RPC node down', () => {
  test('cut mid-backfill: the API keeps answering, the indexer retries, resumes from its checkpoint, nothing lost', async () => {
    // Every answer a little late, so the backfill is still running when the line is cut.
    const sim = await startSimulator({ seed: 43, days: 6, playsPerDay: 150, liveRate: 0, faults: 'slow=1@15' });
    stops.push(() => sim.stop());
    const proxy = await startTcpProxy(sim.rpcUrl);
    stops.push(() => proxy.close());
    const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'rpc.db') } });
    stops.push(() => store.close());
    // Two pages per backfill transaction (backfill.ts commitSignatures): the cut lands mid-backfill.
    const indexer = buildIndexer({ rpcUrl: proxy.url, store, prices: simulatorPrices(sim), backfillDays: 7, options: { pageSize: 50, backfillCommitSignatures: 100, errorDelayMs: 50 } });
    stops.push(() => indexer.stop());
    const t = await buildTestApp({ store, sync: indexer.controller });
    stops.push(() => t.close());
    await indexer.start();

    await waitFor(async () => (await store.queries.counts()).totalSignatures > 0, 30_000, 'first committed page');
    proxy.cut();
    const atCut = (await store.queries.counts()).totalSignatures;
    // Down for a while: several failed passes, retried with backoff (capped at 30 s, never giving up).
    await waitFor(() => proxy.refused >= 5 && indexer.controller.state().lastError !== null, 30_000, 'failed retries while down');
    const during = (await store.queries.counts()).totalSignatures;
    expect(during).toBeGreaterThanOrEqual(atCut);
    expect(indexer.controller.state().backfillDone).toBe(false);
    // The API still serves what is indexed, and a triggered sync is accepted (it runs when it can).
    const status = await http(t.baseUrl, '/status', { key: t.key });
    expect(status.status).toBe(200);
    expect(status.body.totalGames).toBeGreaterThanOrEqual(0);
    expect((await http(t.baseUrl, '/sync', { method: 'POST', key: t.key })).status).toBe(202);
    expect((await http(t.baseUrl, '/ready')).status).toBe(200);

    proxy.forward();
    await indexer.backfilled();
    await indexer.syncNow();
    const truth = await groundTruth(sim);
    expect(await storedEventLines(store, poolsOf(truth.events))).toEqual(expectedEventLines(truth.events));
    const counts = await store.queries.counts();
    expect(counts.totalGames).toBe(truth.events.filter((e) => e.name === 'GameSettled').length);
    expect(counts.unpricedGames).toBe(0);
    expect(counts.totalSignatures).toBeGreaterThan(during);
  });
});
