import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getBase58Encoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAMBA_PROGRAM_ID } from '../../src/protocol/index.js';
import { allSignatures, collect, rpc, rpcRaw, startTestSimulator, type SignatureInfo, type TestSim } from '../helpers/simulator.js';

/**
 * Same seed (and start time) ⇒ byte-identical answers across restarts — also when one of the
 * two rendered its getTransaction answers ahead (`renderAhead`); paging with before/until over
 * the whole history neither repeats nor skips a signature.
 */
const OPTS = { seed: 5, days: 3, playsPerDay: 300 };
let a: TestSim;
let b: TestSim;
let sigs: SignatureInfo[];

beforeAll(async () => {
  a = await startTestSimulator(OPTS);
  b = await startTestSimulator({ ...OPTS, renderAhead: true });
  await b.sim.ready();
  sigs = await allSignatures(a.sim.rpcUrl, GAMBA_PROGRAM_ID);
});

afterAll(async () => {
  await a.sim.stop();
  await b.sim.stop();
});

const base58 = getBase58Encoder();

function compareBytes(x: Uint8Array, y: Uint8Array): number {
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

describe('determinism', () => {
  it('answers byte-identically on two simulators started with the same seed (one rendering ahead)', async () => {
    const sample = sigs.filter((_, i) => i % 37 === 0).map((s) => s.signature);
    const requests: unknown[] = [
      { jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [GAMBA_PROGRAM_ID, { limit: 1000 }] },
      { jsonrpc: '2.0', id: 2, method: 'getSignaturesForAddress', params: [GAMBA_PROGRAM_ID, { limit: 500, before: sigs[700]!.signature }] },
      { jsonrpc: '2.0', id: 3, method: 'getTokenSupply', params: ['So11111111111111111111111111111111111111112'] },
      { jsonrpc: '2.0', id: 4, method: 'getAccountInfo', params: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', { encoding: 'base64' }] },
      ...sample.flatMap((s, i) =>
        ['json', 'jsonParsed', 'base64'].map((encoding, k) => ({
          jsonrpc: '2.0',
          id: 100 + i * 3 + k,
          method: 'getTransaction',
          params: [s, { encoding, maxSupportedTransactionVersion: 0 }],
        })),
      ),
    ];
    for (const req of requests) {
      const [x, y] = await Promise.all([rpcRaw(a.sim.rpcUrl, req), rpcRaw(b.sim.rpcUrl, req)]);
      expect(x.text.length).toBeGreaterThan(20);
      expect(x.text).toBe(y.text);
    }
    const dir = mkdtempSync(join(tmpdir(), 'sim-det-'));
    const na = await a.sim.exportEvents(join(dir, 'a.ndjson'));
    const nb = await b.sim.exportEvents(join(dir, 'b.ndjson'));
    expect(na).toBeGreaterThan(500);
    expect(na).toBe(nb);
    expect(readFileSync(join(dir, 'a.ndjson'))).toEqual(readFileSync(join(dir, 'b.ndjson')));
  });

  it('serves answers rendered ahead only while the truncated-logs fault does not apply to them', async () => {
    const sample = sigs.filter((s, i) => i % 11 === 0 && s.err === null).map((s) => s.signature);
    const req = (s: string) => ({ jsonrpc: '2.0', id: 1, method: 'getTransaction', params: [s, { encoding: 'json', maxSupportedTransactionVersion: 0 }] });
    a.sim.setFaults('truncate=0.5');
    b.sim.setFaults('truncate=0.5');
    try {
      let truncated = 0;
      for (const s of sample) {
        const [x, y] = await Promise.all([rpcRaw(a.sim.rpcUrl, req(s)), rpcRaw(b.sim.rpcUrl, req(s))]);
        expect(x.text).toBe(y.text);
        if (x.text.includes('Log truncated')) truncated++;
      }
      expect(truncated).toBeGreaterThan(0);
      expect(truncated).toBeLessThan(sample.length);
    } finally {
      a.sim.setFaults(null);
      b.sim.setFaults(null);
    }
  });

  it('gives another chain for another seed', async () => {
    const c = await startTestSimulator({ ...OPTS, seed: 6 });
    try {
      const first = (await rpc(c.sim.rpcUrl, 'getSignaturesForAddress', [GAMBA_PROGRAM_ID, { limit: 50 }])).result as SignatureInfo[];
      const mine = new Set(sigs.map((s) => s.signature));
      expect(first.some((s) => mine.has(s.signature))).toBe(false);
    } finally {
      await c.sim.stop();
    }
  });

  it('lists newest first: slot descending, then signature bytes descending within a slot', () => {
    expect(sigs.length).toBeGreaterThan(1500);
    for (let i = 1; i < sigs.length; i++) {
      const p = sigs[i - 1]!;
      const q = sigs[i]!;
      expect(q.slot <= p.slot).toBe(true);
      if (q.slot === p.slot) expect(compareBytes(base58.encode(q.signature) as Uint8Array, base58.encode(p.signature) as Uint8Array)).toBeLessThan(0);
    }
  });

  it('pages with `before` (any page size) without repeating or skipping a signature', async () => {
    const small = await allSignatures(a.sim.rpcUrl, GAMBA_PROGRAM_ID, { limit: 97 });
    expect(small.map((s) => s.signature)).toEqual(sigs.map((s) => s.signature));
    expect(new Set(small.map((s) => s.signature)).size).toBe(small.length);
    // Every event's transaction is in the listing; failed ones too (~2 %).
    const listed = new Set(sigs.map((s) => s.signature));
    for (const e of await collect(a.sim.groundTruth())) expect(listed.has(e.signature)).toBe(true);
    const failed = sigs.filter((s) => s.err !== null).length / sigs.length;
    expect(failed).toBeGreaterThan(0.01);
    expect(failed).toBeLessThan(0.035);
  });

  it('treats `until` as exclusive, together with `before`, and ignores an unknown `until`', async () => {
    const url = a.sim.rpcUrl;
    const page = (params: Record<string, unknown>) => rpc<SignatureInfo[]>(url, 'getSignaturesForAddress', [GAMBA_PROGRAM_ID, { limit: 1000, ...params }]).then((r) => r.result!.map((s) => s.signature));
    const all = sigs.map((s) => s.signature);
    expect(await page({ until: all[300] })).toEqual(all.slice(0, 300));
    expect(await page({ before: all[100], until: all[250] })).toEqual(all.slice(101, 250));
    expect(await page({ before: all[100], until: all[101] })).toEqual([]);
    const unknown = '1'.repeat(64);
    expect(await page({ until: unknown })).toEqual(all.slice(0, 1000));
    // The tail of the listing, through `before` across several segments, reaches the first transaction.
    const last = await page({ before: all[all.length - 5] });
    expect(last).toEqual(all.slice(all.length - 4));
  });

  it('filters by any account that appears: a player, a creator, a pool', async () => {
    const truth = await collect(a.sim.groundTruth());
    const game = truth.find((e) => e.name === 'GameSettled')!;
    const d = game.data as { user: string; creator: string; pool: string };
    for (const account of [d.user, d.creator, d.pool]) {
      const mine = await allSignatures(a.sim.rpcUrl, account);
      expect(mine.some((s) => s.signature === game.signature)).toBe(true);
      // `until` far back: the walk crosses every segment of the history and stops right there.
      const untilOldest = await allSignatures(a.sim.rpcUrl, account, { until: mine[mine.length - 1]!.signature });
      expect(untilOldest.map((s) => s.signature)).toEqual(mine.slice(0, -1).map((s) => s.signature));
      const subset = new Set(sigs.map((s) => s.signature));
      for (const s of mine) expect(subset.has(s.signature)).toBe(true);
      // Every listed transaction really mentions the account.
      const tx = (await rpc(a.sim.rpcUrl, 'getTransaction', [mine[mine.length - 1]!.signature, { maxSupportedTransactionVersion: 0 }])).result;
      const keys = [...tx.transaction.message.accountKeys, ...tx.meta.loadedAddresses.writable, ...tx.meta.loadedAddresses.readonly];
      expect(keys).toContain(account);
    }
    const nobody = (await rpc(a.sim.rpcUrl, 'getSignaturesForAddress', ['11111111111111111111111111111112'])).result;
    expect(nobody).toEqual([]);
  });
});
