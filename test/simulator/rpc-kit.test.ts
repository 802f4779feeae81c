import {
  address,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  getAddressDecoder,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getStructDecoder,
  getTransactionDecoder,
  getU32Decoder,
  getU64Decoder,
  getU8Decoder,
  getBooleanDecoder,
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_UNSUPPORTED_TRANSACTION_VERSION,
  signature as toSignature,
  type Signature,
} from '@solana/kit';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTransaction, GAMBA_PROGRAM_ID } from '../../src/protocol/index.js';
import { collect, rpc, rpcRaw, START_MS, startTestSimulator, type GroundTruthEvent, type TestSim } from '../helpers/simulator.js';

/** A stock Solana client (@solana/kit) reads every method's answer, batches and the PubSub stream. */
let t: TestSim;
let kit: ReturnType<typeof createSolanaRpc>;
let truth: GroundTruthEvent[];
const program = address(GAMBA_PROGRAM_ID);
const USDC = address('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');

beforeAll(async () => {
  t = await startTestSimulator({ seed: 3, days: 3, playsPerDay: 250, liveRate: 4 });
  kit = createSolanaRpc(t.sim.rpcUrl);
  truth = await collect(t.sim.groundTruth());
});

afterAll(async () => {
  await t.sim.stop();
});

async function findTx(pred: (info: { signature: string; err: unknown }) => boolean): Promise<Signature> {
  const page = await kit.getSignaturesForAddress(program, { limit: 1000, commitment: 'finalized' }).send();
  const hit = page.find((s) => pred({ signature: s.signature, err: s.err }));
  if (!hit) throw new Error('no such transaction');
  return hit.signature;
}

