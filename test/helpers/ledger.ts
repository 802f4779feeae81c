import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getBase58Codec } from '@solana/kit';
import { EVENT_IX_TAG_LE, GAMBA_PROGRAM_ID, encodeEventBytes, type GambaEvent } from '../../src/protocol/index.js';
import type { MintInfo } from '../../src/store/index.js';

/**
 * A small Solana JSON-RPC node over a list of transactions the test controls exactly, with the
 * node semantics the indexer relies on (Solana RPC docs; agave blockstore, docs/protocol.md §1):
 * getSignaturesForAddress newest → oldest, `before`/`until` exclusive, an unknown `before` gives
 * [], an unknown `until` is silently ignored, `finalized` hides the newest `finalizedDepth`
 * slots; getTransaction in `json` encoding, null when unknown / not at that commitment;
 * getSlot; getMultipleAccounts/getAccountInfo jsonParsed mint accounts; JSON-RPC batches.
 * Used for the indexer's edge cases (null transactions, unknown `until`, cutoff, restarts);
 * the chain simulator covers the realistic end-to-end runs.
 */
export interface LedgerTx {
  signature: string;
  slot: number;
  /** Unix seconds. */
  blockTime: number;
  /** Non-null = failed transaction (its logs still show the program). */
  err?: unknown;
  /** The Gamba events, in eventIndex order. */
  events: GambaEvent[];
  /** How the events appear: `emit!` logs, `emit_cpi!` self-invocations, or logs under nested invokes. */
  style?: 'logs' | 'cpi' | 'nested';
}

export interface LedgerOptions {
  txs: LedgerTx[];
  mints: MintInfo[];
  /** Slots below the head that are confirmed but not yet finalized (default 0). */
  finalizedDepth?: number;
  /** Latency added to every HTTP answer, ms (default 0). */
  delayMs?: number;
}

export interface Ledger {
  url: string;
  /** Adds a transaction (a new block on the chain). */
  add(tx: LedgerTx): void;
  /** Requests per JSON-RPC method (batch items counted one by one). */
  calls: Map<string, number>;
  /** getSignaturesForAddress params, in order. */
  signatureQueries: Record<string, unknown>[];
  /** Answer null to getTransaction when this returns true. */
  nullIf: ((signature: string, commitment: string) => boolean) | undefined;
  /** Signatures this node pretends not to know for `until` (so it ignores that `until`). */
  forgetForUntil: Set<string>;
  close(): Promise<void>;
}

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const PAYER = 'Ht5SndhRxFaLYFMswTWpea6XaVRAKQLrxGDv5khViZ9C';
const b58 = getBase58Codec();
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function toRpcTransaction(tx: LedgerTx) {
  const failed = tx.err !== undefined && tx.err !== null;
  const eventLines = tx.events.map((e) => `Program data: ${b64(encodeEventBytes(e))}`);
  const logs = [`Program ${COMPUTE_BUDGET} invoke [1]`, `Program ${COMPUTE_BUDGET} success`, `Program ${GAMBA_PROGRAM_ID} invoke [1]`, 'Program log: Instruction: RngSettle'];
  const innerInstructions: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[] }[] = [];
  const style = tx.style ?? 'logs';
  if (style === 'cpi') {
    const instructions = tx.events.map((e) => {
      logs.push(`Program ${GAMBA_PROGRAM_ID} invoke [2]`, `Program ${GAMBA_PROGRAM_ID} consumed 1000 of 100000 compute units`, `Program ${GAMBA_PROGRAM_ID} success`);
      return { programIdIndex: 1, accounts: [0], data: b58.decode(Uint8Array.from([...EVENT_IX_TAG_LE, ...encodeEventBytes(e)])), stackHeight: 2 };
    });
    innerInstructions.push({ index: 1, instructions });
  } else if (style === 'nested') {
    // A token transfer whose program logs an event-looking line: it is not Gamba's.
    const decoy = tx.events[0] ? [`Program data: ${b64(encodeEventBytes(tx.events[0]))}`] : [];
    logs.push(`Program ${TOKEN_PROGRAM} invoke [2]`, 'Program log: Instruction: Transfer', ...decoy, `Program ${TOKEN_PROGRAM} success`, ...eventLines);
    innerInstructions.push({ index: 1, instructions: [{ programIdIndex: 2, accounts: [0], data: '3Dc8EpW7Kr3R', stackHeight: 2 }] });
  } else {
    logs.push(...eventLines);
  }
  logs.push(`Program ${GAMBA_PROGRAM_ID} consumed 48211 of 200000 compute units`);
  logs.push(failed ? `Program ${GAMBA_PROGRAM_ID} failed: custom program error: 0x1770` : `Program ${GAMBA_PROGRAM_ID} success`);
  return {
    slot: tx.slot,
    blockTime: tx.blockTime,
    version: 0,
    meta: {
      err: failed ? tx.err : null,
      status: failed ? { Err: tx.err } : { Ok: null },
      fee: 5000,
      preBalances: [1, 1, 1, 1],
      postBalances: [1, 1, 1, 1],
      innerInstructions,
      logMessages: logs,
      preTokenBalances: [],
      postTokenBalances: [],
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: 48211,
    },
    transaction: {
      signatures: [tx.signature],
      message: {
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 },
        accountKeys: [PAYER, GAMBA_PROGRAM_ID, TOKEN_PROGRAM, COMPUTE_BUDGET],
        recentBlockhash: 'BxVKbFRAGCZd8MbRfjD7LK9U3kFqnVb5p6rM54vJABhu',
        instructions: [
          { programIdIndex: 3, accounts: [], data: '3DTZbgwsozUF', stackHeight: null },
          { programIdIndex: 1, accounts: [0], data: '5LzGLm8jM4Wz', stackHeight: null },
        ],
        addressTableLookups: [],
      },
    },
  };
}

