import { createRpcTransport, MAX_BATCH, type CallOptions, type RpcTransport, type RpcTransportOptions } from './rpc-client.js';
import type { AddressTransactionsPage, Commitment, ParsedAccount, SignatureInfo, TransactionResult } from './types.js';

/** Options of getSignaturesForAddress (Solana RPC docs). */
export interface SignaturesQuery extends CallOptions {
  /** Exclusive: start searching backwards from this signature (newest → oldest). */
  before?: string;
  /** Exclusive: stop when this signature is reached. Nodes silently ignore an unknown `until`. */
  until?: string;
  /** 1..1000 (default 1000; RPC rejects more with -32602). */
  limit?: number;
  /** `confirmed` or `finalized` (default); `processed` is rejected by nodes for this method. */
  commitment?: Exclude<Commitment, 'processed'>;
}

/** Options of getTransaction(s): the commitment (default `finalized`). */
export interface TxQuery extends CallOptions {
  commitment?: Exclude<Commitment, 'processed'>;
}

/** A slot or block-time range of Helius `getTransactionsForAddress` filters (docs/protocol.md §7); block times in Unix seconds. */
export interface RangeFilter {
  gte?: number;
  gt?: number;
  lte?: number;
  lt?: number;
}

/**
 * Options of Helius `getTransactionsForAddress` with `transactionDetails: 'full'` (docs/protocol.md §7);
 * encoding `json` and maxSupportedTransactionVersion 0 are always sent.
 */
export interface AddressTransactionsQuery extends CallOptions {
  /** `desc` newest first (the provider's default), `asc` oldest first. */
  sortOrder?: 'asc' | 'desc';
  /** 1..100 in full mode (default 100). */
  limit?: number;
  /** The previous page's `paginationToken` ("slot:position"). */
  paginationToken?: string;
  /** `confirmed` or `finalized` (default); `processed` is not supported by the method. */
  commitment?: Exclude<Commitment, 'processed'>;
  /** Server-side filters: slot range, block-time range (Unix s), transaction status (default `any`). */
  filters?: { slot?: RangeFilter; blockTime?: RangeFilter; status?: 'succeeded' | 'failed' | 'any' };
}

/** Largest `limit` of getTransactionsForAddress in full mode (docs/protocol.md §7). */
export const ADDRESS_TRANSACTIONS_MAX_FULL = 100;

/**
 * The Solana JSON-RPC client: the transport (retries, rate cap, concurrency, batches) plus
 * typed helpers for the methods the indexer uses (Solana RPC docs; docs/protocol.md §1).
 */
export interface RpcClient extends RpcTransport {
  /** Newest → oldest signatures involving `address`; Unix-seconds blockTimes. */
  getSignaturesForAddress(address: string, q?: SignaturesQuery): Promise<SignatureInfo[]>;
  /** encoding `json`, maxSupportedTransactionVersion 0. null = unknown or not yet at that commitment (retry later). */
  getTransaction(signature: string, q?: TxQuery): Promise<TransactionResult | null>;
  /**
   * Batched getTransaction, in input order. An item whose retries ran out on a transient error
   * comes back `null` (the caller retries it later, like a not-yet-available transaction);
   * a non-retryable item error throws its AppError.
   */
  getTransactions(signatures: string[], q?: TxQuery): Promise<(TransactionResult | null)[]>;
  /**
   * Helius `getTransactionsForAddress` in full mode (docs/protocol.md §7): up to 100 whole
   * transactions of `address` per request, with their page token. Endpoints without the method
   * answer JSON-RPC -32601 (AppError RPC_ERROR, not retried).
   */
  getTransactionsForAddress(address: string, q?: AddressTransactionsQuery): Promise<AddressTransactionsPage>;
  /** Slot of each signature (getSignatureStatuses with searchTransactionHistory), null when the node does not know it; ≤ 256 per call. */
  getSignatureSlots(signatures: string[], q?: CallOptions): Promise<(number | null)[]>;
  getSlot(q?: { commitment?: Commitment } & CallOptions): Promise<number>;
  /** jsonParsed account, or null when the account does not exist. */
  getAccountInfo(address: string, q?: { commitment?: Commitment } & CallOptions): Promise<ParsedAccount | null>;
  /** jsonParsed accounts in input order (chunks of ≤ 100 keys per call). */
  getMultipleAccounts(addresses: string[], q?: { commitment?: Commitment } & CallOptions): Promise<(ParsedAccount | null)[]>;
  /** SPL / Token-2022 mint decimals from the jsonParsed mint accounts; mints that don't exist or aren't mints are absent. */
  getMintDecimals(mints: string[], q?: CallOptions): Promise<Map<string, number>>;
}

