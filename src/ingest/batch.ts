import { sleep, type Common } from '../core/index.js';
import type { Pricer, MintHour } from '../prices/index.js';
import { decodeTransaction, type DecodedTransaction, type GambaEvent, type LocatedEvent } from '../protocol/index.js';
import { MAX_BATCH, type RpcClient, type SignatureInfo, type TransactionResult } from '../solana/index.js';
import type { ProcessedSignature, Store, WriteResult } from '../store/index.js';
import type { MintRegistry } from './mints.js';

/** What the backfill and the tail share: the dependencies and the shutdown signal. */
export interface IngestContext {
  common: Common;
  store: Store;
  rpc: RpcClient;
  pricer: Pricer;
  mints: MintRegistry;
  programId: string;
  signal: AbortSignal;
  /** Extra rounds for transactions that came back null before giving up until the next pass (default 3). */
  nullRetries: number;
  /** First delay between those rounds, ms, doubling (default 250). */
  nullRetryDelayMs: number;
}

/** Commitment a page of transactions is fetched at: `finalized` for the backfill, `confirmed` for the tail (docs/design.md §5). */
export type TxCommitment = 'confirmed' | 'finalized';

/**
 * What the indexer keeps of a fetched transaction: its decoded events and what it needs to date
 * and record them. Each `getTransaction` batch is decoded as soon as it arrives, so the parsed
 * answers (≈ 6 KB of JSON per transaction, a page of them ≈ 15 MB of objects) die young instead
 * of waiting in the pipeline for their page's commit, where they were promoted to the old
 * generation and collected expensively (docs/benchmarks.md "Ingest").
 */
export interface FetchedTx {
  slot: number;
  /** Unix seconds (the node's; null for very old slots). */
  blockTime: number | null;
  /** meta.err non-null. */
  failed: boolean;
  events: GambaEvent[];
  skipped: DecodedTransaction['skipped'];
}

/** Decodes one getTransaction result into what `prepare` needs (decodeTransaction never throws). */
export function digestTransaction(tx: TransactionResult): FetchedTx {
  const decoded = decodeTransaction(tx);
  return { slot: tx.slot, blockTime: tx.blockTime, failed: tx.meta?.err !== null && tx.meta?.err !== undefined, events: decoded.events, skipped: decoded.skipped };
}

/** Signatures (in the order they will be committed) with their fetched, decoded transactions. */
export interface Fetched {
  sigs: SignatureInfo[];
  /** Already processed earlier: covered without refetching (saves RPC calls). */
  known: Set<string>;
  /** null = the node doesn't have it (yet) at this commitment. Failed and known signatures are not fetched. */
  txs: Map<string, FetchedTx | null>;
}

/**
 * Fetches the transactions of `sigs` (batches of ≤ MAX_BATCH, concurrent and rate-capped by the
 * client), decoding each batch as it arrives, skipping known signatures and failed ones
 * (getSignaturesForAddress already says `err`), and asks again a few times for those that came
 * back null.
 */
export async function fetchTransactions(ctx: IngestContext, sigs: SignatureInfo[], commitment: TxCommitment): Promise<Fetched> {
  const known = sigs.length ? await ctx.store.knownSignatures(sigs.map((s) => s.signature)) : new Set<string>();
  const txs = new Map<string, FetchedTx | null>();
  let missing = sigs.filter((s) => !known.has(s.signature) && (s.err === null || s.err === undefined)).map((s) => s.signature);
  for (let round = 0; missing.length > 0 && round <= ctx.nullRetries; round++) {
    if (round > 0) await sleep(ctx.nullRetryDelayMs * 2 ** (round - 1), ctx.signal);
    const batches: Promise<void>[] = [];
    for (let i = 0; i < missing.length; i += MAX_BATCH) {
      const part = missing.slice(i, i + MAX_BATCH);
      batches.push(
        ctx.rpc.getTransactions(part, { commitment, signal: ctx.signal }).then((got) => {
          part.forEach((sig, k) => {
            const tx = got[k];
            txs.set(sig, tx ? digestTransaction(tx) : null);
          });
        }),
      );
    }
    await Promise.all(batches);
    missing = missing.filter((sig) => txs.get(sig) === null);
  }
  for (const sig of missing) txs.set(sig, null);
  return { sigs, known, txs };
}

