import { GAMBA_PROGRAM_ID, type GambaEvent } from '../../protocol/index.js';
import { ATA_PROGRAM, COMPUTE_BUDGET_PROGRAM, hash32, hashedAddress, RENT_SYSVAR, SYSTEM_PROGRAM, TOKEN_METADATA_PROGRAM, TOKEN_PROGRAM, type Economy, type RealTx } from '../chain/index.js';
import { computeBudgetIx } from './instructions.js';
import { LogBook } from './logs.js';
import { Builder, type InnerIxPlan, type IxPlan, type TokenBalancePlan } from './tx-builder.js';
import { KIND_PLANNERS, type KindArgs } from './tx-kinds.js';

export type { InnerIxPlan, IxPlan, ParsedInfo, TokenBalancePlan } from './tx-builder.js';

/**
 * Turns a realized transaction into everything getTransaction shows: accounts with their
 * signer/writable roles, instructions with Borsh data, CPIs, log lines, balances and fee —
 * one planner per transaction kind (tx-kinds.ts), following the Gamba IDL's account lists.
 */
export interface TxPlan {
  signature: string;
  slot: number;
  blockTime: number;
  version: 'legacy' | 0;
  /** Accounts in first-use order with merged roles; the payer first. */
  metas: Map<string, { signer: boolean; writable: boolean }>;
  /** Accounts loaded from the address lookup table (v0 only), with the table's address. */
  lookup: { table: string; contents: readonly string[]; loaded: Set<string> } | null;
  outer: IxPlan[];
  inner: InnerIxPlan[][];
  logs: string[];
  err: unknown;
  fee: number;
  computeUnits: number;
  tokenBalances: TokenBalancePlan[];
  lamports: Map<string, [number, number]>;
  recentBlockhash: string;
  /** Events as a decoder finds them (ground truth before fault-truncation). */
  events: GambaEvent[];
}

/** The RNG provider's lookup table (what its v0 settle transactions load). */
export const RNG_LOOKUP_CONTENTS = [SYSTEM_PROGRAM, TOKEN_PROGRAM, ATA_PROGRAM, RENT_SYSVAR] as const;

const BASE_FEE = 5_000;

const LAMPORTS_BY_KEY: Record<string, number> = {
  [SYSTEM_PROGRAM]: 1,
  [COMPUTE_BUDGET_PROGRAM]: 1,
  [TOKEN_PROGRAM]: 934_087_680,
  [ATA_PROGRAM]: 731_913_600,
  [RENT_SYSVAR]: 1_009_200,
  [TOKEN_METADATA_PROGRAM]: 1_141_440,
  [GAMBA_PROGRAM_ID]: 1_141_440,
};

/**
 * An ordinary account's lamports before the transaction: fixed per (seed, account), and the
 * accounts repeat (players, pools, creators), so memoised per seed (bounded).
 */
const lamportMemo = new Map<number, Map<string, number>>();
function accountLamports(seed: number, key: string): number {
  let m = lamportMemo.get(seed);
  if (m === undefined) lamportMemo.set(seed, (m = new Map()));
  let v = m.get(key);
  if (v === undefined) {
    if (m.size >= 200_000) m.clear();
    v = 890_880 + (hash32(seed, 'lamports', key) % 5_000_000_000);
    m.set(key, v);
  }
  return v;
}

/** What a plan needs beyond the realized transaction: economy, seed, block time (Unix s), blockhash of a slot, whether logs are truncated, and the signature. */
export interface PlanContext {
  economy: Economy;
  seed: number;
  blockTime: number;
  blockhash: (slot: number) => string;
  /** Truncate the logs at the first "Program data:" line (fault injection). */
  truncateLogs: boolean;
  signature: string;
}

