/**
 * Live streams end to end (docs/design.md §11): the chain simulator produces games, the indexer
 * tails them into the store; `/stream/settledGames` delivers the games indexed after connect —
 * woken by the indexer's commits (announced as `serve` relays them: src/cli/indexer-link.ts
 * announceCommits) or, without them, by polling. A client that drops and reconnects with
 * Last-Event-ID gets exactly what it missed: what both connections delivered equals the store's
 * games after the first position (store truth), each once, and contains a game the simulator
 * confirmed after connect (ground truth).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { announceCommits } from '../../src/cli/indexer-link.js';
import { ManualClock } from '../../src/core/index.js';
import { createIndexerEvents } from '../../src/ingest/index.js';
import type { Indexer } from '../../src/ingest/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { KeysetPosition, Store } from '../../src/store/index.js';
import { decodeCursor } from '../../src/api/cursor.js';
import { keysetKinds } from '../../src/store/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { setupStore } from '../helpers/store.js';
import { buildIndexer, waitFor } from '../helpers/indexer-setup.js';
import { simulatorPrices } from '../helpers/ground-truth.js';

let sim: Simulator | undefined;
let indexer: Indexer | undefined;
let app: TestApp | undefined;
afterAll(async () => {
  await app?.close();
  await indexer?.stop();
  await sim?.stop();
});

/** Reads an SSE answer, collecting `id` and `data` of each event, until `close()`. */
async function listen(a: TestApp, headers: Record<string, string> = {}) {
  const ctl = new AbortController();
  const res = await fetch(`${a.baseUrl}/stream/settledGames`, { headers: { 'X-API-Key': a.key, ...headers }, signal: ctl.signal });
  expect(res.status).toBe(200);
  const events: { id: string; data: any }[] = [];
  const done = (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as any) {
        buf += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const lines = buf.slice(0, cut).split('\n');
          buf = buf.slice(cut + 2);
          const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (id !== undefined && data !== undefined) events.push({ id, data: JSON.parse(data) });
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return { events, close: async () => (ctl.abort(), await done) };
}

/** The store's games after `from` up to and including `to` (positions), ascending: what a stream must have delivered. */
async function storeGamesBetween(store: Store, from: KeysetPosition, to: KeysetPosition): Promise<string[]> {
  const out: string[] = [];
  let after: KeysetPosition | undefined = from;
  const key = (v: (string | number)[]) => JSON.stringify(v);
  for (;;) {
    const page = await store.queries.settledGames({ orderBy: 'time', sorting: 'ASC', page: 0, itemsPerPage: 200, after, onlyJackpots: false });
    for (const g of page.results) {
      out.push(g.signature);
      if (key([g.time, g.signature, g.event_index]) === key(to.values)) return out;
    }
    if (!page.next) return out;
    after = page.next;
  }
}

const position = (id: string): KeysetPosition => decodeCursor(id, 'time', 'ASC', keysetKinds('settledGames', 'time'));

describe('live stream over the simulator and the indexer', () => {
  for (const mode of ['indexer commits', 'polling'] as const) {
    it(`games indexed after connect arrive; Last-Event-ID resumes exactly (${mode})`, async () => {
      await app?.close();
      await indexer?.stop();
      await sim?.stop();
      sim = await startSimulator({ seed: 11, days: 1, playsPerDay: 200, liveRate: 1 });
      const store = await setupStore();
      const hub = createIndexerEvents();
      indexer = buildIndexer({
        rpcUrl: sim.rpcUrl,
        wsUrl: sim.wsUrl,
        store: mode === 'indexer commits' ? announceCommits(store, (w) => hub.emit('committed', w)) : store,
        prices: simulatorPrices(sim),
        backfillDays: 2,
        pollIntervalMs: 500,
      });
      await indexer.start();
      await indexer.backfilled();
      app = await buildTestApp({
        store,
        clock: new ManualClock(Date.now()),
        sync: indexer.controller,
        ...(mode === 'indexer commits' ? { events: hub } : {}),
        options: { stream: { pollMs: 200, settleMs: 4000 } },
      });
      const connectedAt = Date.now();
      const first = await listen(app);
      await waitFor(() => first.events.length >= 3, 30_000, 'three live games on the stream');
      await first.close();
      const dropped = first.events.at(-1)!;
      // Games keep coming while the client is away.
      await new Promise((r) => setTimeout(r, 2500));
      const second = await listen(app, { 'Last-Event-ID': dropped.id });
      await waitFor(() => second.events.length >= 3, 30_000, 'games after the reconnect');
      // Ground truth: a game the simulator confirmed after connect arrives. On a loaded machine the
      // tail can lag by more than the six games above (all of them confirmed before connect), so
      // the stream is read until one does; a stream that never delivers one times out and fails.
      const confirmedAfterConnect = async (): Promise<Set<string>> => {
        const live = new Set<string>();
        for await (const e of sim!.groundTruth()) if (e.name === 'GameSettled' && e.blockTime * 1000 >= connectedAt + 1000) live.add(e.signature);
        return live;
      };
      // The ground truth is read again only when the stream has delivered something new.
      let seen = 0;
      await waitFor(async () => {
        if (second.events.length === seen) return false;
        seen = second.events.length;
        const live = await confirmedAfterConnect();
        return second.events.some((d) => live.has(d.data.signature));
      }, 60_000, 'a game confirmed after connect on the stream');
      await second.close();

      const delivered = [...first.events, ...second.events];
      expect(new Set(delivered.map((e) => e.id)).size, 'no event twice').toBe(delivered.length);
      // Store truth: from the first event delivered to the last one, every stored game, in order.
      const expected = [first.events[0]!.data.signature, ...(await storeGamesBetween(store, position(first.events[0]!.id), position(delivered.at(-1)!.id)))];
      expect(delivered.map((e) => e.data.signature)).toEqual(expected);
      // Ground truth: a game the simulator confirmed after connect is among them.
      const live = await confirmedAfterConnect();
      expect(delivered.some((d) => live.has(d.data.signature))).toBe(true);
    }, 150_000);
  }
});
