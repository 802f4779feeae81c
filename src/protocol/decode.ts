import bs58 from 'bs58';
import { bytesStartWith, decodeEventBytes } from './codec.js';
import type { GambaEvent } from './events.js';
import { EVENT_IX_TAG_LE, GAMBA_PROGRAM_ID, LOG_TRUNCATED } from './program.js';

/**
 * The parts of a `getTransaction` result (encoding `json` or `jsonParsed`) the decoder reads.
 * Shapes: Solana JSON-RPC docs, getTransaction (docs/protocol.md §1).
 */
export interface RpcTransaction {
  slot: number;
  blockTime: number | null;
  meta: {
    err: unknown;
    logMessages?: string[] | null;
    innerInstructions?: { index: number; instructions: RpcInstruction[] }[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
  transaction: {
    signatures: string[];
    message: { accountKeys: (string | { pubkey: string })[] };
  };
}

/** `json` encoding: programIdIndex + base58 data; `jsonParsed` for unknown programs: programId + base58 data. */
export type RpcInstruction =
  | { programIdIndex: number; data: string; accounts?: number[]; stackHeight?: number | null }
  | { programId: string; data?: string; parsed?: unknown; accounts?: string[]; stackHeight?: number | null };

/** Why a transaction, or an event in it, was not indexed (counted in the `indexer_events_skipped_total` metric and /sync/status). */
export type SkipReason = 'failed_transaction' | 'truncated_logs' | 'unknown_discriminator' | 'malformed' | 'no_meta';

/** A transaction's Gamba events in program order, and what was skipped. */
export interface DecodedTransaction {
  signature: string;
  events: GambaEvent[];
  /** Counts of what was skipped, by reason (reported in metrics and /sync/status). */
  skipped: Partial<Record<SkipReason, number>>;
}

/**
 * base64 as kit's codec reads it (every '=' dropped, then only the standard alphabet allowed),
 * through Buffer directly: kit's encoder sized, copied and converted each line several times.
 */
const BASE64_CHARS = /^[A-Za-z0-9+/=]*$/;
function fromBase64(s: string): Uint8Array | null {
  if (!BASE64_CHARS.test(s)) return null;
  const b = Buffer.from(s, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

function accountKeyList(tx: RpcTransaction): string[] {
  const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey));
  // json encoding lists only static keys; loaded (ALT) keys follow, writable then readonly.
  const loaded = tx.meta?.loadedAddresses;
  const parsedIncludesLoaded = tx.transaction.message.accountKeys.some((k) => typeof k !== 'string');
  if (loaded && !parsedIncludesLoaded) keys.push(...loaded.writable, ...loaded.readonly);
  return keys;
}

const INVOKE = /^Program (\S+) invoke \[\d+\]$/;
const SUCCESS = /^Program (\S+) success$/;
const FAILED = /^Program (\S+) failed/;

/**
 * Finds the Gamba events of one transaction:
 * 1. `Program data:` log lines emitted while the Gamba program is on top of the invoke stack
 *    (Anchor `emit!`; the stack is walked from `invoke`/`success`/`failed` lines, so events
 *    logged by other programs CPI'd from Gamba are not attributed to it);
 * 2. self-CPI events (`emit_cpi!`): inner instructions of the Gamba program to itself whose
 *    data starts with EVENT_IX_TAG.
 * Failed transactions (meta.err non-null) carry no events. A "Log truncated" line means
 * events after it are lost from the logs: the transaction is flagged (skipped.truncated_logs)
 * and the events decoded before it are kept. Never throws on odd input.
 */
export function decodeTransaction(tx: RpcTransaction): DecodedTransaction {
  const signature = tx.transaction.signatures[0] ?? '';
  const skipped: DecodedTransaction['skipped'] = {};
  const bump = (r: SkipReason) => {
    skipped[r] = (skipped[r] ?? 0) + 1;
  };
  const events: GambaEvent[] = [];
  if (!tx.meta) {
    bump('no_meta');
    return { signature, events, skipped };
  }
  if (tx.meta.err !== null && tx.meta.err !== undefined) {
    bump('failed_transaction');
    return { signature, events, skipped };
  }

  const stack: string[] = [];
  for (const line of tx.meta.logMessages ?? []) {
    let m: RegExpExecArray | null;
    // The cheap tests only skip a regex that cannot match (same outcome, fewer regex runs).
    if (line.endsWith(']') && (m = INVOKE.exec(line))) {
      stack.push(m[1]!);
    } else if ((line.endsWith(' success') && SUCCESS.test(line)) || (line.includes(' failed') && FAILED.test(line))) {
      stack.pop();
    } else if (line.startsWith('Program data: ')) {
      if (stack[stack.length - 1] !== GAMBA_PROGRAM_ID) continue;
      const bytes = fromBase64(line.slice('Program data: '.length));
      if (bytes === null) {
        bump('malformed');
        continue;
      }
      const out = decodeEventBytes(bytes);
      if (out.ok) events.push(out.event);
      else bump(out.reason);
    } else if (line === LOG_TRUNCATED) {
      bump('truncated_logs');
      break;
    }
  }

  let keys: string[] | undefined;
  for (const group of tx.meta.innerInstructions ?? []) {
    for (const ix of group.instructions) {
      const programId = 'programIdIndex' in ix ? (keys ??= accountKeyList(tx))[ix.programIdIndex] : ix.programId;
      if (programId !== GAMBA_PROGRAM_ID || typeof ix.data !== 'string') continue;
      const bytes = bs58.decodeUnsafe(ix.data);
      if (bytes === undefined) {
        bump('malformed');
        continue;
      }
      if (!bytesStartWith(bytes, EVENT_IX_TAG_LE)) continue;
      const out = decodeEventBytes(bytes.subarray(8));
      if (out.ok) events.push(out.event);
      else bump(out.reason);
    }
  }
  return { signature, events, skipped };
}
