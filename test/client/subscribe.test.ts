/**
 * The SDK's live-stream subscription (packages/client `subscribe`; docs/design.md §11) against the
 * real API over a socket, through a TCP proxy (test/helpers/proxy.ts) that drops the connections
 * while the write path keeps filling the store: the iterator reconnects on its own with
 * `Last-Event-ID` = the last id it yielded, and what it yields in all is exactly the brute-force
 * oracle's games indexed after it connected — in order, none missing, none twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import { createIndexerEvents, type IndexerEventHub } from '../../src/ingest/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import type { Store } from '../../src/store/index.js';
import { GambaApiError, createClient, rowToBigInts, type StreamEvent } from '../../packages/client/src/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createOracle, type Oracle } from '../helpers/bruteforce.js';
import { expectJson } from '../helpers/compare.js';
import { writeAnnounced } from '../helpers/announced-writes.js';
import { generateFixture, type Fixture } from '../helpers/fixture.js';
import { startTcpProxy, type TcpProxy } from '../helpers/proxy.js';
import { setupStore } from '../helpers/store.js';

let fixture: Fixture;
let oracle: Oracle;
let store: Store;
let hub: IndexerEventHub;
let app: TestApp;
let proxy: TcpProxy;
/** Events not written yet, in chain order; `writeUntil` moves them into the store. */
let rest: LocatedEvent[];
let boundaryMs: number;

/** Writes the remaining events with block time < `untilMs` in transaction-aligned batches, announcing each commit (as `serve` relays the indexer's). */
async function writeUntil(untilMs: number): Promise<void> {
  const now = rest.filter((e) => e.blockTime * 1000 < untilMs);
  rest = rest.filter((e) => e.blockTime * 1000 >= untilMs);
  await writeAnnounced(store, fixture, now, hub, 40);
}

const gamesFrom = (fromMs: number, q: Record<string, unknown> = {}) =>
  oracle.settledGamesAll({ orderBy: 'time', sorting: 'ASC', onlyJackpots: false, ...q } as any).filter((g) => g.time >= fromMs);

async function until(cond: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  fixture = generateFixture({ seed: 7171, games: 1500, poolChanges: 150 });
  oracle = createOracle(fixture);
  store = await setupStore();
  await store.upsertMints(fixture.mints);
  await store.putPrices(fixture.prices);
  rest = [...fixture.events];
  const times = [...new Set(fixture.events.map((e) => e.blockTime * 1000))].sort((a, b) => a - b);
  boundaryMs = times[Math.floor(times.length * 0.7)]!;
  await writeUntil(boundaryMs);
  hub = createIndexerEvents();
  app = await buildTestApp({ store, clock: new ManualClock(fixture.nowMs), events: hub, options: { stream: { heartbeatMs: 200, settleMs: 50, maxPerKey: 10 } } });
  proxy = await startTcpProxy(app.baseUrl);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await app?.close();
});

