import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTransaction, GAMBA_PROGRAM_ID, LOG_TRUNCATED } from '../../src/protocol/index.js';
import { parseFaults } from '../../src/simulator/index.js';
import { collect, getTransactions, rpc, rpcRaw, startTestSimulator, type TestSim } from '../helpers/simulator.js';

/** Fault injection: HTTP 429/503, -32005, slow answers, null for fresh transactions, truncated logs. */
let t: TestSim;

beforeAll(async () => {
  t = await startTestSimulator({ seed: 13, days: 3, playsPerDay: 250, liveRate: 3 });
});

afterAll(async () => {
  await t.sim.stop();
});

const getSlot = { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [] };

describe('fault specs', () => {
  it('parses the string form and rejects unknown kinds and bad numbers', () => {
    expect(parseFaults('429=0.1,retry-after=2,503=0.05,unhealthy=0.02,slow=0.1@800,null-tx=5,truncate=0.01')).toEqual({
      rateLimit: 0.1,
      retryAfterSeconds: 2,
      unavailable: 0.05,
      unhealthy: 0.02,
      slow: 0.1,
      slowMs: 800,
      nullTxSeconds: 5,
      truncate: 0.01,
    });
    expect(parseFaults('none')).toEqual({});
    expect(() => parseFaults('teapot=1')).toThrow(/unknown fault kind "teapot"/);
    expect(() => parseFaults('429=2')).toThrow(/probability/);
    expect(() => parseFaults('slow=0.5@soon')).toThrow(/slow delay/);
  });
});

describe('injected faults', () => {
  it('answers HTTP 429 with Retry-After, then recovers when faults are cleared', async () => {
    t.sim.setFaults('429=1,retry-after=3');
    const r = await rpcRaw(t.sim.rpcUrl, getSlot);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('3');
    expect(JSON.parse(r.text).error.code).toBe(429);
    t.sim.setFaults(null);
    expect((await rpcRaw(t.sim.rpcUrl, getSlot)).status).toBe(200);
  });

  it('answers HTTP 503', async () => {
    t.sim.setFaults({ unavailable: 1 });
    expect((await rpcRaw(t.sim.rpcUrl, getSlot)).status).toBe(503);
    t.sim.setFaults(null);
  });

  it('answers JSON-RPC -32005 (node unhealthy) for every item of a batch', async () => {
    t.sim.setFaults('unhealthy=1');
    const r = await rpcRaw(t.sim.rpcUrl, [getSlot, { ...getSlot, id: 2 }]);
    expect(JSON.parse(r.text)).toEqual([1, 2].map((id) => ({ jsonrpc: '2.0', error: { code: -32005, message: 'Node is behind by 42 slots', data: { numSlotsBehind: 42 } }, id })));
    t.sim.setFaults(null);
  });

  it('delays answers', async () => {
    t.sim.setFaults('slow=1@300');
    const t0 = Date.now();
    expect((await rpcRaw(t.sim.rpcUrl, getSlot)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    t.sim.setFaults(null);
  });

  it('applies probabilities per request (about half of 200 requests with 429=0.5)', async () => {
    t.sim.setFaults('429=0.5');
    let limited = 0;
    for (let i = 0; i < 200; i++) if ((await rpcRaw(t.sim.rpcUrl, getSlot)).status === 429) limited++;
    t.sim.setFaults(null);
    expect(limited).toBeGreaterThan(60);
    expect(limited).toBeLessThan(140);
  });

  it('answers null for transactions younger than null-tx seconds, then the transaction', async () => {
    t.clock.advance(60_000);
    const newest = (await rpc(t.sim.rpcUrl, 'getSignaturesForAddress', [GAMBA_PROGRAM_ID, { limit: 1, commitment: 'confirmed' }])).result[0];
    const get = () => rpc(t.sim.rpcUrl, 'getTransaction', [newest.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
    t.sim.setFaults('null-tx=5');
    expect((await get()).result).toBeNull();
    t.clock.advance(6_000);
    expect((await get()).result.transaction.signatures[0]).toBe(newest.signature);
    t.sim.setFaults(null);
  });

  it('truncates logs: "Log truncated" replaces the Program data line, and the ground truth drops those events', async () => {
    const before = await collect(t.sim.groundTruth({ maxSlot: t.sim.startSlot - 1 }));
    t.sim.setFaults('truncate=0.3');
    const after = await collect(t.sim.groundTruth({ maxSlot: t.sim.startSlot - 1 }));
    const kept = new Set(after.map((e) => `${e.signature}:${e.eventIndex}`));
    const dropped = before.filter((e) => !kept.has(`${e.signature}:${e.eventIndex}`));
    expect(dropped.length).toBeGreaterThan(before.length * 0.2);
    expect(dropped.length).toBeLessThan(before.length * 0.4);
    const sigs = [...new Set(dropped.map((e) => e.signature))].slice(0, 50);
    for (const tx of await getTransactions(t.sim.rpcUrl, sigs)) {
      const logs: string[] = tx.meta.logMessages;
      expect(logs[logs.length - 1]).toBe(LOG_TRUNCATED);
      expect(logs.some((l) => l.startsWith('Program data:'))).toBe(false);
      const out = decodeTransaction(tx);
      expect(out.events).toEqual([]);
      expect(out.skipped.truncated_logs).toBe(1);
    }
    // With every log truncated, only events carried by self-CPI (inner instructions) remain.
    t.sim.setFaults('truncate=1');
    const survivors = await collect(t.sim.groundTruth({ maxSlot: t.sim.startSlot - 1 }));
    t.sim.setFaults(null);
    expect(survivors.length).toBeGreaterThan(0);
    expect(survivors.length).toBeLessThan(before.length * 0.1);
    for (const tx of await getTransactions(t.sim.rpcUrl, [...new Set(survivors.map((e) => e.signature))])) {
      const keys = [...tx.transaction.message.accountKeys, ...tx.meta.loadedAddresses.writable, ...tx.meta.loadedAddresses.readonly];
      const inner = tx.meta.innerInstructions.flatMap((g: { instructions: { programIdIndex: number }[] }) => g.instructions);
      expect(inner.some((ix: { programIdIndex: number }) => keys[ix.programIdIndex] === GAMBA_PROGRAM_ID)).toBe(true);
      expect(decodeTransaction(tx).events.length).toBeGreaterThan(0);
    }
  });
});
