/**
 * The simulator's Yellowstone gRPC server (docs/simulator.md "Yellowstone gRPC"), spoken to by
 * the published client @triton-one/yellowstone-grpc: unary methods, Subscribe with transaction
 * filters, block meta, slot statuses and ping/pong, `from_slot` replay, refused filters — and
 * every streamed transaction decodes to the same events as its getTransaction answer.
 */
import * as ys from '@triton-one/yellowstone-grpc';
import { CommitmentLevel, type SubscribeRequest, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTransaction, GAMBA_PROGRAM_ID } from '../../src/protocol/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { toTransactionResult, type TransactionResult } from '../../src/solana/index.js';

let sim: Simulator;
// A CommonJS package: the Client class is Node's default export (see src/solana/geyser-stream.ts).
const Client = ((ys.default as { default?: unknown }).default ?? ys.default) as typeof ys.default.default;
let client: InstanceType<typeof Client>;
beforeAll(async () => {
  sim = await startSimulator({ seed: 31, days: 1, playsPerDay: 100, liveRate: 8, yellowstone: true });
  client = new Client(sim.yellowstoneUrl!, undefined, undefined);
  await client.connect();
});
afterAll(async () => {
  await sim?.stop();
});

const request = (r: Partial<SubscribeRequest>): SubscribeRequest => ({
  accounts: {},
  slots: {},
  transactions: {},
  transactionsStatus: {},
  blocks: {},
  blocksMeta: {},
  entry: {},
  accountsDataSlice: [],
  ...r,
});

/** Subscribes with `r` and collects updates for `ms` (or until the stream errors). */
async function collect(r: SubscribeRequest, ms: number): Promise<{ updates: SubscribeUpdate[]; error?: Error }> {
  const stream = await client.subscribe(r);
  const updates: SubscribeUpdate[] = [];
  let error: Error | undefined;
  stream.on('data', (u: SubscribeUpdate) => updates.push(u));
  stream.on('error', (e: Error) => (error = e));
  await new Promise((res) => setTimeout(res, ms));
  stream.destroy();
  return { updates, error };
}

async function rpc(method: string, params: unknown[]): Promise<any> {
  const res = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await res.json()) as { result: unknown }).result;
}

describe('Yellowstone gRPC (simulated)', () => {
  it('unary: GetSlot at a commitment, GetVersion, Ping', async () => {
    const confirmed = Number((await client.getSlot(CommitmentLevel.CONFIRMED)).slot);
    expect(Math.abs(confirmed - sim.slot('confirmed'))).toBeLessThanOrEqual(2);
    expect(Number((await client.getSlot(CommitmentLevel.FINALIZED)).slot)).toBeLessThan(confirmed);
    expect(JSON.parse((await client.getVersion()).version)).toMatchObject({ package: 'yellowstone-grpc-geyser' });
    expect((await client.ping(3)).count).toBe(3);
  });

  it('streams the program\'s transactions per slot, then block meta and slot status; pong answers the ping', async () => {
    const { updates, error } = await collect(
      request({
        transactions: { gamba: { accountInclude: [GAMBA_PROGRAM_ID], accountExclude: [], accountRequired: [], vote: false } },
        blocksMeta: { meta: {} },
        slots: { s: { filterByCommitment: true } },
        commitment: CommitmentLevel.CONFIRMED,
        ping: { id: 42 },
      }),
      2500,
    );
    expect(error).toBeUndefined();
    expect(updates[0]!.pong).toEqual({ id: 42 });
    const txs = updates.filter((u) => u.transaction);
    const metas = updates.filter((u) => u.blockMeta);
    expect(txs.length).toBeGreaterThan(3);
    expect(metas.length).toBeGreaterThan(2);
    expect(updates.filter((u) => u.slot).every((u) => u.slot!.status === 1 /* SLOT_CONFIRMED */)).toBe(true);
    // Within a slot: transactions in block order (index), then its block meta.
    for (const u of txs) {
      expect(u.filters).toEqual(['gamba']);
      const slot = u.transaction!.slot;
      const meta = updates.findIndex((m) => m.blockMeta?.slot === slot);
      if (meta >= 0) expect(updates.indexOf(u)).toBeLessThan(meta);
    }
    // Each streamed transaction, in getTransaction's shape, decodes to the same events as getTransaction's answer.
    for (const u of txs.slice(0, 8)) {
      const streamed = toTransactionResult(u.transaction!.transaction!, Number(u.transaction!.slot));
      const fetched = (await rpc('getTransaction', [streamed.signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }])) as TransactionResult;
      const blockTime = Number(metas.find((m) => m.blockMeta!.slot === u.transaction!.slot)?.blockMeta!.blockTime?.timestamp ?? fetched.blockTime);
      expect(blockTime).toBe(fetched.blockTime);
      expect(streamed.transaction.message.accountKeys).toEqual(fetched.transaction.message.accountKeys);
      expect(streamed.meta!.logMessages).toEqual(fetched.meta!.logMessages);
      expect(streamed.meta!.err === null).toBe(fetched.meta!.err === null);
      const a = decodeTransaction({ ...streamed, blockTime });
      const b = decodeTransaction(fetched);
      expect(JSON.stringify(a.events, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).toBe(JSON.stringify(b.events, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    }
  });

  it('filters: failed only; a required account nobody has; from_slot replays', async () => {
    const failedOnly = await collect(request({ transactions: { f: { accountInclude: [GAMBA_PROGRAM_ID], accountExclude: [], accountRequired: [], failed: true } }, commitment: CommitmentLevel.PROCESSED, fromSlot: String(sim.slot('processed') - 600) }), 1500);
    const failed = failedOnly.updates.filter((u) => u.transaction);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((u) => u.transaction!.transaction!.meta!.err !== undefined)).toBe(true);
    const none = await collect(request({ transactions: { n: { accountInclude: [GAMBA_PROGRAM_ID], accountExclude: [], accountRequired: ['11111111111111111111111111111112'] } } }), 1200);
    expect(none.updates.filter((u) => u.transaction)).toEqual([]);
  });

  it('refuses filters it does not serve, and a from_slot beyond its replay window', async () => {
    // The native client reports any stream status as one message; the server's detail stays on its side.
    const accounts = await collect(request({ accounts: { a: { account: [GAMBA_PROGRAM_ID], owner: [], filters: [] } } }), 800);
    expect(accounts.error).toBeInstanceOf(Error);
    expect(accounts.updates).toEqual([]);
    const old = await collect(request({ blocksMeta: { m: {} }, fromSlot: String(sim.historyStartSlot) }), 800);
    expect(old.error).toBeInstanceOf(Error);
    expect(old.updates).toEqual([]);
  });
});