/** The full plan of a realized transaction (deterministic; the view caches it). */
export function planTransaction(real: RealTx, ctx: PlanContext): TxPlan {
  const tx = real.skel;
  const eco = ctx.economy;
  let payer: string;
  switch (tx.kind) {
    case 'settle':
      payer = eco.rng;
      break;
    case 'poolOp':
    case 'poolInit':
      payer = eco.lpAddress(tx.pool!.index, tx.actor);
      break;
    case 'distributeFees':
      payer = hashedAddress(ctx.seed, 'fee-keeper');
      break;
    default:
      payer = eco.playerAddress(tx.actor);
  }
  const b = new Builder(payer);
  const ok = tx.fail === null;
  let gambaIxCount = tx.kind === 'settle' ? tx.games.length : 1;
  if (tx.cuLimit > 0) b.ix(COMPUTE_BUDGET_PROGRAM, [], computeBudgetIx.setLimit(tx.cuLimit));
  if (tx.cuPrice > 0) b.ix(COMPUTE_BUDGET_PROGRAM, [], computeBudgetIx.setPrice(tx.cuPrice));
  const builtins = b.outer.length;
  const budget = tx.cuLimit > 0 ? tx.cuLimit : Math.min(1_400_000, 200_000 * gambaIxCount);
  const logs = new LogBook(budget, ctx.truncateLogs);
  for (let i = 0; i < builtins; i++) logs.builtin(COMPUTE_BUDGET_PROGRAM, 1);
  const events: GambaEvent[] = [];
  const k: KindArgs = { b, logs, real, ctx, payer, ok, events, err: null };
  KIND_PLANNERS[tx.kind](k);
  const err = k.err;

  gambaIxCount = b.outer.length - builtins;
  const limit = tx.cuLimit > 0 ? tx.cuLimit : Math.min(1_400_000, 200_000 * gambaIxCount);
  const fee = BASE_FEE + Math.ceil((tx.cuPrice * limit) / 1_000_000);

  const lookup =
    tx.v0 && tx.kind === 'settle' ? { table: eco.rngLookupTable, contents: RNG_LOOKUP_CONTENTS, loaded: new Set<string>(RNG_LOOKUP_CONTENTS) } : null;
  const lamports = new Map<string, [number, number]>();
  for (const key of b.metas.keys()) {
    let pre: number;
    if (key === payer) pre = tx.feePayerLamports;
    else if (key in LAMPORTS_BY_KEY) pre = LAMPORTS_BY_KEY[key]!;
    else if (b.balances.has(key)) pre = 2_039_280;
    else pre = accountLamports(ctx.seed, key);
    const delta = b.lamportDelta.get(key) ?? 0;
    if (delta > 0 && key !== payer) pre = 0;
    const post = key === payer ? pre - fee + (ok ? Math.min(0, delta) : 0) : ok ? pre + Math.max(0, delta) : pre;
    lamports.set(key, [pre, post]);
  }

  return {
    signature: ctx.signature,
    slot: tx.slot,
    blockTime: ctx.blockTime,
    version: tx.v0 ? 0 : 'legacy',
    metas: b.metas,
    lookup,
    outer: b.outer,
    inner: b.inner,
    logs: logs.lines,
    err,
    fee,
    computeUnits: budget - logs.meter,
    tokenBalances: [...b.balances.values()],
    lamports,
    recentBlockhash: ctx.blockhash(tx.slot - 2 - (hash32(ctx.signature) % 60)),
    events: ok ? events : [],
  };
}

/**
 * The TransactionError of a failed transaction without building its plan (for
 * getSignaturesForAddress): the Gamba instruction follows the ComputeBudget ones; a token
 * transfer short of funds fails with SPL Token's Custom(1), Gamba's own errors with Custom(6000).
 */
export function txError(tx: RealTx['skel']): unknown {
  if (tx.fail === null) return null;
  const index = (tx.cuLimit > 0 ? 1 : 0) + (tx.cuPrice > 0 ? 1 : 0);
  return { InstructionError: [index, { Custom: tx.fail === 'insufficientFunds' ? 1 : 6000 }] };
}