/** What createRpcClient takes: the transport's options. */
export type RpcClientOptions = RpcTransportOptions;

/** Builds the client; nothing is sent until a method is called. */
export function createRpcClient(opts: RpcClientOptions): RpcClient {
  const t = createRpcTransport(opts);

  const txParams = (signature: string, commitment: string) => [
    signature,
    { encoding: 'json', maxSupportedTransactionVersion: 0, commitment },
  ];

  async function getMultipleAccounts(addresses: string[], q: { commitment?: Commitment } & CallOptions = {}): Promise<(ParsedAccount | null)[]> {
    const calls = [];
    for (let i = 0; i < addresses.length; i += MAX_BATCH) {
      const keys = addresses.slice(i, i + MAX_BATCH);
      calls.push(
        t.call<{ value: (ParsedAccount | null)[] }>('getMultipleAccounts', [keys, { encoding: 'jsonParsed', commitment: q.commitment ?? 'confirmed' }], q),
      );
    }
    const parts = await Promise.all(calls);
    return parts.flatMap((p) => p.value);
  }

  return {
    get url() {
      return t.url;
    },
    get batchesSupported() {
      return t.batchesSupported;
    },
    get requests() {
      return t.requests;
    },
    call: t.call,
    batch: t.batch,

    getSignaturesForAddress(address, q = {}) {
      const cfg: Record<string, unknown> = { limit: q.limit ?? 1000, commitment: q.commitment ?? 'finalized' };
      if (q.before) cfg.before = q.before;
      if (q.until) cfg.until = q.until;
      return t.call<SignatureInfo[]>('getSignaturesForAddress', [address, cfg], q);
    },

    getTransaction(signature, q = {}) {
      return t.call<TransactionResult | null>('getTransaction', txParams(signature, q.commitment ?? 'finalized'), q);
    },

    async getTransactions(signatures, q = {}) {
      const commitment = q.commitment ?? 'finalized';
      const outcomes = await t.batch<TransactionResult | null>(
        signatures.map((s) => ({ method: 'getTransaction', params: txParams(s, commitment) })),
        q,
      );
      return outcomes.map((o) => {
        if (o.ok) return o.result;
        if (o.error.retryable) return null;
        throw o.error;
      });
    },

    async getTransactionsForAddress(address, q = {}) {
      const cfg: Record<string, unknown> = {
        transactionDetails: 'full',
        sortOrder: q.sortOrder ?? 'desc',
        limit: q.limit ?? ADDRESS_TRANSACTIONS_MAX_FULL,
        commitment: q.commitment ?? 'finalized',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      };
      if (q.paginationToken) cfg.paginationToken = q.paginationToken;
      if (q.filters) cfg.filters = q.filters;
      const page = await t.call<AddressTransactionsPage>('getTransactionsForAddress', [address, cfg], q);
      return { data: page?.data ?? [], paginationToken: page?.paginationToken ?? null };
    },

    async getSignatureSlots(signatures, q = {}) {
      if (signatures.length === 0) return [];
      const r = await t.call<{ value: ({ slot: number } | null)[] }>('getSignatureStatuses', [signatures, { searchTransactionHistory: true }], q);
      return signatures.map((_, i) => r.value[i]?.slot ?? null);
    },

    getSlot(q = {}) {
      return t.call<number>('getSlot', [{ commitment: q.commitment ?? 'confirmed' }], q);
    },

    async getAccountInfo(address, q = {}) {
      const r = await t.call<{ value: ParsedAccount | null }>('getAccountInfo', [address, { encoding: 'jsonParsed', commitment: q.commitment ?? 'confirmed' }], q);
      return r.value;
    },

    getMultipleAccounts,

    async getMintDecimals(mints, q = {}) {
      const out = new Map<string, number>();
      if (mints.length === 0) return out;
      const accounts = await getMultipleAccounts(mints, q);
      accounts.forEach((acc, i) => {
        const d = mintDecimals(acc);
        if (d !== undefined) out.set(mints[i]!, d);
      });
      return out;
    },
  };
}

/** `decimals` of a jsonParsed mint account (agave account-decoder UiMint), else undefined. */
export function mintDecimals(acc: ParsedAccount | null): number | undefined {
  if (!acc || typeof acc.data !== 'object' || Array.isArray(acc.data)) return undefined;
  const parsed = acc.data.parsed;
  if (!parsed || parsed.type !== 'mint') return undefined;
  const d = parsed.info.decimals;
  return typeof d === 'number' && Number.isInteger(d) && d >= 0 && d <= 255 ? d : undefined;
}
