import * as grpc from '@grpc/grpc-js';
import { CommitmentLevel, SubscribeRequest, SubscribeUpdate, type SubscribeRequestFilterTransactions } from '@triton-one/yellowstone-grpc';
import { blockHeightOf, fromBase58, isSkippedSlot, type Commitment, type TxSkel } from '../chain/index.js';
import { renderTransaction, txError, type ChainView } from '../transactions/index.js';

/**
 * The Yellowstone gRPC ("Dragon's Mouth") face of the simulated node, on its own port
 * (docs/protocol.md §8, docs/simulator.md "Yellowstone gRPC"): the `geyser.Geyser` service of the
 * published geyser.proto, Subscribe's messages encoded with the codecs @triton-one/yellowstone-grpc
 * ships (the unary ones here: flatCodec), served by @grpc/grpc-js (a development dependency).
 * `Subscribe` streams, per slot as the head passes it at the request's commitment, the matching
 * transactions (filters `transactions`: accountInclude / accountExclude / accountRequired,
 * `failed`, `vote`, `signature`), then the block meta (`blocksMeta`) and the slot status (`slots`); a `ping` in a request is answered with a `pong`, and the server pings every
 * PING_MS. Unary: Ping, GetSlot, GetBlockHeight, GetLatestBlockhash, IsBlockhashValid, GetVersion,
 * SubscribeReplayInfo.
 */
export interface GeyserServer {
  /** `http://host:port` of the gRPC endpoint (plaintext). */
  readonly url: string;
  /** Streams open now. */
  streams(): number;
  /**
   * Ends every open Subscribe stream with UNAVAILABLE (a dropped connection, for tests) and refuses
   * new ones with UNAVAILABLE for `refuseMs` (default 0: an outage of that length); returns how many were open.
   */
  dropStreams(refuseMs?: number): number;
  close(): Promise<void>;
}

/** Server pings on every stream (Yellowstone pings so proxies keep idle streams open). */
const PING_MS = 10_000;
/** How often open streams look for new slots, ms (slots are 400 ms). */
const TICK_MS = 50;
/** Oldest `fromSlot` served: the simulator keeps its whole ledger, Yellowstone a recent window; this is that window. */
const REPLAY_SLOTS = 3000;
const VERSION = JSON.stringify({ package: 'yellowstone-grpc-geyser', version: '10.0.0', proto: '10.0.0', solana: '2.2.16', simulator: true });

/** geyser.proto `SlotStatus` (the client package does not export the enum). */
const SlotStatus = { SLOT_PROCESSED: 0, SLOT_CONFIRMED: 1, SLOT_FINALIZED: 2 } as const;
type SlotStatus = (typeof SlotStatus)[keyof typeof SlotStatus];

const LEVEL_TO_COMMITMENT: Record<number, Commitment> = { [CommitmentLevel.PROCESSED]: 'processed', [CommitmentLevel.CONFIRMED]: 'confirmed', [CommitmentLevel.FINALIZED]: 'finalized' };
const STATUS_OF: Record<Commitment, SlotStatus> = { processed: SlotStatus.SLOT_PROCESSED, confirmed: SlotStatus.SLOT_CONFIRMED, finalized: SlotStatus.SLOT_FINALIZED };

