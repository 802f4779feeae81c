import { encodeEventBytes, EVENT_IX_TAG_LE, GAMBA_PROGRAM_ID, type GambaEvent } from '../../protocol/index.js';
import { TOKEN_PROGRAM } from '../chain/index.js';
import { tokenIx } from './instructions.js';
import type { LogBook } from './logs.js';

/**
 * The pieces a transaction plan is made of (accounts with roles, instructions, CPIs, token
 * balances) and the helpers every planner shares (token transfers, event emission).
 */

/** The jsonParsed form of an SPL Token or System instruction (program, type, info). */
export interface ParsedInfo {
  program: 'spl-token' | 'system';
  type: string;
  info: Record<string, unknown>;
}

/** An instruction: program id, account keys in order, data bytes and, for SPL Token and System instructions, their jsonParsed form. */
export interface IxPlan {
  program: string;
  accounts: string[];
  data: Uint8Array;
  parsed?: ParsedInfo;
}

/** A CPI: an instruction with its stack height (2 = called by a top-level instruction). */
export interface InnerIxPlan extends IxPlan {
  stackHeight: number;
}

/** A token account's pre and post balance (smallest units) for the meta's pre/postTokenBalances. */
export interface TokenBalancePlan {
  account: string;
  mint: string;
  owner: string;
  decimals: number;
  pre: bigint;
  post: bigint;
}

/** Compute units of SPL Token instructions (typical mainnet figures). */
export const TOKEN_CU = { transfer: 4_645, mintTo: 4_492, burn: 4_753, initializeMint2: 2_967 } as const;
/** Gamba's IDL error 6000 (GenericError), as Anchor logs it. */
export const ANCHOR_ERROR = 'AnchorError occurred. Error Code: GenericError. Error Number: 6000. Error Message: Something went wrong.';
/** The runtime's log line for Gamba's error 6000 (0x1770). */
export const CUSTOM_6000 = 'custom program error: 0x1770';

/** TransactionError of a failed instruction with a custom program error code. */
export const failAt = (ix: number, code: number) => ({ InstructionError: [ix, { Custom: code }] });

/** An account's role in an instruction: '' read-only, 'w' writable, 's' signer, 'sw' both. */
export type Role = '' | 'w' | 's' | 'sw';

/** Accumulates a transaction's plan: accounts with merged roles (payer first), top-level instructions, their CPIs, token balances and lamport changes. */
export class Builder {
  readonly metas = new Map<string, { signer: boolean; writable: boolean }>();
  readonly outer: IxPlan[] = [];
  readonly inner: InnerIxPlan[][] = [];
  readonly balances = new Map<string, TokenBalancePlan>();
  readonly lamportDelta = new Map<string, number>();

  constructor(readonly payer: string) {
    this.acc(payer, 'sw');
  }

  acc(key: string, role: Role = ''): string {
    const m = this.metas.get(key) ?? { signer: false, writable: false };
    m.signer ||= role.includes('s');
    m.writable ||= role.includes('w');
    this.metas.set(key, m);
    return key;
  }

  ix(program: string, accounts: [string, Role][], data: Uint8Array): number {
    for (const [k, r] of accounts) this.acc(k, r);
    this.acc(program);
    this.outer.push({ program, accounts: accounts.map(([k]) => k), data });
    this.inner.push([]);
    return this.outer.length - 1;
  }

  cpi(outer: number, depth: number, program: string, accounts: string[], data: Uint8Array, parsed?: ParsedInfo): void {
    for (const k of accounts) this.acc(k);
    this.acc(program);
    this.inner[outer]!.push({ program, accounts, data, stackHeight: depth, parsed });
  }

  tokenBalance(account: string, mint: string, owner: string, decimals: number, pre: bigint, post: bigint): void {
    const b = this.balances.get(account);
    if (b) b.post = post;
    else this.balances.set(account, { account, mint, owner, decimals, pre, post });
  }
}

/** Adds an SPL Token transfer CPI under instruction `outer` and its log lines; `fail` makes it fail with "insufficient funds". Returns whether it succeeded. */
export function transfer(b: Builder, logs: LogBook, outer: number, from: string, to: string, authority: string, amount: bigint, fail = false): boolean {
  b.cpi(outer, 2, TOKEN_PROGRAM, [from, to, authority], tokenIx.transfer(amount), {
    program: 'spl-token',
    type: 'transfer',
    info: { amount: amount.toString(), authority, destination: to, source: from },
  });
  return logs.invoke(TOKEN_PROGRAM, 2, fail ? 4_381 : TOKEN_CU.transfer, () => {
    logs.log('Instruction: Transfer');
    if (fail) {
      logs.log('Error: insufficient funds');
      return false;
    }
    return true;
  });
}

/** Emits a Gamba event as Anchor does: a "Program data:" log line, or with `viaCpi` a self-CPI signed by the event authority (emit_cpi!). */
export function emitEvent(b: Builder, logs: LogBook, outer: number, event: GambaEvent, viaCpi: boolean, eventAuthority: string): void {
  if (!viaCpi) {
    const bytes = encodeEventBytes(event);
    logs.data(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64'));
    return;
  }
  // emit_cpi!: a self-invocation signed by the event-authority PDA carrying tag + event bytes.
  const data = encodeEventBytes(event, EVENT_IX_TAG_LE);
  b.cpi(outer, 2, GAMBA_PROGRAM_ID, [eventAuthority], data);
  logs.invoke(GAMBA_PROGRAM_ID, 2, 1_200 + ((data.length - 8) % 400));
}

/** Pseudo wallet balance that covers `need` (stateless: players' own balances are not tracked). */
export function walletBalance(need: bigint, u: number): bigint {
  return need * BigInt(2 + Math.floor(u * 40)) + 1_000n;
}
