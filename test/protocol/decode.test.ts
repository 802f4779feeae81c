import { createHash } from 'node:crypto';
import { BorshCoder, EventParser } from '@coral-xyz/anchor';
import { PublicKey } from '@solana/web3.js';
import { getBase58Codec } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import {
  EVENT_DISCRIMINATORS,
  EVENT_IX_TAG_LE,
  GAMBA_PROGRAM_ID,
  decodeTransaction,
  encodeEventBytes,
  type GambaEvent,
  type RpcTransaction,
} from '../../src/protocol/index.js';
import { GAMBA_EVENTS_IDL } from '../helpers/gamba-idl.js';

const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const OTHER = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
const USER = '5YHkKxLwBwSAGkrYEuDLHHEAXxd1pZDjWU4gt348hVxf';
const POOL = '6LNNnp1jJf4pVrEb6oUA15XsWoXBeNXnAeJq8zLEdd6G';
const MINT = 'So11111111111111111111111111111111111111112';
const CREATOR = 'CPZFXCLzYQQuAJwoehUCP7ffqitM6Ug4gEvrsbbYhf92';

/** The GameSettled `Program data:` line of the example transaction in docs/protocol.md §1. */
const EXAMPLE_DATA =
  'P22AVeU/p7AE+Jltp2O3qWmxAo7jAHVp6vOmNUht2rIR1RLIW534+yfKxVA4NnZc0QdR0nq0puF9eoDUyUhDClqBUTlz+bUeBpuIV/6rgYT7aH9jRhjANdrEOdwa6ztVmKDwAAAAAAG8a/2Ejr14GcmoK/Ek1l5/c50I4AJgHiO7kGqs1Ao9gUBCDwAAAAAAQEIPAAAAAABAQg8AAAAAAKCGAQAAAAAAAOH1BQAAAAAAAAAAAAAAAADh9QUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAANIEAAAAAAAABhIPAAAAAAAqAAAAAAAAAAgAAABhMWIyYzNkNAEAAAAAAAAAAgAAACBOAAAAAAAAAAAAAAAAAAA1pC5KdwAAACAAAABmOTgyMGI1MzRjMzc0MDU0ZjBjMmY5YTAyZTBhZTdlNEAAAAA3YjA3YTM3NDY3ZWM3Nzc4OTg4MTc5Mjc1OWE0YzViNzA3MWMxOGZjMWJlYTRlOGFmYWZkZGY2ZTI2M2ZkMmMzDAAAADA6ZmxpcDpoZWFkcw==';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const b58 = getBase58Codec();

function gameSettled(n: number): GambaEvent {
  return {
    name: 'GameSettled',
    data: {
      user: USER, pool: POOL, tokenMint: MINT, creator: CREATOR,
      creatorFee: 10n * BigInt(n), gambaFee: 5n, poolFee: 3n, jackpotFee: 1n, underlyingUsed: 1000n, bonusUsed: 0n,
      wager: 1000n + BigInt(n), payout: 2000n, multiplierBps: 20000, payoutFromBonusPool: 0n, payoutFromNormalPool: 2000n,
      jackpotProbabilityUbps: 7n, jackpotResult: 0n, nonce: BigInt(n), clientSeed: `seed${n}`, resultIndex: 0n, bet: [20000, 0],
      jackpotPayoutToUser: 0n, poolLiquidity: 18_446_744_073_709_551_615n, rngSeed: 'r', nextRngSeedHashed: 'h', metadata: `0:flip:${n}`,
    },
  };
}
const poolChange: GambaEvent = {
  name: 'PoolChange',
  data: { user: USER, pool: POOL, tokenMint: MINT, action: 'withdraw', amount: 5n, postLiquidity: 95n, lpSupply: 90n },
};
const data = (e: GambaEvent) => `Program data: ${b64(encodeEventBytes(e))}`;

function tx(logs: string[], extra: Partial<NonNullable<RpcTransaction['meta']>> = {}, keys: string[] = [USER, GAMBA_PROGRAM_ID, TOKEN]): RpcTransaction {
  return {
    slot: 1,
    blockTime: 1_700_000_000,
    meta: { err: null, logMessages: logs, innerInstructions: [], ...extra },
    transaction: { signatures: ['sig1'], message: { accountKeys: keys } },
  };
}

