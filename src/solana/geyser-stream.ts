import bs58 from 'bs58';
import type { SubscribeUpdate, SubscribeUpdateTransactionInfo } from '@triton-one/yellowstone-grpc';
import { AppError, type Common } from '../core/index.js';
import type { InstructionJson, TransactionResult } from './types.js';

/** One confirmed slot of the program's transactions from Yellowstone, in block order, with the block's time. */
export interface GeyserSlot {
  slot: number;
  /** Unix seconds (the block meta's `blockTime`). */
  blockTime: number;
  /** getTransaction-shaped (encoding `json`) transactions of the slot mentioning the address, block order. */
  transactions: (TransactionResult & { signature: string })[];
}

/** What openGeyserStream takes. */
export interface GeyserStreamOptions {
  common: Common;
  /** YELLOWSTONE_URL: the gRPC endpoint (`https://…` with TLS, `http://…` plaintext). */
  url: string;
  /** YELLOWSTONE_TOKEN: sent as `x-token` (providers' auth); undefined = none. */
  token?: string;
  /** The account the transactions must mention (`accountInclude`). */
  address: string;
  /** Commitment of the subscription (default `confirmed`). */
  commitment?: 'processed' | 'confirmed' | 'finalized';
  /** Called with each slot once its block meta arrived (its transactions came before it). */
  onSlot(s: GeyserSlot): void;
}

/** One open Yellowstone subscription. */
export interface GeyserStream {
  /** Resolves when the stream ended (server end, error, or `close`), with the error if any. */
  readonly ended: Promise<Error | undefined>;
  close(): void;
}

/** Time allowed for the subscription to be acknowledged (the pong of the ping sent with it), ms. */
const SUBSCRIBE_TIMEOUT_MS = 10_000;

/**
 * Opens one Yellowstone gRPC `Subscribe` stream (geyser.proto; docs/protocol.md §8) through the
 * @triton-one/yellowstone-grpc client (loaded on first use): transactions mentioning `address`
 * (votes excluded, failed included), the block meta of every slot (its `blockTime`) and a ping.
 * Resolves once the server answered the ping — from then on every slot past the head it had
 * is streamed — and rejects with AppError RPC_UNAVAILABLE when it could not connect or subscribe.
 * Transactions are buffered per slot and handed to `onSlot` when the slot's block meta
 * arrives. Reconnecting (and filling the gap from history) is the caller's job.
 */
