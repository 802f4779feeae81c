import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BorshCoder, EventParser, web3, type Idl } from '@coral-xyz/anchor';
import { getBase58Encoder, getBase64Decoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTransaction, GAMBA_PROGRAM_ID } from '../../src/protocol/index.js';
import { allSignatures, collect, getTransactions, plain, startTestSimulator, type GroundTruthEvent, type TestSim } from '../helpers/simulator.js';

/**
 * The simulator's transactions, decoded by an independent, well-kept decoder (Anchor 0.31's
 * BorshCoder + EventParser over an IDL written from the protocol notes), must yield exactly the
 * ground-truth events — and so must our own protocol decoder.
 */
const idl = JSON.parse(readFileSync(new URL('../helpers/gamba-events.idl.json', import.meta.url), 'utf8')) as Idl;
const coder = new BorshCoder(idl);
const parser = new EventParser(new web3.PublicKey(GAMBA_PROGRAM_ID), coder);
const EVENT_IX_TAG = Uint8Array.from([0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d]);
const base58 = getBase58Encoder();
const base64 = getBase64Decoder();

/** Anchor's decoded event → the shape of src/protocol/events.ts, JSON-friendly. */
function fromAnchor(name: string, data: Record<string, any>): { name: string; data: Record<string, unknown> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v instanceof web3.PublicKey) out[k] = v.toBase58();
    else if (v && typeof v === 'object' && 'toArrayLike' in v) out[k] = v.toString(); // BN
    else if (k === 'action') out[k] = Object.keys(v)[0]!.toLowerCase();
    else out[k] = v;
  }
  return { name, data: out };
}

let t: TestSim;
let truth: GroundTruthEvent[];
let txs: any[];

beforeAll(async () => {
  t = await startTestSimulator({ seed: 11, days: 4, playsPerDay: 350 });
  truth = await collect(t.sim.groundTruth());
  const sigs = await allSignatures(t.sim.rpcUrl, GAMBA_PROGRAM_ID);
  txs = await getTransactions(
    t.sim.rpcUrl,
    sigs.map((s) => s.signature).reverse(),
  );
});

afterAll(async () => {
  await t.sim.stop();
});

describe('decoding the simulated chain', () => {
  it('event discriminators are sha256("event:<Name>")[0..8] as in the IDL', () => {
    for (const e of idl.events!) {
      const d = createHash('sha256').update(`event:${e.name}`).digest().subarray(0, 8);
      expect([...d]).toEqual(e.discriminator);
    }
  });

  it('Anchor EventParser (logs) + BorshCoder (emit_cpi inner instructions) find exactly the ground truth', () => {
    const decoded: unknown[] = [];
    let cpiEvents = 0;
    let failedWithData = 0;
    for (const tx of txs) {
      const logs: string[] = tx.meta.logMessages;
      if (tx.meta.err !== null) {
        if (logs.some((l) => l.startsWith('Program data: '))) failedWithData++;
        continue; // events of failed transactions never count
      }
      const sig = tx.transaction.signatures[0];
      const keys: string[] = [...tx.transaction.message.accountKeys, ...tx.meta.loadedAddresses.writable, ...tx.meta.loadedAddresses.readonly];
      const events: { name: string; data: Record<string, unknown> }[] = [];
      for (const ev of parser.parseLogs(logs)) events.push(fromAnchor(ev.name, ev.data));
      for (const group of tx.meta.innerInstructions) {
        for (const ix of group.instructions) {
          if (keys[ix.programIdIndex] !== GAMBA_PROGRAM_ID) continue;
          const bytes = new Uint8Array(base58.encode(ix.data));
          expect([...bytes.subarray(0, 8)]).toEqual([...EVENT_IX_TAG]);
          const ev = coder.events.decode(base64.decode(bytes.subarray(8)));
          expect(ev).not.toBeNull();
          events.push(fromAnchor(ev!.name, ev!.data));
          cpiEvents++;
        }
      }
      events.forEach((e, i) => decoded.push({ signature: sig, slot: tx.slot, blockTime: tx.blockTime, eventIndex: i, ...e }));
    }
    const expected = truth.map((e) => plain({ signature: e.signature, slot: e.slot, blockTime: e.blockTime, eventIndex: e.eventIndex, name: e.name, data: e.data }));
    expect(decoded.length).toBeGreaterThan(1000);
    expect(plain(decoded)).toEqual(expected);
    // The chain exercises the awkward cases: self-CPI events, and failed settles that logged data.
    expect(cpiEvents).toBeGreaterThan(10);
    expect(failedWithData).toBeGreaterThan(0);
  });

  it('our protocol decoder agrees with the ground truth, transaction by transaction', () => {
    const decoded: unknown[] = [];
    for (const tx of txs) {
      const out = decodeTransaction(tx);
      out.events.forEach((e, i) => decoded.push({ signature: out.signature, slot: tx.slot, blockTime: tx.blockTime, eventIndex: i, name: e.name, data: e.data }));
    }
    expect(plain(decoded)).toEqual(plain(truth.map(({ usdPrice: _u, decimals: _d, ...e }) => e)));
  });

  it('has every event kind, batched settles (two events in one transaction) and all six tokens', () => {
    const names = new Set(truth.map((e) => e.name));
    expect(names).toEqual(new Set(['GameSettled', 'PoolChange', 'PoolCreated']));
    expect(truth.some((e) => e.eventIndex === 1)).toBe(true);
    const mints = new Set(truth.filter((e) => e.name === 'GameSettled').map((e) => e.data.tokenMint));
    expect(mints.size).toBe(6);
  });

  it('writes play_game by the player without an event and rng_settle by the RNG key emitting GameSettled', () => {
    const settled = txs.filter((tx) => tx.meta.err === null && tx.meta.logMessages.includes('Program log: Instruction: RngSettle'));
    const plays = txs.filter((tx) => tx.meta.logMessages.includes('Program log: Instruction: PlayGame'));
    expect(plays.length).toBeGreaterThan(settled.length);
    for (const tx of plays) expect(decodeTransaction(tx).events).toEqual([]);
    const rngKeys = new Set(settled.map((tx) => tx.transaction.message.accountKeys[0]));
    expect(rngKeys.size).toBe(1);
    // GameSettled.user is the player, who signed the play but not the settle.
    const players = new Set(plays.map((tx) => tx.transaction.message.accountKeys[0]));
    const users = new Set(truth.filter((e) => e.name === 'GameSettled').map((e) => (e.data as { user: string }).user));
    for (const u of users) expect(players.has(u)).toBe(true);
    expect(players.has([...rngKeys][0])).toBe(false);
  });

  it('nests invoke depths correctly: every invoke [n] is closed, token CPIs run at depth 2', () => {
    for (const tx of txs) {
      const stack: string[] = [];
      for (const line of tx.meta.logMessages as string[]) {
        const inv = /^Program (\S+) invoke \[(\d+)\]$/.exec(line);
        if (inv) {
          expect(Number(inv[2])).toBe(stack.length + 1);
          stack.push(inv[1]!);
          continue;
        }
        const end = /^Program (\S+) (success|failed: .*)$/.exec(line);
        if (end) expect(stack.pop()).toBe(end[1]);
      }
      expect(stack).toEqual([]);
      for (const g of tx.meta.innerInstructions) for (const ix of g.instructions) expect(ix.stackHeight).toBe(2);
    }
  });
});