type Codec<T> = { encode(m: T): Uint8Array; decode(b: Uint8Array): T };
function unary<Req, Res>(name: string, req: Codec<Req>, res: Codec<Res>): grpc.MethodDefinition<Req, Res> {
  return {
    path: `/geyser.Geyser/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (m) => Buffer.from(req.encode(m)),
    requestDeserialize: (b) => req.decode(b),
    responseSerialize: (m) => Buffer.from(res.encode(m)),
    responseDeserialize: (b) => res.decode(b),
  };
}

/**
 * The unary messages of geyser.proto, encoded here: the client package (5.x, the last whose
 * native builds are all published) exports only the Subscribe codecs. Each is a flat message of
 * numbered scalar fields (varint: uint64 / int32 / bool / enum; length-delimited: string).
 */
type Field = { n: number; kind: 'varint' | 'string' };
function flatCodec<T extends Record<string, unknown>>(fields: Record<keyof T & string, Field>): Codec<T> {
  const entries = Object.entries(fields) as [string, Field][];
  return {
    encode(m) {
      const out: number[] = [];
      const varint = (v: bigint) => {
        while (v > 0x7fn) {
          out.push(Number(v & 0x7fn) | 0x80);
          v >>= 7n;
        }
        out.push(Number(v));
      };
      for (const [name, f] of entries) {
        const v = m[name];
        if (v === undefined || v === null) continue;
        if (f.kind === 'string') {
          const bytes = Buffer.from(String(v), 'utf8');
          varint(BigInt(f.n * 8 + 2));
          varint(BigInt(bytes.length));
          out.push(...bytes);
        } else {
          varint(BigInt(f.n * 8));
          varint(typeof v === 'boolean' ? (v ? 1n : 0n) : BigInt(v as string | number));
        }
      }
      return Uint8Array.from(out);
    },
    decode(b) {
      const m: Record<string, unknown> = {};
      let i = 0;
      const varint = (): bigint => {
        let v = 0n;
        for (let shift = 0n; ; shift += 7n) {
          const byte = b[i++]!;
          v |= BigInt(byte & 0x7f) << shift;
          if (byte < 0x80) return v;
        }
      };
      while (i < b.length) {
        const tag = Number(varint());
        const field = entries.find(([, f]) => f.n === tag >> 3);
        if ((tag & 7) === 2) {
          const len = Number(varint());
          if (field) m[field[0]] = Buffer.from(b.subarray(i, i + len)).toString('utf8');
          i += len;
        } else {
          const v = varint();
          if (field) m[field[0]] = v;
        }
      }
      return m as T;
    },
  };
}

const varint = (n: number): Field => ({ n, kind: 'varint' });
const text = (n: number): Field => ({ n, kind: 'string' });
type Msg = Record<string, unknown>;
const commitmentReq = flatCodec<Msg>({ commitment: varint(1) });
const EmptyMsg = flatCodec<Msg>({});
const PingMsg = flatCodec<Msg>({ count: varint(1) });
const SlotRes = flatCodec<Msg>({ slot: varint(1) });
const BlockHeightRes = flatCodec<Msg>({ blockHeight: varint(1) });
const BlockhashRes = flatCodec<Msg>({ slot: varint(1), blockhash: text(2), lastValidBlockHeight: varint(3) });
const BlockhashValidReq = flatCodec<Msg>({ blockhash: text(1), commitment: varint(2) });
const BlockhashValidRes = flatCodec<Msg>({ slot: varint(1), valid: varint(2) });
const VersionRes = flatCodec<Msg>({ version: text(1) });
const ReplayInfoRes = flatCodec<Msg>({ firstAvailable: varint(1) });

/** `service Geyser` of geyser.proto (package `geyser`): Subscribe over the client package's codecs, the unary methods over flatCodec. */
const GEYSER_SERVICE = {
  subscribe: {
    path: '/geyser.Geyser/Subscribe',
    requestStream: true,
    responseStream: true,
    requestSerialize: (m: SubscribeRequest) => Buffer.from(SubscribeRequest.encode(m).finish()),
    requestDeserialize: decodeSubscribeRequest,
    responseSerialize: (m: SubscribeUpdate) => Buffer.from(SubscribeUpdate.encode(m).finish()),
    responseDeserialize: (b: Buffer) => SubscribeUpdate.decode(b),
  } satisfies grpc.MethodDefinition<SubscribeRequest, SubscribeUpdate>,
  subscribeReplayInfo: unary('SubscribeReplayInfo', EmptyMsg, ReplayInfoRes),
  ping: unary('Ping', PingMsg, PingMsg),
  getLatestBlockhash: unary('GetLatestBlockhash', commitmentReq, BlockhashRes),
  getBlockHeight: unary('GetBlockHeight', commitmentReq, BlockHeightRes),
  getSlot: unary('GetSlot', commitmentReq, SlotRes),
  isBlockhashValid: unary('IsBlockhashValid', BlockhashValidReq, BlockhashValidRes),
  getVersion: unary('GetVersion', EmptyMsg, VersionRes),
};

/** geyser.proto field numbers of SubscribeRequest's map fields whose filter message may be empty. */
const MAP_FIELDS: Record<number, 'accounts' | 'slots' | 'transactions' | 'blocks' | 'blocksMeta' | 'entry' | 'transactionsStatus'> = {
  1: 'accounts',
  2: 'slots',
  3: 'transactions',
  4: 'blocks',
  5: 'blocksMeta',
  8: 'entry',
  10: 'transactionsStatus',
};

/**
 * SubscribeRequest.decode, keeping map entries whose filter is the empty message: a Rust client
 * (prost, as the Yellowstone client's native layer is) writes such an entry as its key alone,
 * which the Rust server reads as a default filter but ts-proto's decoder drops. The keys are read
 * from the wire here and given a default filter.
 */
function decodeSubscribeRequest(b: Buffer): SubscribeRequest {
  const r = SubscribeRequest.decode(b);
  let i = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = b[i++]!;
      v += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return v;
    }
  };
  while (i < b.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const len = varint();
      const end = i + len;
      const map = MAP_FIELDS[field];
      if (map && b[i] === 0x0a) {
        // The entry's field 1 (key, a string).
        i++;
        const keyLen = varint();
        const key = b.subarray(i, i + keyLen).toString('utf8');
        const filters = r[map] as Record<string, unknown>;
        if (!(key in filters)) filters[key] = map === 'transactions' || map === 'transactionsStatus' ? { accountInclude: [], accountExclude: [], accountRequired: [] } : map === 'accounts' ? { account: [], owner: [], filters: [] } : map === 'blocks' ? { accountInclude: [] } : {};
      }
      i = end;
    } else break;
  }
  return r;
}

interface TxFilter {
  name: string;
  test(tx: TxSkel, sig: string): boolean;
}

interface Stream {
  call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>;
  commitment: Commitment;
  txFilters: TxFilter[];
  blocksMeta: string[];
  /** Slot filters: name → only the subscription's commitment (filterByCommitment). */
  slots: { name: string; byCommitment: boolean }[];
  /** Last slot whose transactions and block meta were sent (at `commitment`). */
  through: number;
  /** Last slot whose status was sent, per status. */
  statusThrough: Record<Commitment, number>;
  lastPing: number;
  busy: boolean;
}

/** Starts the gRPC server on `host:port` (0 = any free port) over the chain view; resolves once it listens. */
export async function startGeyserServer(view: ChainView, o: { host: string; port?: number }): Promise<GeyserServer> {
  const { clock, ledger } = view;
  const tl = ledger.timeline;
  const server = new grpc.Server();
  const open = new Set<Stream>();
  let refuseUntil = 0;

  function txFilter(name: string, f: SubscribeRequestFilterTransactions): TxFilter {
    const include = f.accountInclude.map((a) => view.matcher(a) ?? (() => false));
    const exclude = f.accountExclude.map((a) => view.matcher(a) ?? (() => false));
    const required = f.accountRequired.map((a) => view.matcher(a) ?? (() => false));
    return {
      name,
      test(tx, sig) {
        // The simulated chain has no vote transactions: `vote: true` (votes only) matches nothing.
        if (f.vote === true) return false;
        if (f.failed !== undefined && (txError(tx) !== null) !== f.failed) return false;
        if (f.signature !== undefined && f.signature !== sig) return false;
        if (include.length > 0 && !include.some((m) => m(tx))) return false;
        if (exclude.some((m) => m(tx))) return false;
        return required.every((m) => m(tx));
      },
    };
  }

  function applyRequest(s: Stream, r: SubscribeRequest): void {
    if (r.ping) s.call.write(SubscribeUpdate.fromPartial({ filters: [], pong: { id: r.ping.id }, createdAt: new Date() }));
    const hasFilters = [r.transactions, r.slots, r.blocksMeta, r.accounts, r.blocks, r.entry, r.transactionsStatus].some((m) => Object.keys(m).length > 0);
    // A request carrying only a ping keeps the current filters (geyser.proto: ping-only requests).
    if (!hasFilters && r.ping) return;
    const unsupported = ['accounts', 'blocks', 'entry', 'transactionsStatus'].filter((k) => Object.keys(r[k as keyof SubscribeRequest] as object).length > 0);
    if (unsupported.length > 0) throw Object.assign(new Error(`the simulator serves transactions, slots and blocksMeta filters only (not ${unsupported.join(', ')})`), { code: grpc.status.INVALID_ARGUMENT });
    const commitment = LEVEL_TO_COMMITMENT[r.commitment ?? CommitmentLevel.PROCESSED];
    if (!commitment) throw Object.assign(new Error(`unknown commitment ${String(r.commitment)}`), { code: grpc.status.INVALID_ARGUMENT });
    s.commitment = commitment;
    s.txFilters = Object.entries(r.transactions).map(([name, f]) => txFilter(name, f));
    s.blocksMeta = Object.keys(r.blocksMeta);
    s.slots = Object.entries(r.slots).map(([name, f]) => ({ name, byCommitment: f.filterByCommitment === true }));
    const head = clock.slot(commitment);
    if (r.fromSlot !== undefined) {
      const from = Number(r.fromSlot);
      if (!Number.isSafeInteger(from) || from < Math.max(tl.historyStartSlot, clock.slot('processed') - REPLAY_SLOTS)) {
        throw Object.assign(new Error(`fromSlot ${r.fromSlot} is not available (replay keeps ${REPLAY_SLOTS} slots)`), { code: grpc.status.OUT_OF_RANGE });
      }
      s.through = Math.min(head, from - 1);
    } else if (s.through < 0) s.through = head;
    for (const c of ['processed', 'confirmed', 'finalized'] as const) if (s.statusThrough[c] < 0) s.statusThrough[c] = Math.min(s.through, clock.slot(c));
  }

  async function deliver(s: Stream): Promise<void> {
    const now = Date.now();
    if (now - s.lastPing >= PING_MS) {
      s.lastPing = now;
      s.call.write(SubscribeUpdate.fromPartial({ filters: [], ping: {}, createdAt: new Date() }));
    }
    if (s.through < 0) return;
    const upTo = clock.slot(s.commitment);
    for (let slot = s.through + 1; slot <= upTo; slot++) {
      if (!open.has(s)) return;
      if (s.txFilters.length > 0 && !isSkippedSlot(slot)) await sendTransactions(s, slot);
      if (s.blocksMeta.length > 0 && !isSkippedSlot(slot)) {
        const count = slotTxs(slot).length;
        s.call.write(
          SubscribeUpdate.fromPartial({
            filters: s.blocksMeta,
            blockMeta: {
              slot: String(slot),
              blockhash: view.blockhash(slot),
              blockTime: { timestamp: String(tl.blockTime(slot)) },
              blockHeight: { blockHeight: String(blockHeightOf(slot)) },
              parentSlot: String(slot - 1),
              parentBlockhash: view.blockhash(slot - 1),
              executedTransactionCount: String(count),
              entriesCount: '0',
            },
            createdAt: new Date(),
          }),
        );
      }
      s.through = slot;
    }
    for (const c of ['processed', 'confirmed', 'finalized'] as const) {
      const names = s.slots.filter((f) => !f.byCommitment || c === s.commitment).map((f) => f.name);
      const head = clock.slot(c);
      if (names.length === 0) {
        s.statusThrough[c] = Math.max(s.statusThrough[c], head);
        continue;
      }
      for (let slot = s.statusThrough[c] + 1; slot <= head; slot++) {
        if (isSkippedSlot(slot)) continue;
        s.call.write(SubscribeUpdate.fromPartial({ filters: names, slot: { slot: String(slot), parent: String(slot - 1), status: STATUS_OF[c] }, createdAt: new Date() }));
      }
      s.statusThrough[c] = Math.max(s.statusThrough[c], head);
    }
  }

  /** The simulated transactions of `slot` with their index in the block. */
  function slotTxs(slot: number): { tx: TxSkel; pos: number; seg: number }[] {
    const seg = tl.segmentOfSlot(slot);
    if (seg < 0 || seg > view.headSegment()) return [];
    const skel = ledger.skeleton(seg);
    const out = [];
    for (let i = 0; i < skel.txs.length; i++) if (skel.txs[i]!.slot === slot) out.push({ tx: skel.txs[i]!, pos: i, seg });
    return out;
  }

  async function sendTransactions(s: Stream, slot: number): Promise<void> {
    const txs = slotTxs(slot);
    for (let index = 0; index < txs.length; index++) {
      const { tx, pos, seg } = txs[index]!;
      const sig = view.signature(tx);
      const names = s.txFilters.filter((f) => f.test(tx, sig)).map((f) => f.name);
      if (names.length === 0) continue;
      const real = await ledger.realize(seg);
      const json = renderTransaction(view.build(real.txs[pos]!), 'json', true) as unknown as RenderedTx;
      s.call.write(
        SubscribeUpdate.fromPartial({
          filters: names,
          transaction: { slot: String(slot), transaction: { signature: b58(sig), isVote: false, index: String(index), transaction: protoTransaction(json), meta: protoMeta(json) } },
          createdAt: new Date(),
        }),
      );
    }
  }

  let ticking = false;
  const timer = setInterval(() => {
    if (ticking || open.size === 0) return;
    ticking = true;
    void (async () => {
      for (const s of [...open]) {
        if (s.busy) continue;
        s.busy = true;
        try {
          await deliver(s);
        } catch (err) {
          end(s, err);
        } finally {
          s.busy = false;
        }
      }
    })().finally(() => (ticking = false));
  }, TICK_MS);
  timer.unref();

  function end(s: Stream, err: unknown): void {
    if (!open.delete(s)) return;
    const e = err as { code?: number; message?: string };
    s.call.emit('error', { code: e.code ?? grpc.status.INTERNAL, details: e.message ?? String(err) });
  }

  server.addService(GEYSER_SERVICE as unknown as grpc.ServiceDefinition, {
    subscribe(call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>) {
      const s: Stream = {
        call,
        commitment: 'processed',
        txFilters: [],
        blocksMeta: [],
        slots: [],
        through: -1,
        statusThrough: { processed: -1, confirmed: -1, finalized: -1 },
        lastPing: Date.now(),
        busy: false,
      };
      if (Date.now() < refuseUntil) {
        call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'endpoint unavailable (simulated outage)' });
        return;
      }
      open.add(s);
      // Response headers at once, as tonic sends them when the handler returns its stream: a client waits for them before it writes.
      call.sendMetadata(new grpc.Metadata());
      call.on('data', (r: SubscribeRequest) => {
        try {
          applyRequest(s, r);
        } catch (err) {
          end(s, err);
        }
      });
      call.on('end', () => {
        open.delete(s);
        call.end();
      });
      call.on('error', () => open.delete(s));
      call.on('cancelled', () => open.delete(s));
    },
    subscribeReplayInfo: (_c: unknown, cb: grpc.sendUnaryData<Msg>) => cb(null, { firstAvailable: Math.max(tl.historyStartSlot, clock.slot('processed') - REPLAY_SLOTS) }),
    ping: (c: grpc.ServerUnaryCall<Msg, Msg>, cb: grpc.sendUnaryData<Msg>) => cb(null, { count: c.request.count ?? 0 }),
    getLatestBlockhash: (c: grpc.ServerUnaryCall<Msg, Msg>, cb: grpc.sendUnaryData<Msg>) => {
      const slot = clock.slot(commitmentOf(c.request));
      cb(null, { slot, blockhash: view.blockhash(slot), lastValidBlockHeight: blockHeightOf(slot) + 150 });
    },
    getBlockHeight: (c: grpc.ServerUnaryCall<Msg, Msg>, cb: grpc.sendUnaryData<Msg>) => cb(null, { blockHeight: blockHeightOf(clock.slot(commitmentOf(c.request))) }),
    getSlot: (c: grpc.ServerUnaryCall<Msg, Msg>, cb: grpc.sendUnaryData<Msg>) => cb(null, { slot: clock.slot(commitmentOf(c.request)) }),
    isBlockhashValid: (c: grpc.ServerUnaryCall<Msg, Msg>, cb: grpc.sendUnaryData<Msg>) => {
      const slot = clock.slot('processed');
      let valid = false;
      for (let s = slot; s > slot - 150 && !valid; s--) valid = view.blockhash(s) === c.request.blockhash;
      cb(null, { slot, valid });
    },
    getVersion: (_c: unknown, cb: grpc.sendUnaryData<Msg>) => cb(null, { version: VERSION }),
  });

  /** A unary request's `commitment` (default finalized, as the Yellowstone server's). */
  function commitmentOf(m: Msg): Commitment {
    return LEVEL_TO_COMMITMENT[Number(m.commitment ?? CommitmentLevel.FINALIZED)] ?? 'finalized';
  }

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${o.host.includes(':') ? `[${o.host}]` : o.host}:${o.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const hostPart = o.host.includes(':') ? `[${o.host}]` : o.host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${hostPart}:${port}`,
    streams: () => open.size,
    dropStreams(refuseMs = 0) {
      refuseUntil = Date.now() + refuseMs;
      const n = open.size;
      for (const s of [...open]) end(s, Object.assign(new Error('stream dropped by the simulator'), { code: grpc.status.UNAVAILABLE }));
      return n;
    },
    close() {
      closed ??= (async () => {
        clearInterval(timer);
        for (const s of [...open]) end(s, Object.assign(new Error('server shutting down'), { code: grpc.status.UNAVAILABLE }));
        await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
        server.forceShutdown();
      })();
      return closed;
    },
  };
}

