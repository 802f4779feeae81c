import {
  getBase58Decoder,
  getBase64Decoder,
  getCompiledTransactionMessageEncoder,
  getTransactionEncoder,
  type Address,
  type Blockhash,
  type SignatureBytes,
  type TransactionMessageBytes,
} from '@solana/kit';
import { fromBase58, toBase58 } from '../chain/index.js';
import { canonicalJson, JsonText } from '../json/index.js';
import type { InnerIxPlan, IxPlan, TxPlan } from './txplan.js';

/**
 * Compiles a TxPlan into the message layout (account ordering, header, indexes, lookups) and
 * renders getTransaction results in the `json`, `jsonParsed`, `base64` and `base58` encodings
 * (shapes: Solana JSON-RPC getTransaction docs, agave transaction-status UI types; docs/protocol.md §1).
 */
export type TxEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';

/** A plan compiled to a message: account keys in message order (static, then address-table loaded), header, roles by index and lookups. */
export interface CompiledTx {
  plan: TxPlan;
  staticKeys: string[];
  loadedWritable: string[];
  loadedReadonly: string[];
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  index: Map<string, number>;
  writable: (i: number) => boolean;
  signer: (i: number) => boolean;
  lookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
}

const b58 = getBase58Decoder();
const b64 = getBase64Decoder();
const messageEncoder = getCompiledTransactionMessageEncoder();
const transactionEncoder = getTransactionEncoder();

/**
 * Account order of a compiled message: the fee payer, other writable signers, readonly signers,
 * writable non-signers, readonly non-signers (first use order inside each group); keys loaded
 * from a lookup table follow the static ones, writable then readonly.
 */
export function compileTx(plan: TxPlan): CompiledTx {
  const payer = plan.metas.keys().next().value as string;
  const outer = plan.outer;
  const lookup = plan.lookup;
  const isTopProgram = (k: string) => {
    for (let i = 0; i < outer.length; i++) if (outer[i]!.program === k) return true;
    return false;
  };
  const writableSigners: string[] = [];
  const readonlySigners: string[] = [];
  const writableOthers: string[] = [];
  const readonlyOthers: string[] = [];
  const loadedWritable: string[] = [];
  const loadedReadonly: string[] = [];
  // forEach, not for…of over entries: no [key, value] pair allocated per account.
  plan.metas.forEach((m, k) => {
    if (k === payer) return;
    if (lookup !== null && lookup.loaded.has(k) && !m.signer && !isTopProgram(k)) {
      (m.writable ? loadedWritable : loadedReadonly).push(k);
      return;
    }
    (m.signer ? (m.writable ? writableSigners : readonlySigners) : m.writable ? writableOthers : readonlyOthers).push(k);
  });
  const staticKeys = [payer];
  for (const group of [writableSigners, readonlySigners, writableOthers, readonlyOthers]) for (const k of group) staticKeys.push(k);
  const all = staticKeys.concat(loadedWritable, loadedReadonly);
  const index = new Map<string, number>();
  for (let i = 0; i < all.length; i++) index.set(all[i]!, i);
  const numSigners = 1 + writableSigners.length + readonlySigners.length;
  const lookups = lookup
    ? [
        {
          accountKey: lookup.table,
          writableIndexes: loadedWritable.map((k) => lookup.contents.indexOf(k)),
          readonlyIndexes: loadedReadonly.map((k) => lookup.contents.indexOf(k)),
        },
      ]
    : [];
  // Roles by position, read only by the jsonParsed and wire encodings.
  const role = (i: number) => plan.metas.get(all[i]!)!;
  return {
    plan,
    staticKeys,
    loadedWritable,
    loadedReadonly,
    header: {
      numRequiredSignatures: numSigners,
      numReadonlySignedAccounts: readonlySigners.length,
      numReadonlyUnsignedAccounts: readonlyOthers.length,
    },
    index,
    writable: (i) => role(i).writable,
    signer: (i) => role(i).signer,
    lookups,
  };
}

function rawIx(c: CompiledTx, ix: IxPlan, stackHeight: number | null) {
  return {
    accounts: ix.accounts.map((k) => c.index.get(k)!),
    data: toBase58(ix.data),
    programIdIndex: c.index.get(ix.program)!,
    stackHeight,
  };
}