/** Anchor 0.31's EventParser over the same logs: the reference for log attribution. */
function anchorEvents(logs: string[]): { name: string; data: Record<string, unknown> }[] {
  const parser = new EventParser(new PublicKey(GAMBA_PROGRAM_ID), new BorshCoder(GAMBA_EVENTS_IDL as never));
  return [...parser.parseLogs(logs)].map((e) => ({ name: e.name, data: normalizeAnchor(e.data) as Record<string, unknown> }));
}
function normalizeAnchor(v: unknown): unknown {
  if (v instanceof PublicKey) return v.toBase58();
  if (Array.isArray(v)) return v.map(normalizeAnchor);
  if (v && typeof v === 'object') {
    if ('toArrayLike' in v && 'toString' in v) return BigInt((v as { toString(): string }).toString());
    const entries = Object.entries(v as Record<string, unknown>);
    // Anchor ≥0.30 keeps IDL enum names: { Withdraw: {} } → 'withdraw'.
    if (entries.length === 1 && JSON.stringify(entries[0]![1]) === '{}') return entries[0]![0].toLowerCase();
    return Object.fromEntries(entries.map(([k, x]) => [k, normalizeAnchor(x)]));
  }
  return v;
}

describe('decodeTransaction', () => {
  it('discriminators are sha256("event:<Name>")[0..8]', () => {
    for (const [name, disc] of Object.entries(EVENT_DISCRIMINATORS)) {
      expect([...disc]).toEqual([...createHash('sha256').update(`event:${name}`).digest().subarray(0, 8)]);
    }
    expect(Buffer.from(EVENT_IX_TAG_LE).readBigUInt64LE()).toBe(0x1d9acb512ea545e4n);
    // anchor-lang event.rs: EVENT_IX_TAG = sha256("anchor:event")[..8] read big-endian, sent as LE bytes.
    expect(createHash('sha256').update('anchor:event').digest().readBigUInt64BE(0)).toBe(0x1d9acb512ea545e4n);
  });

  it('decodes the documented example the same way as Anchor', () => {
    const logs = [
      `Program ${GAMBA_PROGRAM_ID} invoke [1]`,
      'Program log: Instruction: RngSettle',
      `Program ${TOKEN} invoke [2]`,
      'Program log: Instruction: Transfer',
      `Program ${TOKEN} consumed 4645 of 183210 compute units`,
      `Program ${TOKEN} success`,
      `Program data: ${EXAMPLE_DATA}`,
      `Program ${GAMBA_PROGRAM_ID} consumed 48211 of 200000 compute units`,
      `Program ${GAMBA_PROGRAM_ID} success`,
    ];
    const out = decodeTransaction(tx(logs));
    expect(out.skipped).toEqual({});
    expect(out.events).toHaveLength(1);
    const ev = out.events[0]!;
    expect(ev.name).toBe('GameSettled');
    expect(ev.data).toMatchObject({ wager: 100_000_000n, payout: 0n, nonce: 42n, clientSeed: 'a1b2c3d4', metadata: '0:flip:heads', bet: [20000, 0], resultIndex: 1n });
    expect(anchorEvents(logs)).toEqual([{ name: ev.name, data: ev.data }]);
  });

  it('attributes Program data by the invoke stack: nested invokes of other programs, Gamba under a CPI', () => {
    const e1 = gameSettled(1);
    const e2 = gameSettled(2);
    const e3 = gameSettled(3);
    const logs = [
      // Another program at depth 1 emits a valid-looking event: not Gamba's.
      `Program ${OTHER} invoke [1]`,
      data(gameSettled(99)),
      `Program ${OTHER} success`,
      `Program ${GAMBA_PROGRAM_ID} invoke [1]`,
      `Program ${TOKEN} invoke [2]`,
      `Program ${OTHER} invoke [3]`,
      data(gameSettled(98)),
      `Program ${OTHER} success`,
      data(gameSettled(97)),
      `Program ${TOKEN} success`,
      data(e1),
      `Program ${GAMBA_PROGRAM_ID} success`,
      // Gamba invoked by another program (CPI): its events count (Anchor ≤ 0.31 semantics).
      `Program ${OTHER} invoke [1]`,
      `Program ${GAMBA_PROGRAM_ID} invoke [2]`,
      data(e2),
      data(poolChange),
      `Program ${GAMBA_PROGRAM_ID} success`,
      data(gameSettled(96)),
      `Program ${OTHER} success`,
      `Program ${GAMBA_PROGRAM_ID} invoke [1]`,
      data(e3),
      `Program ${GAMBA_PROGRAM_ID} success`,
    ];
    const out = decodeTransaction(tx(logs));
    expect(out.events.map((e) => (e.name === 'GameSettled' ? e.data.nonce : e.name))).toEqual([1n, 2n, 'PoolChange', 3n]);
    expect(out.events).toEqual([e1, e2, poolChange, e3]);
    expect(anchorEvents(logs)).toEqual(out.events);
    expect(out.skipped).toEqual({});
  });

  it('decodes self-CPI events (emit_cpi!) from inner instructions, json and jsonParsed forms', () => {
    const e = gameSettled(7);
    const ixData = b58.decode(Uint8Array.from([...EVENT_IX_TAG_LE, ...encodeEventBytes(e)]));
    const notAnEvent = b58.decode(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]));
    const json = decodeTransaction(
      tx([`Program ${GAMBA_PROGRAM_ID} invoke [1]`, `Program ${GAMBA_PROGRAM_ID} invoke [2]`, `Program ${GAMBA_PROGRAM_ID} success`, `Program ${GAMBA_PROGRAM_ID} success`], {
        innerInstructions: [
          {
            index: 0,
            instructions: [
              { programIdIndex: 2, data: ixData, accounts: [], stackHeight: 2 }, // token program, same bytes: ignored
              { programIdIndex: 1, data: notAnEvent, accounts: [], stackHeight: 2 }, // Gamba, not an event
              { programIdIndex: 1, data: ixData, accounts: [0], stackHeight: 2 },
            ],
          },
        ],
      }),
    );
    expect(json.events).toEqual([e]);
    const parsed = decodeTransaction({
      ...tx([], {
        innerInstructions: [{ index: 0, instructions: [{ programId: GAMBA_PROGRAM_ID, data: ixData, accounts: [USER], stackHeight: 2 }] }],
      }),
    });
    expect(parsed.events).toEqual([e]);
  });

  it('finds the Gamba program among loaded (address-table) keys of a v0 transaction', () => {
    const e = gameSettled(8);
    const ixData = b58.decode(Uint8Array.from([...EVENT_IX_TAG_LE, ...encodeEventBytes(e)]));
    const out = decodeTransaction(
      tx([], { innerInstructions: [{ index: 0, instructions: [{ programIdIndex: 2, data: ixData }] }], loadedAddresses: { writable: [], readonly: [GAMBA_PROGRAM_ID] } }, [USER, TOKEN]),
    );
    expect(out.events).toEqual([e]);
  });

  it('counts and skips unknown discriminators and malformed data without throwing', () => {
    const unknown = `Program data: ${b64(Uint8Array.from([9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3]))}`;
    const short = `Program data: ${b64(encodeEventBytes(gameSettled(1)).subarray(0, 100))}`;
    const trailing = `Program data: ${b64(Uint8Array.from([...encodeEventBytes(poolChange), 0]))}`;
    const badEnum = encodeEventBytes(poolChange);
    badEnum[8 + 96] = 7; // PoolAction variant 7 does not exist
    const out = decodeTransaction(
      tx([
        `Program ${GAMBA_PROGRAM_ID} invoke [1]`,
        unknown,
        short,
        trailing,
        `Program data: ${b64(badEnum)}`,
        data(gameSettled(5)),
        `Program ${GAMBA_PROGRAM_ID} success`,
      ]),
    );
    expect(out.events).toEqual([gameSettled(5)]);
    expect(out.skipped).toEqual({ unknown_discriminator: 1, malformed: 3 });
  });

  it('keeps the events before a truncated log and flags the transaction', () => {
    const out = decodeTransaction(
      tx([`Program ${GAMBA_PROGRAM_ID} invoke [1]`, data(gameSettled(1)), 'Log truncated']),
    );
    expect(out.events).toEqual([gameSettled(1)]);
    expect(out.skipped).toEqual({ truncated_logs: 1 });
  });

  it('returns no events for a failed transaction, even when its logs carry some', () => {
    const out = decodeTransaction(
      tx([`Program ${GAMBA_PROGRAM_ID} invoke [1]`, data(gameSettled(1)), `Program ${GAMBA_PROGRAM_ID} failed: custom program error: 0x1770`], {
        err: { InstructionError: [0, { Custom: 6000 }] },
      }),
    );
    expect(out.events).toEqual([]);
    expect(out.skipped).toEqual({ failed_transaction: 1 });
  });

  it('survives missing meta and null logs', () => {
    expect(decodeTransaction({ ...tx([]), meta: null }).skipped).toEqual({ no_meta: 1 });
    expect(decodeTransaction(tx([], { logMessages: null, innerInstructions: null })).events).toEqual([]);
  });
});