/** The getTransaction `json` rendering (txjson.ts) as far as the protobuf form needs it. */
interface RenderedTx {
  version?: 'legacy' | 0;
  transaction: {
    signatures: string[];
    message: {
      header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
      accountKeys: string[];
      recentBlockhash: string;
      instructions: { programIdIndex: number; accounts: number[]; data: string }[];
      addressTableLookups?: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
    };
  };
  meta: {
    err: unknown;
    fee: number;
    preBalances: number[];
    postBalances: number[];
    innerInstructions: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight?: number | null }[] }[] | null;
    logMessages: string[] | null;
    preTokenBalances?: TokenBalanceJson[];
    postTokenBalances?: TokenBalanceJson[];
    loadedAddresses?: { writable: string[]; readonly: string[] };
    computeUnitsConsumed?: number;
  };
}

interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

const b58 = (s: string): Uint8Array => fromBase58(s) ?? new Uint8Array();

/** solana-storage.proto `Transaction` from the json rendering. */
function protoTransaction(t: RenderedTx) {
  const m = t.transaction.message;
  return {
    signatures: t.transaction.signatures.map(b58),
    message: {
      header: m.header,
      accountKeys: m.accountKeys.map(b58),
      recentBlockhash: b58(m.recentBlockhash),
      instructions: m.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: Uint8Array.from(ix.accounts), data: b58(ix.data) })),
      versioned: t.version === 0,
      addressTableLookups: (m.addressTableLookups ?? []).map((l) => ({ accountKey: b58(l.accountKey), writableIndexes: Uint8Array.from(l.writableIndexes), readonlyIndexes: Uint8Array.from(l.readonlyIndexes) })),
    },
  };
}