function parsedIx(ix: IxPlan, stackHeight: number | null) {
  if (ix.parsed) return { parsed: { info: ix.parsed.info, type: ix.parsed.type }, program: ix.parsed.program, programId: ix.program, stackHeight };
  return { accounts: ix.accounts, data: toBase58(ix.data), programId: ix.program, stackHeight };
}

function uiAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return {
    amount: amount.toString(),
    decimals,
    // Zero balances are reported with a null uiAmount (as in the RPC example, docs/protocol.md §1).
    uiAmount: amount === 0n ? null : Number(amount) / 10 ** decimals,
    uiAmountString: frac ? `${whole}.${frac}` : whole,
  };
}

function tokenBalances(c: CompiledTx, which: 'pre' | 'post') {
  return c.plan.tokenBalances
    .map((t) => ({
      accountIndex: c.index.get(t.account)!,
      mint: t.mint,
      owner: t.owner,
      programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      uiTokenAmount: uiAmount(which === 'pre' ? t.pre : t.post, t.decimals),
    }))
    .sort((a, b) => a.accountIndex - b.accountIndex);
}

function balances(c: CompiledTx, which: 0 | 1): number[] {
  return [...c.staticKeys, ...c.loadedWritable, ...c.loadedReadonly].map((k) => c.plan.lamports.get(k)![which]);
}

function innerGroups(c: CompiledTx, render: (ix: InnerIxPlan) => unknown) {
  const out: { index: number; instructions: unknown[] }[] = [];
  c.plan.inner.forEach((list, index) => {
    if (list.length > 0) out.push({ index, instructions: list.map(render) });
  });
  return out;
}