export async function startLedger(o: LedgerOptions): Promise<Ledger> {
  const txs = new Map<string, LedgerTx>();
  let ordered: LedgerTx[] = [];
  const sort = () => {
    // Newest first: slot desc, then signature (in-slot order is by signature bytes on real nodes).
    ordered = [...txs.values()].sort((a, b) => b.slot - a.slot || (a.signature < b.signature ? 1 : a.signature > b.signature ? -1 : 0));
  };
  for (const t of o.txs) txs.set(t.signature, t);
  sort();
  const decimals = new Map(o.mints.map((m) => [m.mint, m.decimals]));
  const depth = o.finalizedDepth ?? 0;
  const head = () => ordered[0]?.slot ?? 0;
  const visible = (t: LedgerTx, commitment: string) => commitment !== 'finalized' || t.slot <= head() - depth;

  const ledger: Ledger = {
    url: '',
    add(tx) {
      txs.set(tx.signature, tx);
      sort();
    },
    calls: new Map(),
    signatureQueries: [],
    nullIf: undefined,
    forgetForUntil: new Set(),
    close: async () => undefined,
  };

  const mintAccount = (mint: string) => {
    const d = decimals.get(mint);
    if (d === undefined) return null;
    return {
      lamports: 1461600,
      owner: TOKEN_PROGRAM,
      executable: false,
      rentEpoch: 0,
      space: 82,
      data: { program: 'spl-token', parsed: { type: 'mint', info: { decimals: d, supply: '1000', isInitialized: true, mintAuthority: null, freezeAuthority: null } }, space: 82 },
    };
  };

  const handle = (req: { id: unknown; method: string; params?: any[] }) => {
    ledger.calls.set(req.method, (ledger.calls.get(req.method) ?? 0) + 1);
    const p = req.params ?? [];
    const result = (r: unknown) => ({ jsonrpc: '2.0', id: req.id, result: r });
    switch (req.method) {
      case 'getSignaturesForAddress': {
        const cfg = (p[1] ?? {}) as { before?: string; until?: string; limit?: number; commitment?: string };
        ledger.signatureQueries.push(cfg);
        if (p[0] !== GAMBA_PROGRAM_ID) return result([]);
        const list = ordered.filter((t) => visible(t, cfg.commitment ?? 'finalized'));
        let start = 0;
        if (cfg.before) {
          const i = list.findIndex((t) => t.signature === cfg.before);
          if (i < 0) return result([]);
          start = i + 1;
        }
        let end = list.length;
        if (cfg.until && !ledger.forgetForUntil.has(cfg.until)) {
          const i = list.findIndex((t) => t.signature === cfg.until);
          if (i >= 0) end = i;
        }
        const limit = cfg.limit ?? 1000;
        return result(
          list.slice(start, Math.min(end, start + limit)).map((t) => ({
            signature: t.signature,
            slot: t.slot,
            err: t.err ?? null,
            memo: null,
            blockTime: t.blockTime,
            confirmationStatus: visible(t, 'finalized') ? 'finalized' : 'confirmed',
          })),
        );
      }
      case 'getTransaction': {
        const commitment = (p[1]?.commitment as string) ?? 'finalized';
        const t = txs.get(p[0]);
        if (!t || !visible(t, commitment) || ledger.nullIf?.(t.signature, commitment)) return result(null);
        return result(toRpcTransaction(t));
      }
      case 'getSlot':
        return result(head());
      case 'getMultipleAccounts':
        return result({ context: { slot: head() }, value: (p[0] as string[]).map(mintAccount) });
      case 'getAccountInfo':
        return result({ context: { slot: head() }, value: mintAccount(p[0]) });
      default:
        return { jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'Method not found' } };
    }
  };

  const server = http.createServer(async (req, res) => {
    if (req.method !== 'POST') {
      // Not a price service: Hermes/Jupiter lookups pointed here get a 404 (no price).
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    try {
      if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const out = Array.isArray(body) ? body.map(handle) : handle(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    } catch {
      // The client went away (an indexer stopping aborts its requests): nothing to answer.
      res.destroy();
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  ledger.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  ledger.close = () =>
    new Promise<void>((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  return ledger;
}

/** Turns a fixture (events in chain order) into ledger transactions, plus extras every indexer must cope with. */
export function fixtureTransactions(
  events: import('../../src/protocol/index.js').LocatedEvent[],
  opts: { failedEvery?: number; emptyEvery?: number } = {},
): { txs: LedgerTx[]; extraSignatures: string[] } {
  const bySig = new Map<string, LedgerTx>();
  for (const e of events) {
    let t = bySig.get(e.signature);
    if (!t) {
      t = { signature: e.signature, slot: e.slot, blockTime: e.blockTime, events: [] };
      bySig.set(e.signature, t);
    }
    t.events[e.eventIndex] = { name: e.name, data: e.data } as GambaEvent;
  }
  const txs = [...bySig.values()];
  txs.forEach((t, i) => {
    t.style = i % 7 === 3 ? 'cpi' : i % 7 === 5 ? 'nested' : 'logs';
  });
  const extras: LedgerTx[] = [];
  const failedEvery = opts.failedEvery ?? 40;
  const emptyEvery = opts.emptyEvery ?? 25;
  txs.forEach((t, i) => {
    // Same slot as a real one: in-slot ordering and paging boundaries get exercised too.
    if (i % failedEvery === 7) extras.push({ signature: fakeSignature(`failed-${i}`), slot: t.slot, blockTime: t.blockTime, err: { InstructionError: [1, { Custom: 6000 }] }, events: [] });
    if (i % emptyEvery === 11) extras.push({ signature: fakeSignature(`play-${i}`), slot: t.slot, blockTime: t.blockTime, events: [] });
  });
  return { txs: [...txs, ...extras], extraSignatures: extras.map((x) => x.signature) };
}

/** A deterministic base58 64-byte signature. */
export function fakeSignature(seed: string): string {
  const bytes = new Uint8Array(64);
  let h = 2166136261;
  for (let i = 0; i < 64; i++) {
    for (const c of `${seed}:${i}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
    bytes[i] = h & 0xff;
  }
  return b58.decode(bytes);
}
