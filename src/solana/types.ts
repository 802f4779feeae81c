/**
 * Solana JSON-RPC result shapes the indexer reads (Solana RPC docs: getSignaturesForAddress,
 * getTransaction, getAccountInfo; summarised in docs/protocol.md §1).
 * Only the fields we use are typed; everything else passes through untouched.
 */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** One entry of getSignaturesForAddress (newest → oldest). `blockTime` is Unix **seconds**. */
export interface SignatureInfo {
  signature: string;
  slot: number;
  /** null for a successful transaction, a TransactionError object otherwise. */
  err: unknown;
  memo: string | null;
  blockTime: number | null;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

/** An instruction in `json` encoding (programIdIndex) or `jsonParsed` for unknown programs (programId). */
export type InstructionJson =
  | { programIdIndex: number; data: string; accounts?: number[]; stackHeight?: number | null }
  | { programId: string; data?: string; parsed?: unknown; accounts?: string[]; stackHeight?: number | null };

/** getTransaction result (encoding `json`, maxSupportedTransactionVersion 0). `blockTime` in seconds. */
export interface TransactionResult {
  slot: number;
  blockTime: number | null;
  version?: 'legacy' | 0;
  meta: {
    err: unknown;
    fee?: number;
    logMessages?: string[] | null;
    innerInstructions?: { index: number; instructions: InstructionJson[] }[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
  transaction: {
    signatures: string[];
    message: { accountKeys: (string | { pubkey: string })[]; instructions?: InstructionJson[] };
  };
}

/** getAccountInfo / getMultipleAccounts value with `jsonParsed` encoding (agave account-decoder). */
export interface ParsedAccount {
  lamports: number;
  owner: string;
  executable: boolean;
  space?: number;
  data:
    | { program: string; parsed: { type: string; info: Record<string, unknown> }; space?: number }
    | [string, string]
    | string;
}

/** One call of a JSON-RPC batch: method and params. */
export interface RpcCallSpec {
  method: string;
  params: unknown[];
}

/** Outcome of one item of a batch: its result, or the error it ended with after retries. */
export type BatchOutcome<T> = { ok: true; result: T } | { ok: false; error: import('../core/index.js').AppError };

/**
 * One item of Helius `getTransactionsForAddress` with `transactionDetails: 'full'`: a
 * getTransaction result plus its position in the block (docs/protocol.md §7). `blockTime` Unix seconds.
 */
export interface AddressTransaction extends TransactionResult {
  /** Index of the transaction in its block (the `position` of a pagination token). */
  transactionIndex: number;
}

/** A page of Helius `getTransactionsForAddress` (docs/protocol.md §7): items, and the token of the next page (null: no more). */
export interface AddressTransactionsPage {
  data: AddressTransaction[];
  paginationToken: string | null;
}