/** The wire bytes of the transaction (signatures + message), with kit's encoders. */
export function wireBytes(c: CompiledTx): Uint8Array {
  const p = c.plan;
  const messageBytes = messageEncoder.encode({
    version: p.version,
    header: {
      numSignerAccounts: c.header.numRequiredSignatures,
      numReadonlySignerAccounts: c.header.numReadonlySignedAccounts,
      numReadonlyNonSignerAccounts: c.header.numReadonlyUnsignedAccounts,
    },
    staticAccounts: c.staticKeys as Address[],
    lifetimeToken: p.recentBlockhash as Blockhash,
    instructions: p.outer.map((ix) => ({
      programAddressIndex: c.index.get(ix.program)!,
      accountIndices: ix.accounts.map((k) => c.index.get(k)!),
      data: ix.data,
    })),
    ...(p.version === 0
      ? { addressTableLookups: c.lookups.map((l) => ({ lookupTableAddress: l.accountKey as Address, writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) }
      : {}),
  } as never) as TransactionMessageBytes;
  const sig = fromBase58(p.signature)! as SignatureBytes;
  return new Uint8Array(transactionEncoder.encode({ messageBytes, signatures: { [c.staticKeys[0]!]: sig } as never }));
}

/**
 * The `result` object of getTransaction. `withVersion`: whether the request carried
 * maxSupportedTransactionVersion (then `version` is "legacy" or 0; without it the field is
 * absent — a v0 transaction is refused before this point with -32015).
 */
export function renderTransaction(c: CompiledTx, encoding: TxEncoding, withVersion: boolean): Record<string, unknown> {
  const p = c.plan;
  const status = p.err === null ? { Ok: null } : { Err: p.err };
  const parsed = encoding === 'jsonParsed';
  const meta: Record<string, unknown> = {
    computeUnitsConsumed: p.computeUnits,
    err: p.err,
    fee: p.fee,
    innerInstructions: innerGroups(c, (ix) => (parsed ? parsedIx(ix, ix.stackHeight) : rawIx(c, ix, ix.stackHeight))),
    logMessages: p.logs,
    postBalances: balances(c, 1),
    postTokenBalances: tokenBalances(c, 'post'),
    preBalances: balances(c, 0),
    preTokenBalances: tokenBalances(c, 'pre'),
    rewards: [],
    status,
  };
  // jsonParsed lists loaded keys inside accountKeys (source "lookupTable") and omits loadedAddresses.
  if (!parsed) meta.loadedAddresses = { readonly: c.loadedReadonly, writable: c.loadedWritable };
  let transaction: unknown;
  if (encoding === 'base64' || encoding === 'base58') {
    const bytes = wireBytes(c);
    transaction = [encoding === 'base64' ? b64.decode(bytes) : b58.decode(bytes), encoding];
  } else if (parsed) {
    const keys = [...c.staticKeys, ...c.loadedWritable, ...c.loadedReadonly];
    transaction = {
      message: {
        accountKeys: keys.map((k, i) => ({ pubkey: k, signer: c.signer(i), source: i < c.staticKeys.length ? 'transaction' : 'lookupTable', writable: c.writable(i) })),
        ...(p.version === 0 ? { addressTableLookups: c.lookups } : {}),
        instructions: p.outer.map((ix) => parsedIx(ix, null)),
        recentBlockhash: p.recentBlockhash,
      },
      signatures: [p.signature],
    };
  } else {
    transaction = {
      message: {
        accountKeys: c.staticKeys,
        ...(p.version === 0 ? { addressTableLookups: c.lookups } : {}),
        header: c.header,
        instructions: p.outer.map((ix) => rawIx(c, ix, null)),
        recentBlockhash: p.recentBlockhash,
      },
      signatures: [p.signature],
    };
  }
  return {
    blockTime: p.blockTime,
    meta,
    slot: p.slot,
    transaction,
    ...(withVersion ? { version: p.version } : {}),
  };
}

// ---- `json` encoding straight to text ----------------------------------------------------
// getTransaction with encoding `json` is what every indexer asks for, once per transaction:
// building the object tree above and then sorting its keys (canonicalJson) was ≈ 40 % of the
// simulator's CPU in the ingest benchmark (docs/benchmarks.md "Ingest"). The writer below emits
// the same bytes directly into one reused buffer (json/json-text.ts), keys already in serde_json's
// sorted order; a test compares it with canonicalJson(renderTransaction(…, 'json', …)) over
// every kind of transaction.

const out = new JsonText();

function keyList(w: JsonText, keys: readonly string[]): void {
  w.raw('[');
  for (let i = 0; i < keys.length; i++) {
    if (i) w.raw(',');
    w.quoted(keys[i]!);
  }
  w.raw(']');
}

function numList(w: JsonText, xs: readonly number[]): void {
  w.raw('[');
  for (let i = 0; i < xs.length; i++) {
    if (i) w.raw(',');
    w.num(xs[i]!);
  }
  w.raw(']');
}

function rawIxText(w: JsonText, c: CompiledTx, ix: IxPlan, stackHeight: number | null): void {
  const index = c.index;
  w.raw('{"accounts":[');
  const accounts = ix.accounts;
  for (let i = 0; i < accounts.length; i++) {
    if (i) w.raw(',');
    w.num(index.get(accounts[i]!)!);
  }
  w.raw('],"data":').base58(ix.data).raw(',"programIdIndex":').num(index.get(ix.program)!).raw(',"stackHeight":');
  if (stackHeight === null) w.raw('null');
  else w.num(stackHeight);
  w.raw('}');
}

function uiAmountText(w: JsonText, amount: bigint, decimals: number): void {
  const digits = amount.toString();
  const s = digits.padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  w.raw('{"amount":').quoted(digits).raw(',"decimals":').num(decimals).raw(',"uiAmount":');
  if (amount === 0n) w.raw('null');
  else w.num(Number(amount) / 10 ** decimals);
  w.raw(',"uiAmountString":').quoted(frac ? `${whole}.${frac}` : whole).raw('}');
}

function tokenBalancesText(w: JsonText, sorted: { accountIndex: number; t: TxPlan['tokenBalances'][number] }[], which: 'pre' | 'post'): void {
  w.raw('[');
  for (let i = 0; i < sorted.length; i++) {
    const { accountIndex, t } = sorted[i]!;
    if (i) w.raw(',');
    w.raw('{"accountIndex":').num(accountIndex).raw(',"mint":').quoted(t.mint).raw(',"owner":').quoted(t.owner);
    w.raw(',"programId":"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA","uiTokenAmount":');
    uiAmountText(w, which === 'pre' ? t.pre : t.post, t.decimals);
    w.raw('}');
  }
  w.raw(']');
}

function balancesText(w: JsonText, c: CompiledTx, which: 0 | 1): void {
  const lamports = c.plan.lamports;
  w.raw('[');
  let first = true;
  for (const keys of [c.staticKeys, c.loadedWritable, c.loadedReadonly]) {
    for (const k of keys) {
      if (!first) w.raw(',');
      w.num(lamports.get(k)![which]);
      first = false;
    }
  }
  w.raw(']');
}

/**
 * The whole `result` of getTransaction in the `json` encoding as canonical JSON text: the
 * bytes of canonicalJson(renderTransaction(c, 'json', withVersion)), written directly.
 */
export function renderTransactionJsonText(c: CompiledTx, withVersion: boolean): string {
  return writeTransactionJson(c, withVersion).text();
}

/** renderTransactionJsonText as UTF-8 bytes (what the RPC server sends). */
export function renderTransactionJsonBytes(c: CompiledTx, withVersion: boolean): Buffer {
  return writeTransactionJson(c, withVersion).bytes();
}

function writeTransactionJson(c: CompiledTx, withVersion: boolean): JsonText {
  const p = c.plan;
  const w = out.reset();
  const err = p.err === null ? 'null' : canonicalJson(p.err);
  w.raw('{"blockTime":').num(p.blockTime).raw(',"meta":{"computeUnitsConsumed":').num(p.computeUnits).raw(',"err":').json(err);
  w.raw(',"fee":').num(p.fee).raw(',"innerInstructions":[');
  let first = true;
  for (let i = 0; i < p.inner.length; i++) {
    const list = p.inner[i]!;
    if (list.length === 0) continue;
    if (!first) w.raw(',');
    w.raw('{"index":').num(i).raw(',"instructions":[');
    for (let j = 0; j < list.length; j++) {
      if (j) w.raw(',');
      rawIxText(w, c, list[j]!, list[j]!.stackHeight);
    }
    w.raw(']}');
    first = false;
  }
  w.raw('],"loadedAddresses":{"readonly":');
  keyList(w, c.loadedReadonly);
  w.raw(',"writable":');
  keyList(w, c.loadedWritable);
  w.raw('},"logMessages":[');
  for (let i = 0; i < p.logs.length; i++) {
    if (i) w.raw(',');
    w.str(p.logs[i]!);
  }
  const sorted = p.tokenBalances.map((t) => ({ accountIndex: c.index.get(t.account)!, t })).sort((a, b) => a.accountIndex - b.accountIndex);
  w.raw('],"postBalances":');
  balancesText(w, c, 1);
  w.raw(',"postTokenBalances":');
  tokenBalancesText(w, sorted, 'post');
  w.raw(',"preBalances":');
  balancesText(w, c, 0);
  w.raw(',"preTokenBalances":');
  tokenBalancesText(w, sorted, 'pre');
  w.raw(',"rewards":[],"status":');
  if (p.err === null) w.raw('{"Ok":null}');
  else w.raw('{"Err":').json(err).raw('}');
  w.raw('},"slot":').num(p.slot).raw(',"transaction":{"message":{"accountKeys":');
  keyList(w, c.staticKeys);
  if (p.version === 0) {
    w.raw(',"addressTableLookups":[');
    for (let i = 0; i < c.lookups.length; i++) {
      const l = c.lookups[i]!;
      if (i) w.raw(',');
      w.raw('{"accountKey":').quoted(l.accountKey).raw(',"readonlyIndexes":');
      numList(w, l.readonlyIndexes);
      w.raw(',"writableIndexes":');
      numList(w, l.writableIndexes);
      w.raw('}');
    }
    w.raw(']');
  }
  const h = c.header;
  w.raw(',"header":{"numReadonlySignedAccounts":').num(h.numReadonlySignedAccounts);
  w.raw(',"numReadonlyUnsignedAccounts":').num(h.numReadonlyUnsignedAccounts);
  w.raw(',"numRequiredSignatures":').num(h.numRequiredSignatures).raw('},"instructions":[');
  for (let i = 0; i < p.outer.length; i++) {
    if (i) w.raw(',');
    rawIxText(w, c, p.outer[i]!, null);
  }
  w.raw('],"recentBlockhash":').quoted(p.recentBlockhash).raw('},"signatures":[').quoted(p.signature).raw(']}');
  if (withVersion) w.raw(',"version":').raw(p.version === 0 ? '0' : '"legacy"');
  return w.raw('}');
}
