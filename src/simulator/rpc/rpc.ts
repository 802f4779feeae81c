import { blockHeightOf, COMMITMENTS, fromBase58, isSkippedSlot, lpMintOf, renderMint, tokenMints, type AccountEncoding, type Commitment, type MintAccount } from '../chain/index.js';
import { canonicalJson, orderedJson, RawJson } from '../json/index.js';
import { renderTransaction, renderTransactionJsonBytes, txError, type ChainView, type TxEncoding } from '../transactions/index.js';

/**
 * JSON-RPC 2.0 methods of a Solana node, as far as an indexer of one program needs them, with
 * Solana's own error codes and messages (agave rpc-client-api custom_error.rs, rpc.rs;
 * docs/protocol.md §1–§2).
 */
export const API_VERSION = '2.2.16';
const FEATURE_SET = 3_294_202_862;
const MAINNET_GENESIS = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
const MAX_SIGNATURES_LIMIT = 1000;
/** getTransactionsForAddress page limits: 1000 signatures, 100 full transactions (docs/protocol.md §7). */
const MAX_ADDRESS_SIGNATURES = 1000;
const MAX_ADDRESS_FULL = 100;
const MAX_MULTIPLE_ACCOUNTS = 100;

/** A JSON-RPC error (code, message, optional data) a method throws; the handler answers it as the node would. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** JSON-RPC -32602 "Invalid params", optionally with the node's detail message. */
export const invalidParams = (msg = 'Invalid params') => new RpcError(-32602, msg);

type Params = unknown[];
type Config = Record<string, unknown>;

function config(params: Params, at: number): Config {
  const c = params[at];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c)) throw invalidParams('Invalid params: invalid type: expected a map');
  return c as Config;
}

function commitmentOf(c: Config, minimum?: 'confirmed'): Commitment {
  const v = c.commitment ?? 'finalized';
  // Legacy names still accepted by the node.
  const legacy: Record<string, Commitment> = { recent: 'processed', single: 'confirmed', singleGossip: 'confirmed', root: 'finalized', max: 'finalized' };
  const name = typeof v === 'string' ? (legacy[v] ?? v) : v;
  if (!COMMITMENTS.includes(name as Commitment)) throw invalidParams(`Invalid params: unknown variant \`${String(v)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``);
  if (minimum && name === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return name as Commitment;
}

function pubkeyParam(v: unknown): string {
  if (typeof v !== 'string') throw invalidParams('Invalid params: invalid type: expected a string');
  const bytes = fromBase58(v);
  if (!bytes) throw invalidParams('Invalid param: Invalid');
  if (bytes.length !== 32) throw invalidParams('Invalid param: WrongSize');
  return v;
}

function signatureParam(v: unknown): string {
  if (typeof v !== 'string') throw invalidParams('Invalid params: invalid type: expected a string');
  const bytes = fromBase58(v);
  if (!bytes) throw invalidParams('Invalid param: Invalid');
  if (bytes.length !== 64) throw invalidParams('Invalid param: WrongSize');
  return v;
}

function u64Param(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw invalidParams('Invalid params: invalid type: expected u64');
  return v;
}

/** (slot, index) against a pagination position: negative before it, positive after it. */
const cmp = (slot: number, index: number, at: [number, number]) => (slot !== at[0] ? slot - at[0] : index - at[1]);

/** A getTransactionsForAddress range filter (gte, gt, lte, lt; eq for blockTime) as inclusive bounds and a test. */
function rangeOf(v: unknown, name: string): { lo: number; hi: number; test(x: number): boolean } {
  if (v === undefined || v === null) return { lo: -Infinity, hi: Infinity, test: () => true };
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParams(`Invalid params: filters.${name} must be a map`);
  const r = v as Record<string, unknown>;
  let lo = -Infinity;
  let hi = Infinity;
  for (const [k, raw] of Object.entries(r)) {
    const n = u64Param(raw);
    if (k === 'gte') lo = Math.max(lo, n);
    else if (k === 'gt') lo = Math.max(lo, n + 1);
    else if (k === 'lte') hi = Math.min(hi, n);
    else if (k === 'lt') hi = Math.min(hi, n - 1);
    else if (k === 'eq' && name === 'blockTime') {
      lo = Math.max(lo, n);
      hi = Math.min(hi, n);
    } else throw invalidParams(`Invalid params: unknown field \`${k}\` in filters.${name}`);
  }
  return { lo, hi, test: (x) => x >= lo && x <= hi };
}

