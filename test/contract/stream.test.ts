/**
 * Live streams (docs/design.md §11): SSE of /stream/settledGames and /stream/poolChanges over a
 * store the write path fills while clients listen, the indexer's commits announced as indexer
 * events (as `serve` relays them) or, without them, found by polling. What arrives is compared with
 * the brute-force oracle over the same fixture: every event indexed after connect, in order, with
 * the lists' filters; a reconnect with Last-Event-ID gets exactly the missed events; the per-key
 * cap; heartbeats; shutdown with open streams does not hang.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import { createIndexerEvents, type IndexerEventHub } from '../../src/ingest/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import type { Store } from '../../src/store/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createOracle, type Oracle } from '../helpers/bruteforce.js';
import { expectJson } from '../helpers/compare.js';
import { queryString } from '../helpers/contract-world.js';
import { writeAnnounced } from '../helpers/announced-writes.js';
import { generateFixture, type Fixture } from '../helpers/fixture.js';
import { setupStore } from '../helpers/store.js';

let fixture: Fixture;
let oracle: Oracle;
let store: Store;
let hub: IndexerEventHub;
let app: TestApp;
/** Events not written yet, in chain order; `writeUntil` moves them into the store. */
let rest: LocatedEvent[];
let boundaryMs: number;

/** Writes the remaining events with block time < `untilMs`, announcing each commit unless `announce` is false. */
async function writeUntil(untilMs: number, announce = true): Promise<void> {
  const now = rest.filter((e) => e.blockTime * 1000 < untilMs);
  rest = rest.filter((e) => e.blockTime * 1000 >= untilMs);
  await writeAnnounced(store, fixture, now, announce ? hub : undefined);
}

interface SseEvent {
  id?: string;
  event?: string;
  data: any;
}

/** An SSE client over fetch: collects events and comment lines until closed. */
async function connect(a: TestApp, path: string, query: Record<string, string | number | undefined> = {}, headers: Record<string, string> = {}, key = a.key) {
  const ctl = new AbortController();
  const res = await fetch(`${a.baseUrl}${path}${queryString(query)}`, { headers: { 'X-API-Key': key, Accept: 'text/event-stream', ...headers }, signal: ctl.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  const pump = (async () => {
    if (!res.ok || !res.body) return;
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as any) {
        buf += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const e: Partial<SseEvent> & { dataText?: string } = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line);
            else if (line.startsWith('id: ')) e.id = line.slice(4);
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) e.dataText = line.slice(6);
          }
          if (e.dataText !== undefined) events.push({ id: e.id, event: e.event, data: JSON.parse(e.dataText) });
        }
      }
    } catch {
      // aborted
    }
    ended = true;
  })();
  return {
    res,
    events,
    comments,
    get ended() {
      return ended;
    },
    async waitFor(n: number, timeoutMs = 20_000): Promise<void> {
      const until = Date.now() + timeoutMs;
      while (events.length < n && Date.now() < until && !ended) await new Promise((r) => setTimeout(r, 20));
      expect(events.length, `${path}: events received`).toBeGreaterThanOrEqual(n);
    },
    async close(): Promise<void> {
      ctl.abort();
      await pump;
    },
  };
}

const gamesAfter = (q: Record<string, unknown>, fromMs: number, toMs = Infinity) =>
  oracle.settledGamesAll({ orderBy: 'time', sorting: 'ASC', onlyJackpots: false, ...q } as any).filter((g) => g.time >= fromMs && g.time < toMs);

