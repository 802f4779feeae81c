/**
 * The simulator's Helius `getTransactionsForAddress` (docs/protocol.md §7): pages follow the
 * pagination token to the end, in both sort orders, cover exactly what getSignaturesForAddress
 * lists, honour the slot / blockTime / status filters and the limits, and full items are the
 * getTransaction results plus `transactionIndex`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAMBA_PROGRAM_ID } from '../../src/protocol/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 9, days: 2, playsPerDay: 150, liveRate: 0 });
});
afterAll(async () => {
  await sim?.stop();
});

async function rpc(method: string, params: unknown[]): Promise<any> {
  const res = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return res.json();
}

async function allSignatures(): Promise<{ signature: string; slot: number; err: unknown; blockTime: number }[]> {
  const out = [];
  let before: string | undefined;
  for (;;) {
    const r = await rpc('getSignaturesForAddress', [GAMBA_PROGRAM_ID, { limit: 1000, ...(before ? { before } : {}) }]);
    out.push(...r.result);
    if (r.result.length < 1000) return out;
    before = r.result[r.result.length - 1].signature;
  }
}

async function pages(cfg: Record<string, unknown>): Promise<{ items: any[]; requests: number }> {
  const items = [];
  let token: string | null = null;
  let requests = 0;
  do {
    const r: any = await rpc('getTransactionsForAddress', [GAMBA_PROGRAM_ID, { ...cfg, ...(token ? { paginationToken: token } : {}) }]);
    expect(r.error).toBeUndefined();
    requests++;
    items.push(...r.result.data);
    token = r.result.paginationToken;
    if (token !== null) expect(token).toMatch(/^\d+:\d+$/);
  } while (token !== null);
  return { items, requests };
}

describe('getTransactionsForAddress (simulated Helius)', () => {
  it('signatures, desc: the same list as getSignaturesForAddress, paged by token', async () => {
    const sigs = await allSignatures();
    const { items, requests } = await pages({ transactionDetails: 'signatures', limit: 1000 });
    expect(items.map((i) => i.signature)).toEqual(sigs.map((s) => s.signature));
    expect(requests).toBe(Math.floor(sigs.length / 1000) + 1);
    expect(Object.keys(items[0]).sort()).toEqual(['blockTime', 'confirmationStatus', 'err', 'memo', 'signature', 'slot', 'transactionIndex']);
    const asc = await pages({ transactionDetails: 'signatures', sortOrder: 'asc', limit: 700 });
    expect(asc.items.map((i) => i.signature)).toEqual(sigs.map((s) => s.signature).reverse());
  });

  it('filters: status, slot and blockTime ranges', async () => {
    const sigs = await allSignatures();
    const failed = await pages({ transactionDetails: 'signatures', filters: { status: 'failed' } });
    expect(failed.items.map((i) => i.signature)).toEqual(sigs.filter((s) => s.err !== null).map((s) => s.signature));
    expect(failed.items.length).toBeGreaterThan(0);
    const ok = await pages({ transactionDetails: 'signatures', filters: { status: 'succeeded' } });
    expect(ok.items.length + failed.items.length).toBe(sigs.length);
    const mid = sigs[Math.floor(sigs.length / 2)]!;
    const bySlot = await pages({ transactionDetails: 'signatures', filters: { slot: { lte: mid.slot } } });
    expect(bySlot.items.map((i) => i.signature)).toEqual(sigs.filter((s) => s.slot <= mid.slot).map((s) => s.signature));
    const byTime = await pages({ transactionDetails: 'signatures', filters: { blockTime: { gte: mid.blockTime } } });
    expect(byTime.items.map((i) => i.signature)).toEqual(sigs.filter((s) => s.blockTime >= mid.blockTime).map((s) => s.signature));
  });

  it('full: getTransaction results plus transactionIndex, ≤ 100 per page', async () => {
    const r = await rpc('getTransactionsForAddress', [GAMBA_PROGRAM_ID, { transactionDetails: 'full', limit: 5, encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    expect(r.result.data).toHaveLength(5);
    for (const item of r.result.data) {
      const sig = item.transaction.signatures[0];
      const one = await rpc('getTransaction', [sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
      const { transactionIndex, ...rest } = item;
      expect(rest).toEqual(one.result);
      expect(Number.isInteger(transactionIndex)).toBe(true);
    }
    const tooMany = await rpc('getTransactionsForAddress', [GAMBA_PROGRAM_ID, { transactionDetails: 'full', limit: 101 }]);
    expect(tooMany.error.code).toBe(-32602);
    const processed = await rpc('getTransactionsForAddress', [GAMBA_PROGRAM_ID, { commitment: 'processed' }]);
    expect(processed.error.code).toBe(-32602);
    const badToken = await rpc('getTransactionsForAddress', [GAMBA_PROGRAM_ID, { paginationToken: 'nope' }]);
    expect(badToken.error.code).toBe(-32602);
  });
});