/** solana-storage.proto `TransactionStatusMeta` from the json rendering. */
function protoMeta(t: RenderedTx) {
  const m = t.meta;
  const balance = (b: TokenBalanceJson) => ({
    accountIndex: b.accountIndex,
    mint: b.mint,
    owner: b.owner ?? '',
    programId: b.programId ?? '',
    uiTokenAmount: { amount: b.uiTokenAmount.amount, decimals: b.uiTokenAmount.decimals, uiAmount: b.uiTokenAmount.uiAmount ?? 0, uiAmountString: b.uiTokenAmount.uiAmountString },
  });
  return {
    err: m.err === null || m.err === undefined ? undefined : { err: bincodeTransactionError(m.err) },
    fee: String(m.fee),
    preBalances: m.preBalances.map(String),
    postBalances: m.postBalances.map(String),
    innerInstructions: (m.innerInstructions ?? []).map((g) => ({
      index: g.index,
      instructions: g.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: Uint8Array.from(ix.accounts), data: b58(ix.data), stackHeight: ix.stackHeight ?? undefined })),
    })),
    innerInstructionsNone: m.innerInstructions === null,
    logMessages: m.logMessages ?? [],
    logMessagesNone: m.logMessages === null,
    preTokenBalances: (m.preTokenBalances ?? []).map(balance),
    postTokenBalances: (m.postTokenBalances ?? []).map(balance),
    rewards: [],
    loadedWritableAddresses: (m.loadedAddresses?.writable ?? []).map(b58),
    loadedReadonlyAddresses: (m.loadedAddresses?.readonly ?? []).map(b58),
    returnDataNone: true,
    computeUnitsConsumed: m.computeUnitsConsumed === undefined ? undefined : String(m.computeUnitsConsumed),
  };
}

/**
 * The bincode form of a TransactionError, as Yellowstone carries it (`TransactionError.err`):
 * the simulator's failures are `{ InstructionError: [index, { Custom: code }] }` = u32 variant 8,
 * u8 index, u32 variant 25 (Custom), u32 code, little-endian (solana-sdk transaction-error and
 * instruction-error enums).
 */
function bincodeTransactionError(err: unknown): Uint8Array {
  const ie = (err as { InstructionError?: [number, { Custom?: number }] }).InstructionError;
  if (!ie || typeof ie[1]?.Custom !== 'number') throw new Error(`cannot encode transaction error ${JSON.stringify(err)}`);
  const b = Buffer.alloc(13);
  b.writeUInt32LE(8, 0);
  b.writeUInt8(ie[0], 4);
  b.writeUInt32LE(25, 5);
  b.writeUInt32LE(ie[1].Custom, 9);
  return b;
}
