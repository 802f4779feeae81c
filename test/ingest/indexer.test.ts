/**
 * The indexer over a JSON-RPC node whose chain the test controls exactly (ledger.ts), fed with
 * the contract fixture: backfill + tail → store → HTTP API equals the brute-force oracle, and the
 * edge cases of docs/design.md §5 (null transactions, failed transactions, unknown `until`, cutoff,
 * stop/restart, POST /sync coalescing, re-pricing).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, createCommon } from '../../src/core/index.js';
import { STATE_KEYS, type Indexer } from '../../src/ingest/index.js';
import { createOverridesSource } from '../../src/prices/index.js';
import { createOracle } from '../helpers/bruteforce.js';
import { buildTestApp } from '../helpers/app.js';
import { generateFixture } from '../helpers/fixture.js';
import { setupStore } from '../helpers/store.js';
import { expectApiMatchesOracle, httpGetter } from '../helpers/api-oracle.js';
import { fakeSignature, fixtureTransactions, startLedger, type Ledger, type LedgerTx } from '../helpers/ledger.js';
import { buildIndexer, overridesFromPrices, waitFor } from '../helpers/indexer-setup.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
function track(x: Indexer | Ledger | { close(): Promise<void> }) {
  cleanups.push(() => ('stop' in x ? x.stop() : x.close()));
  return x;
}

const fixture = generateFixture({ seed: 4242, games: 1200, poolChanges: 120 });
const { txs: fixtureTxs, extraSignatures } = fixtureTransactions(fixture.events);
const failedCount = fixtureTxs.filter((t) => t.err).length;

describe('indexer over a controlled chain (fixture)', () => {
  it('backfill + tail → store → API equals the oracle for every operation; each transaction fetched once, failed ones never', async () => {
    const ledger = track(await startLedger({ txs: fixtureTxs, mints: fixture.mints, finalizedDepth: 40 })) as Ledger;
    const store = await setupStore();
    const clock = new ManualClock(fixture.nowMs);
    const indexer = track(buildIndexer({ rpcUrl: ledger.url, store, clock, overrides: overridesFromPrices(fixture.prices), backfillDays: 500, options: { pageSize: 150 } })) as Indexer;
    await indexer.start();
    await indexer.backfilled();
    await indexer.syncNow();
    expect(indexer.controller.state()).toMatchObject({ backfillDone: true, lastError: null });

    expect(await storedEventLines(store, poolsOf(fixture.events))).toEqual(expectedEventLines(fixture.events));
    const counts = await store.queries.counts();
    expect(counts.totalSignatures).toBe(fixture.signatures.length + extraSignatures.length);
    expect(counts.skipped.failed_transaction ?? 0).toBe(failedCount);
    expect(ledger.calls.get('getTransaction')).toBe(fixtureTxs.length - failedCount);

    const app = track(await buildTestApp({ store, clock, sync: indexer.controller })) as Awaited<ReturnType<typeof buildTestApp>>;
    const checks = await expectApiMatchesOracle(httpGetter(app.baseUrl, app.key), createOracle(fixture));
    expect(checks).toBeGreaterThan(50);
    const status = await httpGetter(app.baseUrl, app.key)('/sync/status');
    expect(status.body.data.totalGames).toBe(fixture.events.filter((e) => e.name === 'GameSettled').length);
  });

  it('never moves a checkpoint past a transaction that comes back null, and indexes it once it appears', async () => {
    const ledger = track(await startLedger({ txs: fixtureTxs, mints: fixture.mints })) as Ledger;
    // A transaction in the middle of history is unavailable until released.
    const ordered = [...fixtureTxs].sort((a, b) => b.slot - a.slot || (a.signature < b.signature ? 1 : -1));
    const hole = ordered.findIndex((t, i) => i > 300 && !t.err && t.events.length > 0);
    const holeSig = ordered[hole]!.signature;
    let released = false;
    ledger.nullIf = (sig) => sig === holeSig && !released;
    const store = await setupStore();
    const indexer = track(buildIndexer({ rpcUrl: ledger.url, store, clock: new ManualClock(fixture.nowMs), backfillDays: 500, options: { pageSize: 100 } })) as Indexer;
    await indexer.start();
    // The backfill commits up to the hole and stops right before it.
    await waitFor(async () => (await store.getState(STATE_KEYS.backfillCursor))?.includes(ordered[hole - 1]!.signature) ?? false, 10_000, 'cursor before the hole');
    await new Promise((r) => setTimeout(r, 300));
    expect(JSON.parse((await store.getState(STATE_KEYS.backfillCursor))!).signature).toBe(ordered[hole - 1]!.signature);
    const older = ordered.slice(hole).map((t) => t.signature);
    expect((await store.knownSignatures(older)).size).toBe(0);
    expect(indexer.controller.state().syncing).toBe(true);
    released = true;
    await indexer.backfilled();
    await indexer.syncNow();
    expect(await storedEventLines(store, poolsOf(fixture.events))).toEqual(expectedEventLines(fixture.events));
  });

  it('stops cleanly mid-backfill and a new indexer resumes from the checkpoint: no loss, no duplicate, no refetch', async () => {
    // A little latency per request, so the stop lands mid-backfill however fast the machine.
    const ledger = track(await startLedger({ txs: fixtureTxs, mints: fixture.mints, delayMs: 5 })) as Ledger;
    const store = await setupStore();
    // Transactions of three pages (backfill.ts commitSignatures): the checkpoint moves per group.
    const first = buildIndexer({ rpcUrl: ledger.url, store, clock: new ManualClock(fixture.nowMs), backfillDays: 500, options: { pageSize: 100, backfillCommitSignatures: 300 } });
    await first.start();
    await waitFor(async () => (await store.queries.counts()).totalSignatures >= 300, 20_000, 'part of the backfill');
    await first.stop();
    const partial = (await store.queries.counts()).totalSignatures;
    expect(partial).toBeLessThan(fixtureTxs.length);
    const fetchedBefore = ledger.calls.get('getTransaction') ?? 0;
    const second = track(buildIndexer({ rpcUrl: ledger.url, store, clock: new ManualClock(fixture.nowMs), backfillDays: 500, options: { pageSize: 100 } })) as Indexer;
    await second.start();
    await second.backfilled();
    await second.syncNow();
    expect(await storedEventLines(store, poolsOf(fixture.events))).toEqual(expectedEventLines(fixture.events));
    expect((await store.queries.counts()).totalSignatures).toBe(fixtureTxs.length);
    // The restart fetched only what the first run had not committed: at most the pages it held
    // for its next transaction (< 300 signatures) and the two fetched ahead.
    const refetched = (ledger.calls.get('getTransaction') ?? 0) - fetchedBefore;
    expect(refetched).toBeLessThanOrEqual(fixtureTxs.length - failedCount - (partial - failedCount) + 300 + 200);
  });

  it('backfills only BACKFILL_DAYS back (by blockTime), and further back when it is raised', async () => {
    const ledger = track(await startLedger({ txs: fixtureTxs, mints: fixture.mints, delayMs: 5 })) as Ledger;
    const store = await setupStore();
    const indexer = track(buildIndexer({ rpcUrl: ledger.url, store, clock: new ManualClock(fixture.nowMs), backfillDays: 30 })) as Indexer;
    await indexer.start();
    await indexer.backfilled();
    await indexer.syncNow();
    const cutoff = fixture.nowMs / 1000 - 30 * 86_400;
    const recent = fixture.events.filter((e) => e.blockTime >= cutoff);
    expect(recent.length).toBeGreaterThan(50);
    expect(recent.length).toBeLessThan(fixture.events.length);
    expect(await storedEventLines(store, poolsOf(fixture.events))).toEqual(expectedEventLines(recent));
    await indexer.stop();

    // BACKFILL_DAYS raised: the next start extends the backfill from where it stopped — even
    // when that run is interrupted before it finishes (the old "done" mark must not stick).
    const wider = buildIndexer({ rpcUrl: ledger.url, store, clock: new ManualClock(fixture.nowMs), backfillDays: 500, options: { pageSize: 100, backfillCommitSignatures: 100 } });
    const before = (await store.queries.counts()).totalSignatures;
    await wider.start();
    await waitFor(async () => (await store.queries.counts()).totalSignatures > before, 10_000, 'the extension to start');
    await wider.stop();
    expect(await store.getState(STATE_KEYS.backfillDone)).toBe('');
    const again = track(buildIndexer({ rpcUrl: ledger.url, store, clock: new ManualClock(fixture.nowMs), backfillDays: 500 })) as Indexer;
    await again.start();
    await again.backfilled();
    await again.syncNow();
    expect(again.controller.state().backfillDone).toBe(true);
    expect(await storedEventLines(store, poolsOf(fixture.events))).toEqual(expectedEventLines(fixture.events));
  });

  it('commits the backfill in transactions of whole pages holding at least backfillCommitSignatures signatures, its first page alone', async () => {
    const ledger = track(await startLedger({ txs: fixtureTxs, mints: fixture.mints })) as Ledger;
    const store = await setupStore();
    // The real store, observed: every transaction the indexer commits, in order.
    const batches: { signatures: number; cursor: string | undefined }[] = [];
    const observed = {
      ...store,
      writeBatch: (b: Parameters<typeof store.writeBatch>[0]) => {
        batches.push({ signatures: b.signatures?.length ?? 0, cursor: b.state?.[STATE_KEYS.backfillCursor] });
        return store.writeBatch(b);
      },
    };
    const indexer = track(buildIndexer({ rpcUrl: ledger.url, store: observed, clock: new ManualClock(fixture.nowMs), backfillDays: 500, options: { pageSize: 100, backfillCommitSignatures: 250 } })) as Indexer;
    await indexer.start();
    await indexer.backfilled();
    const backfill = batches.filter((b) => b.cursor !== undefined);
    // The newest page alone (queryable at once), then three full pages per transaction
    // (≥ 250 signatures), the rest of the history in the last one.
    expect(backfill.length).toBe(1 + Math.ceil((fixtureTxs.length - 100) / 300));
    expect(backfill[0]!.signatures).toBe(100);
    for (const b of backfill.slice(1, -1)) expect(b.signatures).toBe(300);
    expect(backfill.reduce((n, b) => n + b.signatures, 0)).toBe(fixtureTxs.length);
    // Each checkpoint is the oldest signature of its transaction: the 100th, 400th, 700th, … newest.
    const ordered = [...fixtureTxs].sort((a, b) => b.slot - a.slot || (a.signature < b.signature ? 1 : -1));
    backfill.slice(0, -1).forEach((b, i) => expect(JSON.parse(b.cursor!).signature).toBe(ordered[100 + 300 * i - 1]!.signature));
    await indexer.syncNow();
    expect(await storedEventLines(store, poolsOf(fixture.events))).toEqual(expectedEventLines(fixture.events));
  });
});

describe('live tail', () => {
  const base = fixtureTxs.filter((t) => t.blockTime < fixture.nowMs / 1000 - 86_400);
  const mkTx = (i: number, slot: number, blockTime: number, template: LedgerTx): LedgerTx => ({
    signature: fakeSignature(`live-${i}`),
    slot,
    blockTime,
    events: template.events,
    style: 'logs',
  });

  it('picks up new transactions, pages back over more than a page, and coalesces POST /sync', async () => {
    const ledger = track(await startLedger({ txs: base, mints: fixture.mints, finalizedDepth: 5 })) as Ledger;
    const store = await setupStore();
    const indexer = track(buildIndexer({ rpcUrl: ledger.url, store, clock: new ManualClock(fixture.nowMs), backfillDays: 500, pollIntervalMs: 60_000, options: { pageSize: 50 } })) as Indexer;
    await indexer.start();
    await indexer.backfilled();
    await indexer.syncNow();
    const before = (await store.queries.counts()).totalSignatures;
    expect(before).toBe(base.length);

    // 130 new transactions (more than two tail pages of 50), some in one slot.
    const template = base.find((t) => t.events.length === 1 && t.events[0]!.name === 'GameSettled')!;
    const top = Math.max(...base.map((t) => t.slot));
    const added = Array.from({ length: 130 }, (_, i) => mkTx(i, top + 1 + Math.floor(i / 3), fixture.nowMs / 1000 - 600 + i, template));
    for (const t of added) ledger.add(t);

    const t1 = await indexer.controller.trigger();
    const t2 = await indexer.controller.trigger();
    expect(t1.alreadyRunning).toBe(false);
    expect(t1.scheduled).toBe(false);
    expect(t2).toEqual({ passId: t1.passId, alreadyRunning: true, scheduled: false, startedAt: t1.startedAt });
    expect(indexer.controller.state().syncing).toBe(true);
    await waitFor(() => !indexer.controller.state().syncing, 10_000, 'triggered pass');
    expect(indexer.controller.state().lastSync).not.toBeNull();
    expect((await store.queries.counts()).totalSignatures).toBe(base.length + added.length);
    expect((await store.knownSignatures(added.map((t) => t.signature))).size).toBe(added.length);
    expect(indexer.controller.state().lagSlots).toBe(0);
  });

  it('stops at the checkpoint slot when the node ignores an unknown `until`', async () => {
    const ledger = track(await startLedger({ txs: base, mints: fixture.mints })) as Ledger;
    const store = await setupStore();
    const indexer = track(buildIndexer({ rpcUrl: ledger.url, store, clock: new ManualClock(fixture.nowMs), backfillDays: 500, pollIntervalMs: 60_000, options: { pageSize: 50 } })) as Indexer;
    await indexer.start();
    await indexer.backfilled();
    await indexer.syncNow();
    const cursor = JSON.parse((await store.getState(STATE_KEYS.tailCursor))!).signature as string;
    ledger.forgetForUntil.add(cursor);
    const template = base.find((t) => t.events.length === 1)!;
    const top = Math.max(...base.map((t) => t.slot));
    for (let i = 0; i < 3; i++) ledger.add(mkTx(1000 + i, top + 1 + i, fixture.nowMs / 1000 - 60 + i, template));
    const queriesBefore = ledger.signatureQueries.length;
    const fetchedBefore = ledger.calls.get('getTransaction') ?? 0;
    await indexer.syncNow();
    // One page: the walk stopped at the first signature below the checkpoint's slot.
    expect(ledger.signatureQueries.length - queriesBefore).toBe(1);
    expect((ledger.calls.get('getTransaction') ?? 0) - fetchedBefore).toBe(3);
    expect((await store.queries.counts()).totalSignatures).toBe(base.length + 3);
  });
});

describe('prices during ingest', () => {
  it('stores games un-priced when a price or decimals are missing, and re-prices them when they arrive', async () => {
    const sol = fixture.tokens.SOL;
    const usdc = fixture.tokens.USDC;
    const txs = fixtureTxs.filter((t) => t.events.every((e) => e.data.tokenMint === sol || e.data.tokenMint === usdc)).slice(-300);
    // The node does not know the USDC mint account yet: no decimals.
    const mints = fixture.mints.filter((m) => m.mint !== usdc);
    const ledger = track(await startLedger({ txs, mints, finalizedDepth: 0 })) as Ledger;
    const store = await setupStore();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ovr-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'prices.json');
    fs.writeFileSync(file, JSON.stringify({ [usdc]: 1 }));
    const common = createCommon({ clock: new ManualClock(fixture.nowMs) });
    const indexer = track(buildIndexer({ rpcUrl: ledger.url, store, clock: common.clock, prices: createOverridesSource({ common, file }), backfillDays: 500 })) as Indexer;
    await indexer.start();
    await indexer.backfilled();
    await indexer.syncNow();
    const games = (e: LedgerTx['events'][number]) => e.name === 'GameSettled';
    const nGames = txs.flatMap((t) => t.events).filter(games).length;
    const c1 = await store.queries.counts();
    expect(c1.totalGames).toBe(nGames);
    expect(c1.unpricedGames).toBe(nGames); // SOL: no price; USDC: no decimals
    expect(await indexer.repriceNow()).toBe(0);

    // Decimals still unknown for USDC → its games stay un-priced; SOL gets a price from the operator file.
    fs.writeFileSync(file, JSON.stringify({ [usdc]: 1, [sol]: 150 }));
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    // (the pricer asks again for a missed hour only after 5 min: move the clock)
    (common.clock as ManualClock).advance(301_000);
    const nSol = txs.flatMap((t) => t.events).filter((e) => games(e) && e.data.tokenMint === sol).length;
    expect(await indexer.repriceNow()).toBe(nSol);
    expect((await store.queries.counts()).unpricedGames).toBe(nGames - nSol);
  });
});