/** The JSON-RPC methods of the simulated node, dispatched per request object (batches are split by the server). */
export interface RpcHandler {
  /**
   * Handles one parsed JSON-RPC request object; returns its serialized response (UTF-8 bytes
   * for the answers rendered straight to bytes, getTransaction `json`), or null for a notification.
   */
  handle(request: unknown, opts?: { unhealthy?: boolean }): Promise<string | Buffer | null>;
}

const RESULT_PREFIX = Buffer.from('{"jsonrpc":"2.0","result":');

/** The serialized JSON-RPC error response for request `id` (null when unknown). */
export function errorResponse(id: unknown, err: RpcError): string {
  const error = err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data };
  return orderedJson({ jsonrpc: '2.0', error, id: id ?? null });
}

/** The JSON-RPC handler over a chain view (unknown methods answer -32601). */
export function createRpcHandler(view: ChainView): RpcHandler {
  const { ledger, clock } = view;
  const tl = ledger.timeline;
  const eco = view.economy;
  const mints = tokenMints(view.seed);

  function contextSlot(c: Config, commitment: Commitment): number {
    const slot = clock.slot(commitment);
    if (c.minContextSlot !== undefined) {
      const min = u64Param(c.minContextSlot);
      if (min > slot) throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot });
    }
    return slot;
  }

  const context = (slot: number) => ({ apiVersion: API_VERSION, slot });

  /** Pool liquidity / LP supply after every confirmed event up to `slot` (for LP mint supply). */
  async function lpSupplyAt(pool: number, slot: number): Promise<bigint> {
    const seg = Math.min(tl.segmentOfSlot(slot), view.headSegment());
    if (seg < 0) return 0n;
    const state = await ledger.stateBefore(seg);
    let lp = state.pools[pool]!.lpSupply;
    const real = await ledger.realize(seg);
    for (const t of real.txs) {
      if (t.skel.slot > slot) break;
      if (t.poolOp && t.skel.fail === null && t.skel.pool!.index === pool) lp = t.poolOp.event.lpSupply;
    }
    return lp;
  }

  async function mintAccount(address: string, slot: number): Promise<MintAccount | null> {
    const m = mints.get(address);
    if (m) return m;
    const lp = lpMintOf(eco, address);
    if (!lp) return null;
    const pool = eco.pools[lp.pool]!;
    if (tl.segmentOfSlot(slot) <= pool.createdSegment && tl.segmentOfSlot(slot) >= 0) {
      // Created inside its creation segment: exists once the pool_initialize slot has passed.
      const real = await ledger.realize(pool.createdSegment);
      const init = real.txs.find((t) => t.skel.kind === 'poolInit' && t.skel.pool === pool);
      if (!init || init.skel.slot > slot) return null;
    }
    return { address, decimals: pool.token.decimals, supply: await lpSupplyAt(lp.pool, slot), mintAuthority: pool.address, freezeAuthority: null };
  }

  function accountEncoding(c: Config, dflt: AccountEncoding): AccountEncoding {
    const e = c.encoding ?? dflt;
    if (e === 'jsonParsed' || e === 'base64' || e === 'base58' || e === 'binary') return e;
    if (e === 'base64+zstd') throw invalidParams('Invalid params: base64+zstd is not supported by the simulator');
    throw invalidParams(`Invalid params: unknown variant \`${String(e)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\``);
  }

  function dataSlice(c: Config): { offset: number; length: number } | undefined {
    const s = c.dataSlice as { offset?: unknown; length?: unknown } | undefined;
    if (!s) return undefined;
    return { offset: u64Param(s.offset), length: u64Param(s.length) };
  }

  /** Signatures mentioning `address`, newest first, honouring before/until (exclusive) and limit. */
  async function signaturesFor(address: string, c: Config): Promise<unknown[]> {
    const commitment = commitmentOf(c, 'confirmed');
    const maxSlot = contextSlot(c, commitment);
    const finalized = clock.slot('finalized');
    let limit = MAX_SIGNATURES_LIMIT;
    if (c.limit !== undefined && c.limit !== null) {
      if (typeof c.limit !== 'number' || !Number.isInteger(c.limit) || c.limit < 1 || c.limit > MAX_SIGNATURES_LIMIT) {
        throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_LIMIT}`);
      }
      limit = c.limit;
    }
    const before = c.before !== undefined && c.before !== null ? signatureParam(c.before) : null;
    const until = c.until !== undefined && c.until !== null ? signatureParam(c.until) : null;
    const match = view.matcher(address);
    const headSeg = view.headSegment();
    let seg = tl.segmentOfSlot(maxSlot);
    let pos: number | null = null; // exclusive upper position inside `seg`
    if (before) {
      // An unknown `before` yields nothing (agave blockstore: the start signature must be found).
      const at = ledger.locate(before, headSeg);
      if (!at) return [];
      seg = at.seg.index;
      pos = at.seg.genToPos[at.tx.gen]!;
    }
    // An `until` the node cannot find is ignored: the walk goes on to the oldest history.
    const stop = until ? ledger.locate(until, headSeg) : null;
    const out: unknown[] = [];
    if (!match) return out;
    const player = view.playerOf(address);
    for (; seg >= 0 && out.length < limit; seg--, pos = null) {
      if (stop && seg < stop.seg.index) break;
      if (player >= 0 && !ledger.mayHavePlayer(seg, player)) continue;
      const skel = ledger.skeleton(seg);
      for (let i = (pos ?? skel.txs.length) - 1; i >= 0 && out.length < limit; i--) {
        const tx = skel.txs[i]!;
        if (stop && stop.seg.index === seg && stop.tx.gen === tx.gen) return out;
        if (tx.slot > maxSlot) continue;
        if (!match(tx)) continue;
        out.push({
          blockTime: tl.blockTime(tx.slot),
          confirmationStatus: tx.slot <= finalized ? 'finalized' : 'confirmed',
          err: txError(tx),
          memo: null,
          signature: view.signature(tx),
          slot: tx.slot,
        });
      }
    }
    return out;
  }

  async function getTransaction(params: Params): Promise<unknown> {
    const sig = signatureParam(params[0]);
    // The second parameter may be the legacy bare encoding string.
    const c: Config = typeof params[1] === 'string' ? { encoding: params[1] } : config(params, 1);
    const commitment = commitmentOf(c, 'confirmed');
    const encoding = (c.encoding ?? 'json') as TxEncoding;
    if (!['json', 'jsonParsed', 'base64', 'base58'].includes(encoding)) {
      throw invalidParams(`Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\``);
    }
    let maxVersion: number | undefined;
    if (c.maxSupportedTransactionVersion !== undefined && c.maxSupportedTransactionVersion !== null) maxVersion = u64Param(c.maxSupportedTransactionVersion);
    const at = ledger.locate(sig, view.headSegment());
    if (!at) return null;
    if (at.tx.slot > clock.slot(commitment)) return null;
    const nullTx = view.faults().spec.nullTxSeconds ?? 0;
    if (nullTx > 0 && tl.slotTimeMs(at.tx.slot) > clock.nowMs() - nullTx * 1000) return null;
    if (at.tx.v0 && maxVersion === undefined) {
      throw new RpcError(
        -32015,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    }
    if (encoding === 'json' && maxVersion !== undefined && view.rendered.size > 0) {
      const kept = view.rendered.get(sig);
      if (kept !== undefined && !view.logsTruncated(at.tx)) return new RawJson(kept);
    }
    const real = await ledger.realize(at.seg.index);
    const compiled = view.build(real.txs[at.seg.genToPos[at.tx.gen]!]!);
    // `json` (what indexers ask for) is written straight to canonical text; the others go through objects.
    if (encoding === 'json') return new RawJson(renderTransactionJsonBytes(compiled, maxVersion !== undefined));
    return renderTransaction(compiled, encoding, maxVersion !== undefined);
  }

  /**
   * Helius `getTransactionsForAddress` (docs/protocol.md §7): the address's transactions in
   * (slot, transactionIndex) order, `desc` (default) or `asc`, after the `paginationToken`
   * ("slot:transactionIndex" of the previous page's last item; null once nothing is left), with
   * `filters.slot` / `filters.blockTime` ranges (gte, gt, lte, lt; blockTime also eq, Unix s) and
   * `filters.status` (succeeded, failed, any). `transactionDetails: 'signatures'` answers
   * getSignaturesForAddress-like items (≤ 1000), `full` whole getTransaction results plus
   * `transactionIndex` (≤ 100). The index of a transaction is its place among the simulated
   * chain's transactions of its slot. `filters.signature` is not simulated (-32602).
   */
  async function transactionsForAddress(params: Params): Promise<unknown> {
    const address = pubkeyParam(params[0]);
    const c = config(params, 1);
    const details = c.transactionDetails ?? 'signatures';
    if (details !== 'signatures' && details !== 'full') throw invalidParams(`Invalid params: unknown variant \`${String(details)}\`, expected \`signatures\` or \`full\``);
    const sortOrder = c.sortOrder ?? 'desc';
    if (sortOrder !== 'asc' && sortOrder !== 'desc') throw invalidParams(`Invalid params: unknown variant \`${String(sortOrder)}\`, expected \`asc\` or \`desc\``);
    const commitment = commitmentOf(c, 'confirmed');
    const maxSlot = contextSlot(c, commitment);
    const finalized = clock.slot('finalized');
    const maxLimit = details === 'full' ? MAX_ADDRESS_FULL : MAX_ADDRESS_SIGNATURES;
    let limit = maxLimit;
    if (c.limit !== undefined && c.limit !== null) {
      if (typeof c.limit !== 'number' || !Number.isInteger(c.limit) || c.limit < 1 || c.limit > maxLimit) throw invalidParams(`Invalid limit; max ${maxLimit} for transactionDetails ${details}`);
      limit = c.limit;
    }
    const encoding = (c.encoding ?? 'json') as TxEncoding;
    if (!['json', 'jsonParsed', 'base64', 'base58'].includes(encoding)) {
      throw invalidParams(`Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`base64\`, \`base58\`, \`json\`, \`jsonParsed\``);
    }
    let maxVersion: number | undefined;
    if (c.maxSupportedTransactionVersion !== undefined && c.maxSupportedTransactionVersion !== null) maxVersion = u64Param(c.maxSupportedTransactionVersion);
    let after: [number, number] | null = null;
    if (c.paginationToken !== undefined && c.paginationToken !== null) {
      const m = typeof c.paginationToken === 'string' ? /^(\d+):(\d+)$/.exec(c.paginationToken) : null;
      if (!m) throw invalidParams('Invalid pagination token');
      after = [Number(m[1]), Number(m[2])];
    }
    const f = (c.filters ?? {}) as Config;
    if (typeof f !== 'object' || Array.isArray(f)) throw invalidParams('Invalid params: filters must be a map');
    if (f.signature !== undefined) throw invalidParams('Invalid params: filters.signature is not supported by the simulator');
    const status = f.status ?? 'any';
    if (status !== 'any' && status !== 'succeeded' && status !== 'failed') throw invalidParams(`Invalid params: unknown variant \`${String(status)}\`, expected one of \`succeeded\`, \`failed\`, \`any\``);
    const tokenAccounts = f.tokenAccounts ?? 'none';
    if (tokenAccounts !== 'none' && tokenAccounts !== 'balanceChanged' && tokenAccounts !== 'all') throw invalidParams('Invalid params: filters.tokenAccounts must be none, balanceChanged or all');
    const slotRange = rangeOf(f.slot, 'slot');
    const timeRange = rangeOf(f.blockTime, 'blockTime');
    // Bounds on the slot: the slot filter, the context slot; block time only grows with the slot.
    let lo = Math.max(tl.historyStartSlot, slotRange.lo);
    let hi = Math.min(maxSlot, slotRange.hi);
    if (timeRange.lo > -Infinity) lo = Math.max(lo, tl.slotAtMs(timeRange.lo * 1000) - 1);
    if (timeRange.hi < Infinity) hi = Math.min(hi, tl.slotAtMs((timeRange.hi + 1) * 1000) + 1);

    const match = view.matcher(address);
    const player = view.playerOf(address);
    const headSeg = view.headSegment();
    type Hit = { seg: number; pos: number; slot: number; index: number; tx: import('../chain/index.js').TxSkel };
    const hits: Hit[] = [];
    let more = false;
    if (match && lo <= hi) {
      const desc = sortOrder === 'desc';
      const first = Math.max(0, tl.segmentOfSlot(lo));
      const last = Math.min(headSeg, tl.segmentOfSlot(hi));
      outer: for (let seg = desc ? last : first; desc ? seg >= first : seg <= last; seg += desc ? -1 : 1) {
        if (player >= 0 && !ledger.mayHavePlayer(seg, player)) continue;
        const skel = ledger.skeleton(seg);
        // Index in slot of each transaction of the segment (block order: slot, then signature).
        const index = new Array<number>(skel.txs.length);
        for (let i = 0; i < skel.txs.length; i++) index[i] = i > 0 && skel.txs[i - 1]!.slot === skel.txs[i]!.slot ? index[i - 1]! + 1 : 0;
        for (let k = 0; k < skel.txs.length; k++) {
          const i = desc ? skel.txs.length - 1 - k : k;
          const tx = skel.txs[i]!;
          if (tx.slot < lo || tx.slot > hi) continue;
          if (after && (desc ? cmp(tx.slot, index[i]!, after) >= 0 : cmp(tx.slot, index[i]!, after) <= 0)) continue;
          if (!match(tx)) continue;
          const t = tl.blockTime(tx.slot);
          if (!timeRange.test(t)) continue;
          const ok = txError(tx) === null;
          if ((status === 'succeeded' && !ok) || (status === 'failed' && ok)) continue;
          if (hits.length === limit) {
            more = true;
            break outer;
          }
          hits.push({ seg, pos: i, slot: tx.slot, index: index[i]!, tx });
        }
      }
    }
    const lastHit = hits[hits.length - 1];
    const paginationToken = more && lastHit ? `${lastHit.slot}:${lastHit.index}` : null;
    const data: unknown[] = [];
    for (const h of hits) {
      if (details === 'signatures') {
        data.push({
          blockTime: tl.blockTime(h.slot),
          confirmationStatus: h.slot <= finalized ? 'finalized' : 'confirmed',
          err: txError(h.tx),
          memo: null,
          signature: view.signature(h.tx),
          slot: h.slot,
          transactionIndex: h.index,
        });
        continue;
      }
      if (h.tx.v0 && maxVersion === undefined) {
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      const real = await ledger.realize(h.seg);
      const compiled = view.build(real.txs[h.pos]!);
      if (encoding === 'json') {
        const bytes = renderTransactionJsonBytes(compiled, maxVersion !== undefined);
        data.push(new RawJson(Buffer.concat([Buffer.from(`{"transactionIndex":${h.index},`), bytes.subarray(1)])));
      } else {
        data.push({ ...renderTransaction(compiled, encoding, maxVersion !== undefined), transactionIndex: h.index });
      }
    }
    return { data, paginationToken };
  }

  async function accountValue(address: string, c: Config, slot: number, dflt: AccountEncoding): Promise<unknown> {
    const enc = accountEncoding(c, dflt);
    const m = await mintAccount(address, slot);
    return m ? renderMint(m, enc, dataSlice(c)) : null;
  }

  const methods: Record<string, (params: Params) => Promise<unknown> | unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'feature-set': FEATURE_SET, 'solana-core': API_VERSION }),
    getGenesisHash: () => MAINNET_GENESIS,
    getSlot: (p) => {
      const c = config(p, 0);
      return contextSlot(c, commitmentOf(c));
    },
    getBlockHeight: (p) => {
      const c = config(p, 0);
      return blockHeightOf(contextSlot(c, commitmentOf(c)));
    },
    getFirstAvailableBlock: () => tl.historyStartSlot,
    minimumLedgerSlot: () => tl.historyStartSlot,
    getLatestBlockhash: (p) => {
      const c = config(p, 0);
      const slot = contextSlot(c, commitmentOf(c));
      return { context: context(slot), value: { blockhash: view.blockhash(slot), lastValidBlockHeight: blockHeightOf(slot) + 150 } };
    },
    getBlockTime: (p) => {
      const slot = u64Param(p[0]);
      if (slot > clock.slot('confirmed')) throw new RpcError(-32004, `Block not available for slot ${slot}`);
      if (isSkippedSlot(slot)) throw new RpcError(-32009, `Slot ${slot} was skipped, or missing in long-term storage`);
      return tl.blockTime(slot);
    },
    getSignaturesForAddress: (p) => signaturesFor(pubkeyParam(p[0]), config(p, 1)),
    getTransaction,
    getTransactionsForAddress: transactionsForAddress,
    getSignatureStatuses: async (p) => {
      const list = p[0];
      if (!Array.isArray(list)) throw invalidParams('Invalid params: invalid type: expected a sequence');
      if (list.length > 256) throw invalidParams('Too many inputs provided; max 256');
      const processed = clock.slot('processed');
      const finalized = clock.slot('finalized');
      const value = list.map((s) => {
        const at = ledger.locate(signatureParam(s), view.headSegment());
        if (!at || at.tx.slot > processed) return null;
        const err = txError(at.tx);
        const fin = at.tx.slot <= finalized;
        return {
          confirmationStatus: fin ? 'finalized' : at.tx.slot < processed ? 'confirmed' : 'processed',
          confirmations: fin ? null : processed - at.tx.slot,
          err,
          slot: at.tx.slot,
          status: err === null ? { Ok: null } : { Err: err },
        };
      });
      return { context: context(processed), value };
    },
    getAccountInfo: async (p) => {
      const address = pubkeyParam(p[0]);
      const c = config(p, 1);
      const slot = contextSlot(c, commitmentOf(c));
      return { context: context(slot), value: await accountValue(address, c, slot, 'binary') };
    },
    getMultipleAccounts: async (p) => {
      const list = p[0];
      if (!Array.isArray(list)) throw invalidParams('Invalid params: invalid type: expected a sequence');
      if (list.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      const keys = list.map(pubkeyParam);
      const c = config(p, 1);
      const slot = contextSlot(c, commitmentOf(c));
      const value = [];
      for (const k of keys) value.push(await accountValue(k, c, slot, 'base64'));
      return { context: context(slot), value };
    },
    getTokenSupply: async (p) => {
      const address = pubkeyParam(p[0]);
      const c = config(p, 1);
      const slot = contextSlot(c, commitmentOf(c));
      const m = await mintAccount(address, slot);
      if (!m) throw invalidParams('Invalid param: could not find account');
      const s = m.supply.toString().padStart(m.decimals + 1, '0');
      const whole = s.slice(0, s.length - m.decimals);
      const frac = s.slice(s.length - m.decimals).replace(/0+$/, '');
      return {
        context: context(slot),
        value: { amount: m.supply.toString(), decimals: m.decimals, uiAmount: Number(m.supply) / 10 ** m.decimals, uiAmountString: frac ? `${whole}.${frac}` : whole },
      };
    },
  };

  return {
    async handle(request, opts = {}) {
      if (typeof request !== 'object' || request === null || Array.isArray(request)) return errorResponse(null, new RpcError(-32600, 'Invalid request'));
      const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
      const id = r.id;
      if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return errorResponse(id, new RpcError(-32600, 'Invalid request'));
      const notification = !('id' in r);
      try {
        const fn = methods[r.method];
        if (!fn) throw new RpcError(-32601, 'Method not found');
        if (opts.unhealthy) {
          const behind = 42;
          throw new RpcError(-32005, `Node is behind by ${behind} slots`, { numSlotsBehind: behind });
        }
        if (r.params !== undefined && !Array.isArray(r.params)) throw invalidParams('Invalid params: invalid type: map, expected a sequence');
        const result = await fn((r.params as Params | undefined) ?? []);
        if (notification) return null;
        if (result instanceof RawJson) return Buffer.concat([RESULT_PREFIX, result.bytes, Buffer.from(`,"id":${orderedJson(id ?? null)}}`)]);
        return `{"jsonrpc":"2.0","result":${canonicalJson(result)},"id":${orderedJson(id ?? null)}}`;
      } catch (err) {
        if (notification) return null;
        if (err instanceof RpcError) return errorResponse(id, err);
        return errorResponse(id, new RpcError(-32603, 'Internal error'));
      }
    },
  };
}