describe('subscribe', () => {
  it('reconnects with Last-Event-ID after the connection drops (twice, once mid-delivery): no gap, no duplicate', async () => {
    const streamRequests: { lastEventId: string | null }[] = [];
    const reconnects: (string | undefined)[] = [];
    const client = createClient({
      baseUrl: proxy.url,
      apiKey: app.key,
      fetch: async (request) => {
        if (new URL(request.url).pathname === '/stream/settledGames') streamRequests.push({ lastEventId: request.headers.get('last-event-id') });
        return fetch(request);
      },
    });
    const ctl = new AbortController();
    const got: StreamEvent<'settledGames'>[] = [];
    const consumer = (async () => {
      for await (const ev of client.subscribe('settledGames', {}, { signal: ctl.signal, reconnectDelayMs: 100, maxReconnects: 200, onReconnect: (i) => reconnects.push(i.lastEventId) })) got.push(ev);
    })();
    // Connected: the stream starts after the newest game stored at connect.
    await until(() => streamRequests.length === 1, 'the first connection');
    await new Promise((r) => setTimeout(r, 300));

    const later = [...new Set(rest.map((e) => e.blockTime * 1000))].sort((a, b) => a - b);
    const t1 = later[Math.floor(later.length / 3)]!;
    const t2 = later[Math.floor((later.length * 2) / 3)]!;
    const part1 = gamesFrom(boundaryMs).filter((g) => g.time < t1);
    expect(part1.length).toBeGreaterThan(40);

    // 1. The first third arrives; the connection drops after it; more games are indexed while it is down.
    await writeUntil(t1);
    await until(() => got.length >= part1.length, 'the first third');
    proxy.cut();
    await writeUntil(t2);
    await new Promise((r) => setTimeout(r, 400));
    proxy.forward();
    const upToT2 = gamesFrom(boundaryMs).filter((g) => g.time < t2);
    await until(() => got.length >= upToT2.length, 'the second third after the reconnect');
    const firstResume = streamRequests.findIndex((r) => r.lastEventId !== null);
    expect(firstResume).toBeGreaterThan(0);
    expect(streamRequests[firstResume]!.lastEventId).toBe(got[part1.length - 1]!.id);

    // 2. The connection drops while the last third is being delivered.
    const writing = writeUntil(Number.MAX_SAFE_INTEGER);
    await until(() => got.length > upToT2.length + 5, 'the first events of the last third');
    proxy.cut();
    const cutAt = got.length;
    await writing;
    await new Promise((r) => setTimeout(r, 300));
    proxy.forward();
    const all = gamesFrom(boundaryMs);
    await until(() => got.length >= all.length, 'every game');
    await new Promise((r) => setTimeout(r, 400)); // nothing more may come
    ctl.abort();
    await consumer;

    expect(proxy.refused).toBeGreaterThan(0);
    expect(reconnects.length).toBeGreaterThanOrEqual(2);
    const lastIds = streamRequests.map((r) => r.lastEventId).filter((x) => x !== null);
    expect(lastIds.length).toBeGreaterThanOrEqual(2);
    // Every resume asked for the events after one the iterator had yielded.
    const yieldedIds = new Set(got.map((e) => e.id));
    expect(lastIds.every((id) => yieldedIds.has(id!))).toBe(true);
    // The last resume went on from where the second drop left the iterator (events already buffered may have come after the cut).
    expect(got.findIndex((e) => e.id === lastIds[lastIds.length - 1])).toBeGreaterThanOrEqual(cutAt - 1);
    expect(got.length).toBe(all.length);
    expect(new Set(got.map((e) => e.id)).size).toBe(got.length);
    expect(got.every((e) => e.event === 'settledGame')).toBe(true);
    expectJson(got.map((e) => e.data), all, 'the subscription equals the oracle: every game after connect, in order, once');
    // The events' amounts convert exactly (the rows of /events/settledGames).
    const sum = got.reduce((s, e) => s + rowToBigInts('/events/settledGames', e.data).wager, 0n);
    expect(sum).toBe(all.reduce((s, g) => s + BigInt(g.wager), 0n));
  }, 120_000);

  it('when the server ends the stream (its process shuts down), the iterator resumes on the next one with Last-Event-ID', async () => {
    // Two API processes over the one store, as behind a load balancer: the first shuts down
    // mid-delivery (it ends its open streams cleanly), the client's next connection reaches the second.
    const opts = { store, clock: new ManualClock(fixture.nowMs), events: hub, options: { stream: { heartbeatMs: 200, settleMs: 50, maxPerKey: 10 } } };
    const first = await buildTestApp(opts);
    const second = await buildTestApp(opts);
    let current = first;
    const served: { app: string; lastEventId: string | null }[] = [];
    try {
      const client = createClient({
        baseUrl: 'http://api.invalid',
        apiKey: app.key,
        fetch: async (request) => {
          const u = new URL(request.url);
          served.push({ app: current === first ? 'first' : 'second', lastEventId: request.headers.get('last-event-id') });
          return fetch(new Request(`${current.baseUrl}${u.pathname}${u.search}`, request));
        },
      });
      const creator = fixture.creators[0]!;
      const expected = gamesFrom(0, { creator });
      expect(expected.length).toBeGreaterThan(300);
      const { encodeCursor } = await import('../../src/api/cursor.js');
      const got: StreamEvent<'settledGames'>[] = [];
      let closing: Promise<void> | undefined;
      for await (const ev of client.subscribe('settledGames', { creator }, { lastEventId: encodeCursor('time', 'ASC', { values: [0, '', 0] }), reconnectDelayMs: 50 })) {
        got.push(ev);
        if (got.length === 100) {
          current = second;
          closing = first.close();
        }
        if (got.length === expected.length) break;
      }
      await closing;
      expect(served.map((s) => s.app)).toEqual(['first', 'second']);
      expect(served[1]!.lastEventId).not.toBeNull();
      const resumedAt = got.findIndex((e) => e.id === served[1]!.lastEventId);
      expect(resumedAt).toBeGreaterThanOrEqual(99);
      expect(new Set(got.map((e) => e.id)).size).toBe(got.length);
      expectJson(got.map((e) => e.data), expected, 'across the shutdown: every game of the creator, in order, once');
    } finally {
      if (current !== first) await second.close();
      else await Promise.all([first.close(), second.close()]);
    }
  }, 60_000);

  it('lastEventId resumes a new subscription after a given event; filters apply', async () => {
    const user = gamesFrom(boundaryMs)[3]!.user;
    const client = createClient({ baseUrl: app.baseUrl, apiKey: app.key });
    const expected = gamesFrom(0, { user });
    expect(expected.length).toBeGreaterThan(3);
    // The id of the user's second game, from a subscription that starts at the beginning.
    const { encodeCursor } = await import('../../src/api/cursor.js');
    const start = encodeCursor('time', 'ASC', { values: [0, '', 0] });
    const first: StreamEvent<'settledGames'>[] = [];
    for await (const ev of client.subscribe('settledGames', { user }, { lastEventId: start })) {
      first.push(ev);
      if (first.length === 2) break;
    }
    expectJson(first.map((e) => e.data), expected.slice(0, 2), 'from the start');
    const resumed: StreamEvent<'settledGames'>[] = [];
    for await (const ev of client.subscribe('settledGames', { user }, { lastEventId: first[1]!.id })) {
      resumed.push(ev);
      if (resumed.length === expected.length - 2) break;
    }
    expectJson(resumed.map((e) => e.data), expected.slice(2), 'resumed after the second');
  });

  it('gives up with the network error after maxReconnects failed connection attempts in a row', async () => {
    // Each attempt as the client's fetch sees it: every one rejects (a reset connection).
    const attempts: string[] = [];
    const client = createClient({
      baseUrl: proxy.url,
      apiKey: app.key,
      fetch: (request) => fetch(request).then(
        (r) => (attempts.push(`answered ${r.status}`), r),
        (e: unknown) => (attempts.push('failed'), Promise.reject(e)),
      ),
    });
    const before = proxy.refused;
    proxy.cut();
    try {
      const reconnects: number[] = [];
      const sub = client.subscribe('settledGames', {}, { reconnectDelayMs: 20, maxReconnects: 3, onReconnect: (i) => reconnects.push(i.attempt) });
      const err = await sub.next().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(GambaApiError);
      expect(attempts).toEqual(['failed', 'failed', 'failed']);
      // (A pooled keep-alive connection the cut reset may fail an attempt before a new connection is tried.)
      expect(proxy.refused - before).toBeGreaterThanOrEqual(1);
      expect(reconnects).toEqual([2, 3]);
    } finally {
      proxy.forward();
    }
  });

  it('an error answer ends the iterator with GambaApiError (bad Last-Event-ID, missing pool)', async () => {
    const client = createClient({ baseUrl: app.baseUrl, apiKey: app.key });
    const bad = client.subscribe('settledGames', {}, { lastEventId: 'nope' });
    await expect(bad.next()).rejects.toSatisfy((e: unknown) => e instanceof GambaApiError && e.status === 400 && e.message.includes("'Last-Event-ID'"));
    const noPool = client.subscribe('poolChanges', {} as never);
    await expect(noPool.next()).rejects.toMatchObject({ status: 400, code: 'INVALID_PARAMETER' });
  });
});
