/**
 * Each key's share of the store's slots and the order free slots are handed out in
 * (docs/hardening.md "Per-key share and fairness"): a key flooding the API with expensive requests
 * holds at most its share, and the next free slot goes to the key served least recently, not to
 * the oldest waiter.
 */
import { describe, expect, test } from 'vitest';
import { createFairScheduler, defaultConcurrencyLimits } from '../../src/api/plugins/concurrency.js';
import { buildTestApp } from '../helpers/app.js';
import { readonlyTwin, setupStore } from '../helpers/store.js';
import { http } from '../helpers/api-operations.js';
import { gateQuery } from '../helpers/gated-store.js';

describe('defaults', () => {
  test('one key holds at most half the slots (at least 1), so another key always finds one', () => {
    expect(defaultConcurrencyLimits(1)).toMatchObject({ maxConcurrent: 1, perKey: 1 });
    expect(defaultConcurrencyLimits(2)).toMatchObject({ maxConcurrent: 2, perKey: 1 });
    expect(defaultConcurrencyLimits(10)).toMatchObject({ maxConcurrent: 10, perKey: 5 });
  });
});

describe('the scheduler', () => {
  const refuse = (why: string) => () => new Error(why);
  const scheduler = (maxConcurrent: number, perKey: number) =>
    createFairScheduler({ limits: { maxConcurrent, perKey, maxQueue: 100, perKeyQueue: 100, queueTimeoutMs: 60_000 }, tooMany: refuse('too many'), full: refuse('full'), late: refuse('late') });

  test('a freed slot goes to the key served least recently, not to the oldest waiter', async () => {
    const s = scheduler(2, 2);
    const order: string[] = [];
    const a1 = s.tryAcquire('A')!;
    const a2 = s.tryAcquire('A')!;
    expect(s.tryAcquire('B')).toBeUndefined(); // both slots are A's
    // A queues three more first, then B and C one each.
    const waits = [...['A', 'A', 'A', 'B', 'C'].map((k) => s.acquire(k).then((release) => (order.push(k), release)))];
    a1();
    await Promise.resolve();
    a2();
    await new Promise((r) => setTimeout(r, 0));
    // B and C (never served) got the two free slots before A's older requests.
    expect(order).toEqual(['B', 'C']);
    for (const r of await Promise.all(waits.slice(3))) r();
    await new Promise((r) => setTimeout(r, 0));
    expect(order.slice(2)).toEqual(['A', 'A']);
    expect(s.load).toBe(3);
  });

  test('a key at its share waits even with slots free; other keys take them', async () => {
    const s = scheduler(3, 1);
    const a = s.tryAcquire('A')!;
    expect(s.tryAcquire('A')).toBeUndefined();
    let aSecond = false;
    const pending = s.acquire('A').then((r) => ((aSecond = true), r));
    const b = s.tryAcquire('B')!;
    const c = s.tryAcquire('C')!;
    expect(b).toBeTypeOf('function');
    expect(c).toBeTypeOf('function');
    await new Promise((r) => setTimeout(r, 0));
    expect(aSecond).toBe(false);
    a();
    (await pending)();
    expect(aSecond).toBe(true);
    b();
    c();
    expect(s.load).toBe(0);
  });
});

describe('through the reader pool', () => {
  test("key A's expensive requests beyond its share wait while key B's requests are served", async () => {
    const writer = await setupStore('sqlite');
    // The API's read-only store (2 reader threads, so A may hold 1), its /stats held at a gate.
    const reader = (await readonlyTwin(writer, { readers: 2 }))!;
    const gate = gateQuery(reader, 'stats');
    const t = await buildTestApp({ store: writer, apiStore: gate.store });
    try {
      expect(gate.store.slots).toBe(2);
      const a = await t.createKey({ tier: 'enterprise', rpm: 100_000, burst: 100_000, name: 'A' });
      const b = await t.createKey({ tier: 'standard', name: 'B' });
      const floods = Array.from({ length: 6 }, () => http(t.baseUrl, '/stats', { key: a }));
      await gate.waitEntered(1);
      // B is served, repeatedly, while A's other five requests are still queued behind its share.
      for (const path of ['/tokens', '/platforms', '/chart/plays', '/status']) {
        const res = await http(t.baseUrl, path, { key: b });
        expect(res.status, res.text).toBe(200);
      }
      expect(gate.entered).toBe(1);
      gate.open();
      for (const r of await Promise.all(floods)) expect(r.status).toBe(200);
      expect(gate.entered).toBe(6);
    } finally {
      gate.open();
      await t.close();
      await reader.close();
    }
  });
});