export async function openGeyserStream(o: GeyserStreamOptions): Promise<GeyserStream> {
  const mod = await import('@triton-one/yellowstone-grpc');
  // A CommonJS package: Node hands its `exports.default` (the Client class) as the default export; TypeScript's NodeNext model expects it one level down.
  const Client = ((mod.default as { default?: unknown }).default ?? mod.default) as typeof mod.default.default;
  const { CommitmentLevel } = mod;
  const client = new Client(o.url, o.token, { grpcConnectTimeout: SUBSCRIBE_TIMEOUT_MS });
  const level = { processed: CommitmentLevel.PROCESSED, confirmed: CommitmentLevel.CONFIRMED, finalized: CommitmentLevel.FINALIZED }[o.commitment ?? 'confirmed'];
  const pingId = 1 + Math.floor(Math.random() * 1_000_000);
  const request = {
    transactions: { program: { accountInclude: [o.address], accountExclude: [], accountRequired: [], vote: false } },
    blocksMeta: { blocks: {} },
    commitment: level,
    accounts: {},
    slots: {},
    transactionsStatus: {},
    blocks: {},
    entry: {},
    accountsDataSlice: [],
    ping: { id: pingId },
  };
  let stream: Awaited<ReturnType<InstanceType<typeof Client>['subscribe']>>;
  try {
    await client.connect();
    // The filters travel as the stream's first message.
    stream = await client.subscribe(request);
  } catch (e) {
    throw new AppError('RPC_UNAVAILABLE', `yellowstone: could not connect to ${hostOf(o.url)}: ${(e as Error).message}`, { retryable: true, cause: e });
  }
  const pending = new Map<number, GeyserSlot['transactions']>();
  let acked!: () => void;
  const subscribed = new Promise<void>((resolve) => (acked = resolve));
  let settle!: (e: Error | undefined) => void;
  const ended = new Promise<Error | undefined>((resolve) => (settle = resolve));

  stream.on('data', (u: SubscribeUpdate) => {
    try {
      if (u.pong?.id === pingId) acked();
      if (u.transaction?.transaction) {
        const slot = Number(u.transaction.slot);
        let list = pending.get(slot);
        if (!list) pending.set(slot, (list = []));
        list.push(toTransactionResult(u.transaction.transaction, slot));
      }
      if (u.blockMeta) {
        const slot = Number(u.blockMeta.slot);
        const txs = pending.get(slot) ?? [];
        pending.delete(slot);
        // Slots are announced in order; anything still pending below this one never gets a meta (a dead fork).
        for (const s of pending.keys()) if (s < slot) pending.delete(s);
        const blockTime = Number(u.blockMeta.blockTime?.timestamp ?? NaN);
        for (const t of txs) t.blockTime = Number.isFinite(blockTime) ? blockTime : null;
        o.onSlot({ slot, blockTime, transactions: txs });
      }
    } catch (e) {
      o.common.logger.warn({ err: (e as Error).message }, 'yellowstone: unreadable update');
    }
  });
  stream.on('error', (e: Error) => settle(e));
  stream.on('close', () => settle(undefined));
  stream.on('end', () => settle(undefined));

  const close = () => {
    if (!stream.destroyed) stream.destroy();
    settle(undefined);
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), SUBSCRIBE_TIMEOUT_MS)));
  const first = await Promise.race([subscribed.then(() => 'ok' as const), ended.then(() => 'ended' as const), timeout]);
  clearTimeout(timer);
  if (first !== 'ok') {
    close();
    const err = first === 'ended' ? await ended : undefined;
    throw new AppError('RPC_UNAVAILABLE', `yellowstone: subscription to ${hostOf(o.url)} not acknowledged${err ? `: ${err.message}` : ''}`, { retryable: true });
  }
  return { ended, close };
}

const hostOf = (u: string) => {
  try {
    return new URL(u).host;
  } catch {
    return '(invalid URL)';
  }
};

const b58 = (b: Uint8Array | undefined) => (b ? bs58.encode(b) : '');

/**
 * A Yellowstone `SubscribeUpdateTransactionInfo` (solana-storage.proto Transaction and
 * TransactionStatusMeta) in the getTransaction `json` shape the decoder reads (src/solana/types.ts):
 * keys and data base58, account indexes as numbers, loaded addresses, logs, inner instructions;
 * `meta.err` is the bincode TransactionError's bytes (hex) — only its presence is read. `blockTime`
 * is filled from the block meta.
 */
export function toTransactionResult(info: SubscribeUpdateTransactionInfo, slot: number): TransactionResult & { signature: string } {
  const t = info.transaction;
  const m = info.meta;
  const msg = t?.message;
  const ix = (i: { programIdIndex: number; accounts: Uint8Array; data: Uint8Array; stackHeight?: number | undefined }): InstructionJson => ({
    programIdIndex: i.programIdIndex,
    accounts: Array.from(i.accounts),
    data: b58(i.data),
    ...(i.stackHeight !== undefined ? { stackHeight: i.stackHeight } : {}),
  });
  const signature = b58(info.signature);
  return {
    signature,
    slot,
    blockTime: null,
    version: msg?.versioned ? 0 : 'legacy',
    meta: m
      ? {
          err: m.err ? { bincode: Buffer.from(m.err.err).toString('hex') } : null,
          fee: Number(m.fee),
          logMessages: m.logMessagesNone ? null : m.logMessages,
          innerInstructions: m.innerInstructionsNone ? null : m.innerInstructions.map((g) => ({ index: g.index, instructions: g.instructions.map(ix) })),
          loadedAddresses: { writable: m.loadedWritableAddresses.map(b58), readonly: m.loadedReadonlyAddresses.map(b58) },
        }
      : null,
    transaction: {
      signatures: t ? t.signatures.map(b58) : [signature],
      message: { accountKeys: (msg?.accountKeys ?? []).map(b58), instructions: (msg?.instructions ?? []).map(ix) },
    },
  };
}