/** The longest committable prefix of a Fetched: everything up to the first transaction still null. */
export interface Prepared {
  events: LocatedEvent[];
  signatures: ProcessedSignature[];
  skipped: Record<string, number>;
  /** How many signatures from the front are covered. */
  covered: number;
  /** The last covered signature (the new checkpoint), undefined when none. */
  last: SignatureInfo | undefined;
  /** true when a null transaction stopped the prefix (never advance a checkpoint past it). */
  blocked: boolean;
}

/** The committable prefix of a fetched page: its events and processed signatures up to the first null transaction, skip counts by reason. */
export function prepare(f: Fetched): Prepared {
  const out: Prepared = { events: [], signatures: [], skipped: {}, covered: 0, last: undefined, blocked: false };
  const bump = (reason: string, n = 1) => {
    out.skipped[reason] = (out.skipped[reason] ?? 0) + n;
  };
  for (const s of f.sigs) {
    if (f.known.has(s.signature)) {
      out.covered++;
      out.last = s;
      continue;
    }
    if (s.err !== null && s.err !== undefined) {
      // Failed transactions carry no events (docs/design.md §5); recorded so they are not fetched again.
      out.signatures.push({ signature: s.signature, slot: s.slot, blockTime: s.blockTime ?? 0, failed: true });
      bump('failed_transaction');
      out.covered++;
      out.last = s;
      continue;
    }
    const tx = f.txs.get(s.signature);
    if (!tx) {
      out.blocked = true;
      break;
    }
    const blockTime = tx.blockTime ?? s.blockTime;
    for (const reason in tx.skipped) bump(reason, tx.skipped[reason as keyof typeof tx.skipped] ?? 0);
    if (blockTime === null || blockTime === undefined) {
      // Nodes report null blockTime only for very old slots; without a time the events can't be dated.
      if (tx.events.length > 0) bump('no_block_time', tx.events.length);
    } else {
      tx.events.forEach((e, eventIndex) => {
        out.events.push({ name: e.name, data: e.data, signature: s.signature, slot: tx.slot, blockTime, eventIndex } as LocatedEvent);
      });
    }
    out.signatures.push({ signature: s.signature, slot: tx.slot, blockTime: blockTime ?? 0, failed: tx.failed });
    out.covered++;
    out.last = s;
  }
  return out;
}

/** Mints and (mint, hour) pairs a batch needs priced: games and pool changes (usd_amount). */
export function pricingNeeds(events: LocatedEvent[]): { mints: Set<string>; pairs: MintHour[] } {
  const mints = new Set<string>();
  const seen = new Set<string>();
  const pairs: MintHour[] = [];
  for (const e of events) {
    mints.add(e.data.tokenMint);
    if (e.name === 'PoolCreated') continue;
    const hourMs = Math.floor((e.blockTime * 1000) / 3_600_000) * 3_600_000;
    const k = `${e.data.tokenMint}@${hourMs}`;
    if (seen.has(k)) continue;
    seen.add(k);
    pairs.push({ mint: e.data.tokenMint, hourMs });
  }
  return { mints, pairs };
}

/**
 * Resolves decimals and prices for the batch's events, then writes events, signatures, skip
 * counts and the checkpoint `state` in ONE store transaction (docs/design.md §5).
 */
export async function commit(ctx: IngestContext, p: Prepared, state: Record<string, string>): Promise<WriteResult> {
  const { metrics } = ctx.common;
  if (p.events.length > 0) {
    const needs = pricingNeeds(p.events);
    await ctx.mints.ensure(needs.mints, ctx.signal);
    const priceable = needs.pairs.filter((x) => ctx.mints.decimalsOf(x.mint) !== undefined);
    if (priceable.length > 0) await ctx.pricer.ensure(priceable);
  }
  const result = await ctx.store.writeBatch({ events: p.events, signatures: p.signatures, state, skipped: p.skipped });
  if (result.gamesInserted) metrics.eventsStored.inc({ kind: 'GameSettled' }, result.gamesInserted);
  if (result.poolChangesInserted) metrics.eventsStored.inc({ kind: 'PoolChange' }, result.poolChangesInserted);
  if (result.poolsCreatedInserted) metrics.eventsStored.inc({ kind: 'PoolCreated' }, result.poolsCreatedInserted);
  for (const [reason, n] of Object.entries(p.skipped)) if (n > 0) metrics.eventsSkipped.inc({ reason }, n);
  return result;
}