describe('@solana/kit against the simulator', () => {
  it('reads slots, heights, times, blockhash, version, health and genesis', async () => {
    const confirmed = await kit.getSlot({ commitment: 'confirmed' }).send();
    // kit defaults to `confirmed`; the node's own default is `finalized`.
    const finalized = await kit.getSlot({ commitment: 'finalized' }).send();
    expect((await rpc(t.sim.rpcUrl, 'getSlot')).result).toBe(Number(finalized));
    expect(confirmed - finalized).toBe(31n);
    expect(await kit.getSlot({ commitment: 'processed' }).send()).toBe(confirmed + 1n);
    const height = await kit.getBlockHeight({ commitment: 'confirmed' }).send();
    expect(height).toBeLessThan(confirmed);
    expect(await kit.getHealth().send()).toBe('ok');
    const v = await kit.getVersion().send();
    expect(v['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await kit.getGenesisHash().send()).toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d');
    const bh = await kit.getLatestBlockhash({ commitment: 'confirmed' }).send();
    expect(bh.context.slot).toBe(confirmed);
    expect(getBase58Encoder().encode(bh.value.blockhash).length).toBe(32);
    expect(bh.value.lastValidBlockHeight).toBe(height + 150n);
    // blockTime of a slot = its 400 ms-grid time in seconds; the head is one minute after START_MS.
    const slot = finalized - 100n;
    const when = await kit.getBlockTime(slot % 19n === 11n ? slot + 1n : slot).send();
    expect(Number(when)).toBeGreaterThan(START_MS / 1000);
    expect(Number(when)).toBeLessThanOrEqual(START_MS / 1000 + 60);
  });

  it('pages getSignaturesForAddress with every documented field', async () => {
    const page = await kit.getSignaturesForAddress(program, { limit: 20, commitment: 'finalized' }).send();
    expect(page).toHaveLength(20);
    for (const s of page) {
      expect(getBase58Encoder().encode(s.signature).length).toBe(64);
      expect(s.memo).toBeNull();
      expect(s.confirmationStatus).toBe('finalized');
      expect(typeof s.blockTime).toBe('bigint');
    }
    for (let i = 1; i < page.length; i++) expect(page[i]!.slot <= page[i - 1]!.slot).toBe(true);
  });

  it('reads getTransaction as json, jsonParsed and base64, with the same transaction in each', async () => {
    const sig = await findTx((s) => s.err === null && truth.some((e) => e.signature === s.signature && e.name === 'GameSettled'));
    const json = await kit.getTransaction(sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    const parsed = await kit.getTransaction(sig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    const b64 = await kit.getTransaction(sig, { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send();
    expect(json!.version).toBe(0n);
    // jsonParsed: loaded keys appear in accountKeys with source lookupTable; token CPIs are parsed.
    const keys = parsed!.transaction.message.accountKeys;
    expect(keys.filter((k) => k.source === 'lookupTable').map((k) => k.pubkey)).toEqual([
      ...json!.meta!.loadedAddresses!.writable,
      ...json!.meta!.loadedAddresses!.readonly,
    ]);
    const inner = parsed!.meta!.innerInstructions![0]!.instructions[0] as { program?: string; parsed?: { type: string } };
    expect(inner.program).toBe('spl-token');
    expect(inner.parsed!.type).toBe('transfer');
    // base64 wire bytes decode (kit's decoders) to the json message.
    const wire = getBase64Encoder().encode(b64!.transaction[0]);
    const decodedTx = getTransactionDecoder().decode(wire);
    const msg = getCompiledTransactionMessageDecoder().decode(decodedTx.messageBytes);
    const j = json!.transaction.message;
    expect(msg.staticAccounts).toEqual(j.accountKeys);
    expect(msg.lifetimeToken).toBe(j.recentBlockhash);
    expect(msg.header.numSignerAccounts).toBe(j.header.numRequiredSignatures);
    expect(msg.instructions.map((ix) => getBase58Decoder().decode(ix.data!))).toEqual(j.instructions.map((ix) => ix.data));
    expect(getBase58Decoder().decode(decodedTx.signatures[j.accountKeys[0]!]!)).toBe(sig);
    // Both JSON encodings decode to the same events.
    const raw = (await rpc(t.sim.rpcUrl, 'getTransaction', [sig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }])).result;
    const rawJson = (await rpc(t.sim.rpcUrl, 'getTransaction', [sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result;
    expect(decodeTransaction(raw).events).toEqual(decodeTransaction(rawJson).events);
    expect(decodeTransaction(rawJson).events.length).toBeGreaterThan(0);
  });

  it('applies the maxSupportedTransactionVersion rule (version field, -32015 for v0 without it)', async () => {
    const v0 = await findTx((s) => truth.some((e) => e.signature === s.signature && e.name === 'GameSettled'));
    const err = await kit
      .getTransaction(v0, { encoding: 'json' } as never)
      .send()
      .catch((e: unknown) => e);
    expect(isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_UNSUPPORTED_TRANSACTION_VERSION)).toBe(true);
    // A legacy transaction without the parameter has no version field at all.
    const page = (await rpc(t.sim.rpcUrl, 'getSignaturesForAddress', [GAMBA_PROGRAM_ID, { limit: 200 }])).result as { signature: string }[];
    let legacy: any = null;
    for (const s of page) {
      const r = await rpc(t.sim.rpcUrl, 'getTransaction', [s.signature, { encoding: 'json' }]);
      if (!r.error) {
        legacy = r.result;
        break;
      }
    }
    expect(legacy).not.toBeNull();
    expect('version' in legacy).toBe(false);
    const withVersion = (await rpc(t.sim.rpcUrl, 'getTransaction', [legacy.transaction.signatures[0], { maxSupportedTransactionVersion: 0 }])).result;
    expect(withVersion.version).toBe('legacy');
  });

  it('reads mint accounts (jsonParsed and base64), many at once, and token supplies incl. LP mints', async () => {
    const info = await kit.getAccountInfo(USDC, { encoding: 'jsonParsed' }).send();
    const data = info.value!.data as { parsed: { type: string; info: { decimals: number; supply: string } }; program: string };
    expect(data.program).toBe('spl-token');
    expect(data.parsed.type).toBe('mint');
    expect(data.parsed.info.decimals).toBe(6);
    const raw = await kit.getAccountInfo(USDC, { encoding: 'base64' }).send();
    const bytes = getBase64Encoder().encode(raw.value!.data[0]);
    expect(bytes.length).toBe(82);
    const mint = getStructDecoder([
      ['mintAuthorityOption', getU32Decoder()],
      ['mintAuthority', getAddressDecoder()],
      ['supply', getU64Decoder()],
      ['decimals', getU8Decoder()],
      ['isInitialized', getBooleanDecoder()],
    ]).decode(bytes);
    expect(mint.decimals).toBe(6);
    expect(mint.supply.toString()).toBe(data.parsed.info.supply);
    expect(mint.isInitialized).toBe(true);

    const all = await kit.getMultipleAccounts([...t.sim.mints.map((m) => address(m.mint)), program], { encoding: 'jsonParsed' }).send();
    const decimals = all.value.map((a) => (a ? (a.data as { parsed: { info: { decimals: number } } }).parsed.info.decimals : null));
    expect(decimals).toEqual([...t.sim.mints.map((m) => m.decimals), null]);

    const supply = await kit.getTokenSupply(address('DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263')).send();
    expect(supply.value.decimals).toBe(5);

    // An LP mint's supply is the lpSupply of the pool's latest PoolChange (finalized view).
    const finalized = Number(await kit.getSlot({ commitment: 'finalized' }).send());
    const changes = truth.filter((e) => e.name === 'PoolChange' && e.slot <= finalized);
    const last = changes[changes.length - 1]!;
    const lpMints = await collectLpMint(last.data.pool as string);
    const lpSupply = await kit.getTokenSupply(address(lpMints), { commitment: 'finalized' }).send();
    const lastOfPool = changes.filter((e) => e.data.pool === last.data.pool).pop()!;
    expect(lpSupply.value.amount).toBe((lastOfPool.data as { lpSupply: bigint }).lpSupply.toString());
  });

  it('answers batches in order with per-item results and errors', async () => {
    const sig = truth[0]!.signature;
    const r = await rpcRaw(t.sim.rpcUrl, [
      { jsonrpc: '2.0', id: 'a', method: 'getSlot', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'getTransaction', params: [sig, { maxSupportedTransactionVersion: 0 }] },
      { jsonrpc: '2.0', id: 3, method: 'getNothing', params: [] },
      { jsonrpc: '2.0', id: 4, method: 'getSignaturesForAddress', params: [GAMBA_PROGRAM_ID, { limit: 1001 }] },
    ]);
    const out = JSON.parse(r.text);
    expect(out.map((x: { id: unknown }) => x.id)).toEqual(['a', 2, 3, 4]);
    expect(typeof out[0].result).toBe('number');
    expect(out[1].result.transaction.signatures[0]).toBe(sig);
    expect(out[2].error).toEqual({ code: -32601, message: 'Method not found' });
    expect(out[3].error).toEqual({ code: -32602, message: 'Invalid limit; max 1000' });
  });

  it('returns Solana error codes and messages for bad requests', async () => {
    const url = t.sim.rpcUrl;
    const sig = truth[0]!.signature;
    const err = async (method: string, params: unknown[]) => (await rpc(url, method, params)).error;
    expect(await err('getTransaction', [sig, { commitment: 'processed', maxSupportedTransactionVersion: 0 }])).toEqual({
      code: -32602,
      message: 'Method does not support commitment below `confirmed`',
    });
    expect((await err('getSignaturesForAddress', ['not-base58-0OIl']))!.code).toBe(-32602);
    expect((await err('getSignaturesForAddress', ['abc']))).toEqual({ code: -32602, message: 'Invalid param: WrongSize' });
    const head = (await rpc(url, 'getSlot', [{ commitment: 'processed' }])).result as number;
    expect(await err('getBlockTime', [head + 1000])).toEqual({ code: -32004, message: `Block not available for slot ${head + 1000}` });
    const skipped = head - 100 - ((head - 100) % 19) + 11 - 19;
    expect(await err('getBlockTime', [skipped])).toEqual({ code: -32009, message: `Slot ${skipped} was skipped, or missing in long-term storage` });
    expect(await err('getSlot', [{ minContextSlot: head + 50 }])).toMatchObject({ code: -32016, data: { contextSlot: expect.any(Number) } });
    const parseError = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' });
    expect(await parseError.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    expect((await rpcRaw(url, { jsonrpc: '2.0', id: 9 })).text).toBe('{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"},"id":9}');
    const wrongType = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(wrongType.status).toBe(415);
    // kit surfaces the JSON-RPC error as a SolanaError with the same code.
    const e = await kit
      .getSignaturesForAddress(program, { limit: 5000 })
      .send()
      .catch((x: unknown) => x);
    expect(isSolanaError(e, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS)).toBe(true);
    // An unknown signature is null, an unknown `before` an empty page.
    const unknown = getBase58Decoder().decode(new Uint8Array(64).fill(7));
    expect((await rpc(url, 'getTransaction', [unknown, { maxSupportedTransactionVersion: 0 }])).result).toBeNull();
    expect((await rpc(url, 'getSignaturesForAddress', [GAMBA_PROGRAM_ID, { before: unknown }])).result).toEqual([]);
    const statuses = await kit.getSignatureStatuses([toSignature(sig), toSignature(unknown)]).send();
    expect(statuses.value[0]!.confirmationStatus).toBe('finalized');
    expect(statuses.value[1]).toBeNull();
  });

  it('streams logsNotifications for new transactions as the head advances (kit subscriptions)', async () => {
    const subs = createSolanaRpcSubscriptions(t.sim.wsUrl);
    const abort = new AbortController();
    const stream = await subs.logsNotifications({ mentions: [program] }, { commitment: 'confirmed' }).subscribe({ abortSignal: abort.signal });
    const startConfirmed = t.sim.slot('confirmed');
    t.clock.advance(60_000);
    const got: { slot: bigint; signature: string; err: unknown; logs: readonly string[] | null }[] = [];
    for await (const n of stream) {
      got.push({ slot: n.context.slot, signature: n.value.signature, err: n.value.err, logs: n.value.logs });
      if (got.length === 8) break;
    }
    abort.abort();
    for (let i = 1; i < got.length; i++) expect(got[i]!.slot >= got[i - 1]!.slot).toBe(true);
    for (const n of got) {
      expect(Number(n.slot)).toBeGreaterThan(startConfirmed);
      const tx = (await rpc(t.sim.rpcUrl, 'getTransaction', [n.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }])).result;
      expect(tx.slot).toBe(Number(n.slot));
      expect(n.logs).toEqual(tx.meta.logMessages);
      expect(n.err).toEqual(tx.meta.err);
    }
  });

  it('refuses a logsSubscribe with more than one mention, and answers logsUnsubscribe', async () => {
    const ws = new WebSocket(t.sim.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const next = () => new Promise<any>((r) => ws.once('message', (m) => r(JSON.parse(m.toString()))));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'logsSubscribe', params: [{ mentions: [GAMBA_PROGRAM_ID, GAMBA_PROGRAM_ID] }] }));
    expect(await next()).toEqual({ jsonrpc: '2.0', error: { code: -32602, message: 'Invalid Request: Only 1 address supported' }, id: 1 });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'logsSubscribe', params: [{ mentions: [GAMBA_PROGRAM_ID] }, { commitment: 'finalized' }] }));
    const sub = await next();
    expect(typeof sub.result).toBe('number');
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'logsUnsubscribe', params: [sub.result] }));
    expect(await next()).toEqual({ jsonrpc: '2.0', result: true, id: 3 });
    ws.close();
  });
});

/** The LP mint of a pool, found as the one account of its pool_deposit instruction that is an LP mint. */
async function collectLpMint(pool: string): Promise<string> {
  const sigs = (await rpc(t.sim.rpcUrl, 'getSignaturesForAddress', [pool, { limit: 100 }])).result as { signature: string; err: unknown }[];
  for (const s of sigs) {
    if (s.err) continue;
    const tx = (await rpc(t.sim.rpcUrl, 'getTransaction', [s.signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }])).result;
    for (const g of tx.meta.innerInstructions) {
      for (const ix of g.instructions) {
        if (ix.parsed?.type === 'mintTo' || ix.parsed?.type === 'burn') return ix.parsed.info.mint;
      }
    }
  }
  throw new Error(`no LP mint found for ${pool}`);
}