beforeAll(async () => {
  fixture = generateFixture({ seed: 9090, games: 1500, poolChanges: 150 });
  oracle = createOracle(fixture);
  store = await setupStore();
  await store.upsertMints(fixture.mints);
  await store.putPrices(fixture.prices);
  rest = [...fixture.events];
  // The history before the last ~20 days is there before anyone connects.
  const times = [...new Set(fixture.events.map((e) => e.blockTime * 1000))].sort((a, b) => a - b);
  boundaryMs = times[Math.floor(times.length * 0.8)]!;
  await writeUntil(boundaryMs, false);
  hub = createIndexerEvents();
  app = await buildTestApp({ store, clock: new ManualClock(fixture.nowMs), events: hub, options: { stream: { heartbeatMs: 150, settleMs: 50, maxPerKey: 10 } } });
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe('live streams', () => {
  it('events indexed after connect arrive, in order, filtered like the lists; Last-Event-ID resumes with exactly the missed ones', async () => {
    const creator = fixture.creators[1]!;
    const laterChanges = (p: string) => oracle.poolChangesAll(p).filter((c) => c.time >= boundaryMs).length;
    const pool = Object.values(fixture.pools).sort((x, y) => laterChanges(y) - laterChanges(x))[0]!;
    const all = await connect(app, '/stream/settledGames');
    const byCreator = await connect(app, '/stream/settledGames', { creator });
    const jackpots = await connect(app, '/stream/settledGames', { onlyJackpots: 'true', token: fixture.tokens.SOL });
    const changes = await connect(app, '/stream/poolChanges', { pool });
    expect(all.res.status).toBe(200);
    expect(all.res.headers.get('content-type')).toContain('text/event-stream');

    const times = [...new Set(rest.map((e) => e.blockTime * 1000))].sort((a, b) => a - b);
    const mid = times[Math.floor(times.length / 2)]!;
    const end = Number.MAX_SAFE_INTEGER;
    await writeUntil(mid);
    const firstHalf = gamesAfter({}, boundaryMs, mid);
    expect(firstHalf.length).toBeGreaterThan(50);
    await all.waitFor(firstHalf.length);
    // The client drops here, and reconnects after more games were indexed.
    await new Promise((r) => setTimeout(r, 200));
    const seen = [...all.events];
    await all.close();
    await writeUntil(end);

    const resumed = await connect(app, '/stream/settledGames', {}, { 'Last-Event-ID': seen[seen.length - 1]!.id! });
    const secondHalf = gamesAfter({}, mid);
    await resumed.waitFor(secondHalf.length);
    await new Promise((r) => setTimeout(r, 300)); // nothing more may come
    expectJson(seen.map((e) => e.data), firstHalf, 'stream before the drop');
    expectJson(resumed.events.map((e) => e.data), secondHalf, 'stream after Last-Event-ID');
    expect(new Set([...seen, ...resumed.events].map((e) => e.id)).size).toBe(seen.length + resumed.events.length);
    expect(seen.every((e) => e.event === 'settledGame')).toBe(true);

    const expectedCreator = gamesAfter({ creator }, boundaryMs);
    await byCreator.waitFor(expectedCreator.length);
    const expectedJackpots = gamesAfter({ onlyJackpots: true, token: fixture.tokens.SOL }, boundaryMs);
    await jackpots.waitFor(expectedJackpots.length);
    const expectedChanges = oracle.poolChangesAll(pool).filter((c) => c.time >= boundaryMs).reverse();
    expect(expectedChanges.length).toBeGreaterThan(0);
    await changes.waitFor(expectedChanges.length);
    await new Promise((r) => setTimeout(r, 300));
    expectJson(byCreator.events.map((e) => e.data), expectedCreator, 'creator filter');
    expectJson(jackpots.events.map((e) => e.data), expectedJackpots, 'onlyJackpots + token filter');
    expectJson(changes.events.map((e) => e.data), expectedChanges, 'pool changes');
    expect(changes.events.every((e) => e.event === 'poolChange')).toBe(true);
    // Idle streams get heartbeat comments.
    expect(byCreator.comments.some((c) => c.includes('heartbeat'))).toBe(true);
    for (const s of [resumed, byCreator, jackpots, changes]) await s.close();
  }, 120_000);

  it('a stream needs a valid key (401 like every protected operation)', async () => {
    for (const path of ['/stream/settledGames', `/stream/poolChanges?pool=${fixture.pools.BONK}`]) {
      const none = await fetch(`${app.baseUrl}${path}`);
      expect(none.status).toBe(401);
      expect(((await none.json()) as any).code).toBe('MISSING_API_KEY');
      const bad = await fetch(`${app.baseUrl}${path}`, { headers: { 'X-API-Key': 'f'.repeat(64) } });
      expect(bad.status).toBe(401);
      expect(((await bad.json()) as any).code).toBe('UNAUTHORIZED');
    }
  });

  it('HEAD answers the stream headers and ends', async () => {
    const r = await fetch(`${app.baseUrl}/stream/settledGames`, { method: 'HEAD', headers: { 'X-API-Key': app.key }, signal: AbortSignal.timeout(5000) });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
  });

  it('a bad Last-Event-ID is a 400 naming it; a missing pool too', async () => {
    const bad = await fetch(`${app.baseUrl}/stream/settledGames`, { headers: { 'X-API-Key': app.key, 'Last-Event-ID': 'nope' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toContain("'Last-Event-ID'");
    const noPool = await fetch(`${app.baseUrl}/stream/poolChanges`, { headers: { 'X-API-Key': app.key } });
    expect(noPool.status).toBe(400);
  });
});

describe('the per-key cap, polling and shutdown', () => {
  it('a key holds at most maxPerKey streams (429 TOO_MANY_STREAMS); another key is not affected; a closed stream frees its place', async () => {
    const a = await buildTestApp({ store, clock: new ManualClock(fixture.nowMs), events: createIndexerEvents(), options: { stream: { maxPerKey: 2 } } });
    try {
      const other = await a.createKey({ tier: 'enterprise', rpm: 1000, burst: 1000 });
      const s1 = await connect(a, '/stream/settledGames');
      const s2 = await connect(a, '/stream/poolChanges', { pool: fixture.pools.BONK });
      const s3 = await connect(a, '/stream/settledGames');
      expect([s1.res.status, s2.res.status]).toEqual([200, 200]);
      expect(s3.res.status).toBe(429);
      const body = (await s3.res.json()) as any;
      expect(body.code).toBe('TOO_MANY_STREAMS');
      expect(s3.res.headers.get('retry-after')).toBe('1');
      const s4 = await connect(a, '/stream/settledGames', {}, {}, other);
      expect(s4.res.status).toBe(200);
      await s1.close();
      await new Promise((r) => setTimeout(r, 100));
      const s5 = await connect(a, '/stream/settledGames');
      expect(s5.res.status).toBe(200);
      // Opening a stream costs one request of the key's budget.
      expect(Number(s5.res.headers.get('x-ratelimit-remaining'))).toBeLessThan(1_000_000);
      for (const s of [s2, s4, s5]) await s.close();
    } finally {
      await a.close();
    }
  });

  it('without indexer events, new events are found by polling; closing the app ends open streams at once', async () => {
    const a = await buildTestApp({ store, clock: new ManualClock(fixture.nowMs), options: { stream: { pollMs: 100, settleMs: 50 } } });
    const s = await connect(a, '/stream/settledGames');
    expect(s.res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    // A game of the future (after every fixture game), written by another writer (no announcement).
    const last = fixture.events.filter((e) => e.name === 'GameSettled').at(-1)!;
    const sig = `${last.signature.slice(0, -4)}zzzz`;
    const later = { ...last, signature: sig, blockTime: last.blockTime + 60, slot: last.slot + 1000 };
    await store.writeBatch({ events: [later], signatures: [{ ...fixture.signatures.find((x) => x.signature === last.signature)!, signature: sig, slot: later.slot, blockTime: later.blockTime }] });
    await s.waitFor(1, 10_000);
    expect(s.events[0]!.data.signature).toBe(sig);
    expect(s.events[0]!.data.time).toBe(later.blockTime * 1000);
    const started = Date.now();
    await a.close();
    expect(Date.now() - started).toBeLessThan(3000);
    await s.close();
    expect(s.ended).toBe(true);
  });
});
