import { getBase64Decoder } from '@solana/kit';
import { encodeEventBytes, EVENT_IX_TAG_LE, GAMBA_PROGRAM_ID, type GambaEvent } from '../protocol/index.js';
import {
  ATA_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  hashedAddress,
  RENT_SYSVAR,
  SYSTEM_PROGRAM,
  TOKEN_METADATA_PROGRAM,
  TOKEN_PROGRAM,
} from './addresses.js';
import type { Economy } from './economy.js';
import { computeBudgetIx, gambaIx, systemIx, tokenIx } from './instructions.js';
import type { GameOutcome, RealTx } from './ledger.js';
import { gameFees } from './ledger.js';
import { LogBook } from './logs.js';
import { hash32 } from './rng.js';

/**
 * Turns a realized transaction into everything getTransaction shows: accounts with their
 * signer/writable roles, instructions with Borsh data, CPIs, log lines, balances and fee —
 * one plan per transaction kind, following the Gamba IDL's account lists (gamba-v2.md §4).
 */
export interface ParsedInfo {
  program: 'spl-token' | 'system';
  type: string;
  info: Record<string, unknown>;
}

export interface IxPlan {
  program: string;
  accounts: string[];
  data: Uint8Array;
  parsed?: ParsedInfo;
}

export interface InnerIxPlan extends IxPlan {
  stackHeight: number;
}

export interface TokenBalancePlan {
  account: string;
  mint: string;
  owner: string;
  decimals: number;
  pre: bigint;
  post: bigint;
}

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
/** Compute units of SPL Token instructions (typical mainnet figures). */
const TOKEN_CU = { transfer: 4_645, mintTo: 4_492, burn: 4_753, initializeMint2: 2_967 } as const;
/** Gamba's IDL error 6000 (GenericError), as Anchor logs it. */
const ANCHOR_ERROR = 'AnchorError occurred. Error Code: GenericError. Error Number: 6000. Error Message: Something went wrong.';
const CUSTOM_6000 = 'custom program error: 0x1770';

const LAMPORTS_BY_KEY: Record<string, number> = {
  [SYSTEM_PROGRAM]: 1,
  [COMPUTE_BUDGET_PROGRAM]: 1,
  [TOKEN_PROGRAM]: 934_087_680,
  [ATA_PROGRAM]: 731_913_600,
  [RENT_SYSVAR]: 1_009_200,
  [TOKEN_METADATA_PROGRAM]: 1_141_440,
  [GAMBA_PROGRAM_ID]: 1_141_440,
};

const base64 = getBase64Decoder();

type Role = '' | 'w' | 's' | 'sw';

class Builder {
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

export interface PlanContext {
  economy: Economy;
  seed: number;
  blockTime: number;
  blockhash: (slot: number) => string;
  /** Truncate the logs at the first "Program data:" line (fault injection). */
  truncateLogs: boolean;
  signature: string;
}

function transfer(b: Builder, logs: LogBook, outer: number, from: string, to: string, authority: string, amount: bigint, fail = false): boolean {
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

function emitEvent(b: Builder, logs: LogBook, outer: number, event: GambaEvent, viaCpi: boolean, eventAuthority: string): void {
  const bytes = encodeEventBytes(event);
  if (!viaCpi) {
    logs.data(base64.decode(bytes));
    return;
  }
  // emit_cpi!: a self-invocation signed by the event-authority PDA carrying tag + event bytes.
  const data = new Uint8Array(8 + bytes.length);
  data.set(EVENT_IX_TAG_LE, 0);
  data.set(bytes, 8);
  b.cpi(outer, 2, GAMBA_PROGRAM_ID, [eventAuthority], data);
  logs.invoke(GAMBA_PROGRAM_ID, 2, 1_200 + (bytes.length % 400));
}

/** Pseudo wallet balance that covers `need` (stateless: players' own balances are not tracked). */
function walletBalance(need: bigint, u: number): bigint {
  return need * BigInt(2 + Math.floor(u * 40)) + 1_000n;
}

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
  let err: unknown = null;
  const failAt = (ix: number, code: number) => ({ InstructionError: [ix, { Custom: code }] });
  const events: GambaEvent[] = [];

  if (tx.kind === 'play') {
    const g = tx.games[0]!;
    const user = payer;
    const mint = g.pool.token.mint;
    const playerPda = eco.playerPda(g.player);
    const userAta = eco.ata(user, mint);
    const playerAta = eco.ata(playerPda, mint);
    const fees = gameFees(g);
    const total = g.wager + fees.total;
    const ix = b.ix(
      GAMBA_PROGRAM_ID,
      [
        [user, 'sw'],
        [playerPda, 'w'],
        [eco.gamePda(g.player), 'w'],
        [g.pool.address, 'w'],
        [mint, ''],
        [g.pool.bonusMint, ''],
        [userAta, 'w'],
        [g.platform.address, ''],
        [eco.ata(g.platform.address, mint), 'w'],
        [playerAta, 'w'],
        [GAMBA_PROGRAM_ID, ''], // optional playerBonusAta: Anchor passes the program id for None
        [GAMBA_PROGRAM_ID, ''], // optional userBonusAta
        [eco.gambaState, 'w'],
        [g.pool.jackpotAta, 'w'],
        [SYSTEM_PROGRAM, ''],
        [TOKEN_PROGRAM, ''],
        [ATA_PROGRAM, ''],
      ],
      gambaIx.playGame({
        wager: g.wager,
        bet: g.variant.bet,
        clientSeed: g.clientSeed,
        creatorFeeBps: g.platform.creatorFeeBps,
        jackpotFeeBps: g.platform.jackpotFeeBps,
        metadata: g.metadata,
      }),
    );
    const poor = tx.fail === 'insufficientFunds';
    const have = poor ? total / 2n : walletBalance(total, tx.u1);
    logs.invoke(GAMBA_PROGRAM_ID, 1, tx.programCu, () => {
      logs.log('Instruction: PlayGame');
      if (tx.fail === 'anchor') {
        logs.log(ANCHOR_ERROR);
        return false;
      }
      return transfer(b, logs, ix, userAta, playerAta, user, total, poor);
    }, tx.fail === 'anchor' ? CUSTOM_6000 : undefined);
    if (tx.fail) err = failAt(ix, poor ? 1 : 6000);
    b.tokenBalance(userAta, mint, user, g.pool.token.decimals, have, ok ? have - total : have);
    b.tokenBalance(playerAta, mint, playerPda, g.pool.token.decimals, 0n, ok ? total : 0n);
  } else if (tx.kind === 'settle') {
    const useCpi = tx.emitCpi;
    const retryFail = tx.fail === 'settleRetry';
    let lastIx = 0;
    for (const out of real.games) {
      const g = out.game;
      const e = out.event;
      const mint = g.pool.token.mint;
      const dec = g.pool.token.decimals;
      const user = eco.playerAddress(g.player);
      const playerPda = eco.playerPda(g.player);
      const playerAta = eco.ata(playerPda, mint);
      const userAta = eco.ata(user, mint);
      const creatorAta = eco.ata(g.platform.address, mint);
      const stateAta = eco.ata(eco.gambaState, mint);
      const accounts: [string, Role][] = [
        [eco.rng, 'sw'],
        [user, 'w'],
        [playerPda, 'w'],
        [eco.gamePda(g.player), 'w'],
        [g.pool.address, 'w'],
        [mint, ''],
        [g.pool.underlyingAta, 'w'],
        [g.pool.bonusAta, 'w'],
        [playerAta, 'w'],
        [userAta, 'w'],
        [eco.gambaState, ''],
        [stateAta, 'w'],
        [g.platform.address, ''],
        [creatorAta, 'w'],
        [g.pool.bonusMint, 'w'],
        [GAMBA_PROGRAM_ID, ''], // optional playerBonusAta
        [g.pool.jackpotAta, 'w'],
        [eco.escrow(g.player), 'w'],
        [SYSTEM_PROGRAM, ''],
        [TOKEN_PROGRAM, ''],
        [ATA_PROGRAM, ''],
        [RENT_SYSVAR, ''],
      ];
      // #[event_cpi] appends the event authority and the program itself to the accounts.
      if (useCpi) accounts.push([eco.eventAuthority, ''], [GAMBA_PROGRAM_ID, '']);
      const ix = b.ix(GAMBA_PROGRAM_ID, accounts, gambaIx.rngSettle({ rngSeed: e.rngSeed, nextRngSeedHashed: e.nextRngSeedHashed }));
      lastIx = ix;
      const escrowed = e.wager + out.fees;
      logs.invoke(
        GAMBA_PROGRAM_ID,
        1,
        Math.floor(tx.programCu / tx.games.length),
        () => {
          logs.log('Instruction: RngSettle');
          transfer(b, logs, ix, playerAta, g.pool.underlyingAta, playerPda, e.wager + e.poolFee);
          if (e.creatorFee > 0n) transfer(b, logs, ix, playerAta, creatorAta, playerPda, e.creatorFee);
          if (e.gambaFee > 0n) transfer(b, logs, ix, playerAta, stateAta, playerPda, e.gambaFee);
          if (e.jackpotFee > 0n) transfer(b, logs, ix, playerAta, g.pool.jackpotAta, playerPda, e.jackpotFee);
          if (e.payout > 0n) transfer(b, logs, ix, g.pool.underlyingAta, userAta, g.pool.address, e.payout);
          if (e.jackpotPayoutToUser > 0n) transfer(b, logs, ix, g.pool.jackpotAta, userAta, g.pool.address, e.jackpotPayoutToUser);
          const event: GambaEvent = { name: 'GameSettled', data: e };
          emitEvent(b, logs, ix, event, useCpi && !retryFail, eco.eventAuthority);
          if (retryFail) {
            logs.log(ANCHOR_ERROR);
            return false;
          }
          if (ok) events.push(event);
          return true;
        },
        retryFail ? CUSTOM_6000 : undefined,
      );
      const userHas = walletBalance(escrowed, tx.u2);
      const stateHas = 10n ** BigInt(dec + 4) + BigInt(hash32(ctx.seed, 'dao', mint));
      const creatorHas = walletBalance(escrowed, tx.u1);
      const jackpotAfter = out.jackpotBefore + e.jackpotFee - e.jackpotPayoutToUser;
      const gain = e.payout + e.jackpotPayoutToUser;
      b.tokenBalance(g.pool.underlyingAta, mint, g.pool.address, dec, out.liquidityBefore, ok ? e.poolLiquidity : out.liquidityBefore);
      b.tokenBalance(playerAta, mint, playerPda, dec, escrowed, ok ? 0n : escrowed);
      b.tokenBalance(userAta, mint, user, dec, userHas, ok ? userHas + gain : userHas);
      b.tokenBalance(creatorAta, mint, g.platform.address, dec, creatorHas, ok ? creatorHas + e.creatorFee : creatorHas);
      b.tokenBalance(stateAta, mint, eco.gambaState, dec, stateHas, ok ? stateHas + e.gambaFee : stateHas);
      b.tokenBalance(g.pool.jackpotAta, mint, g.pool.address, dec, out.jackpotBefore, ok ? jackpotAfter : out.jackpotBefore);
      if (retryFail) break;
    }
    if (retryFail) err = failAt(lastIx, 6000);
  } else if (tx.kind === 'poolOp') {
    const op = real.poolOp!;
    const pool = tx.pool!;
    const user = payer;
    const mint = pool.token.mint;
    const dec = pool.token.decimals;
    const userAta = eco.ata(user, mint);
    const userLpAta = eco.ata(user, pool.lpMint);
    const deposit = op.action === 'deposit';
    const accounts: [string, Role][] = deposit
      ? [
          [user, 'sw'],
          [eco.gambaState, ''],
          [pool.address, 'w'],
          [pool.underlyingAta, 'w'],
          [pool.lpMint, 'w'],
          [mint, ''],
          [userAta, 'w'],
          [userLpAta, 'w'],
          [ATA_PROGRAM, ''],
          [TOKEN_PROGRAM, ''],
          [SYSTEM_PROGRAM, ''],
        ]
      : [
          [user, 'sw'],
          [pool.address, 'w'],
          [pool.underlyingAta, 'w'],
          [pool.lpMint, 'w'],
          [mint, ''],
          [userAta, 'w'],
          [userLpAta, 'w'],
          [eco.gambaState, ''],
          [ATA_PROGRAM, ''],
          [TOKEN_PROGRAM, ''],
          [SYSTEM_PROGRAM, ''],
        ];
    if (tx.emitCpi) accounts.push([eco.eventAuthority, ''], [GAMBA_PROGRAM_ID, '']);
    // The instruction takes underlying for deposits and LP units for withdrawals (gamba-v2.md §4).
    const ix = b.ix(GAMBA_PROGRAM_ID, accounts, deposit ? gambaIx.poolDeposit(op.amount) : gambaIx.poolWithdraw(op.lp));
    logs.invoke(GAMBA_PROGRAM_ID, 1, tx.programCu, () => {
      logs.log(deposit ? 'Instruction: PoolDeposit' : 'Instruction: PoolWithdraw');
      if (!ok) {
        logs.log(ANCHOR_ERROR);
        return false;
      }
      if (deposit) {
        transfer(b, logs, ix, userAta, pool.underlyingAta, user, op.amount);
        b.cpi(ix, 2, TOKEN_PROGRAM, [pool.lpMint, userLpAta, pool.address], tokenIx.mintTo(op.lp), {
          program: 'spl-token',
          type: 'mintTo',
          info: { account: userLpAta, amount: op.lp.toString(), mint: pool.lpMint, mintAuthority: pool.address },
        });
        logs.invoke(TOKEN_PROGRAM, 2, TOKEN_CU.mintTo, () => logs.log('Instruction: MintTo'));
      } else {
        b.cpi(ix, 2, TOKEN_PROGRAM, [userLpAta, pool.lpMint, user], tokenIx.burn(op.lp), {
          program: 'spl-token',
          type: 'burn',
          info: { account: userLpAta, amount: op.lp.toString(), authority: user, mint: pool.lpMint },
        });
        logs.invoke(TOKEN_PROGRAM, 2, TOKEN_CU.burn, () => logs.log('Instruction: Burn'));
        transfer(b, logs, ix, pool.underlyingAta, userAta, pool.address, op.amount);
      }
      const event: GambaEvent = { name: 'PoolChange', data: op.event };
      emitEvent(b, logs, ix, event, tx.emitCpi, eco.eventAuthority);
      events.push(event);
      return true;
    }, ok ? undefined : CUSTOM_6000);
    if (!ok) err = failAt(ix, 6000);
    const userHas = walletBalance(op.amount, tx.u1);
    const lpHas = deposit ? walletBalance(op.lp, tx.u2) - op.lp : walletBalance(op.lp, tx.u2);
    const d = deposit ? 1n : -1n;
    b.tokenBalance(pool.underlyingAta, mint, pool.address, dec, op.liquidityBefore, ok ? op.event.postLiquidity : op.liquidityBefore);
    b.tokenBalance(userAta, mint, user, dec, userHas, ok ? userHas - d * op.amount : userHas);
    b.tokenBalance(userLpAta, pool.lpMint, user, dec, lpHas, ok ? lpHas + d * op.lp : lpHas);
  } else if (tx.kind === 'poolInit') {
    const pool = tx.pool!;
    const created = real.created!;
    const user = payer;
    const lpMeta = hashedAddress(ctx.seed, 'lp-metadata', pool.index);
    const bonusMeta = hashedAddress(ctx.seed, 'bonus-metadata', pool.index);
    const ix = b.ix(
      GAMBA_PROGRAM_ID,
      [
        [user, 'sw'],
        [eco.gambaState, 'w'],
        [pool.token.mint, ''],
        [pool.address, 'w'],
        [pool.underlyingAta, 'w'],
        [pool.bonusAta, 'w'],
        [pool.jackpotAta, 'w'],
        [eco.ata(eco.gambaState, pool.token.mint), 'w'],
        [pool.lpMint, 'w'],
        [lpMeta, 'w'],
        [pool.bonusMint, 'w'],
        [bonusMeta, 'w'],
        [ATA_PROGRAM, ''],
        [TOKEN_PROGRAM, ''],
        [SYSTEM_PROGRAM, ''],
        [RENT_SYSVAR, ''],
        [TOKEN_METADATA_PROGRAM, ''],
      ],
      gambaIx.poolInitialize(pool.authority, eco.rngLookupTable),
    );
    const poolRent = 3_647_040;
    logs.invoke(GAMBA_PROGRAM_ID, 1, tx.programCu, () => {
      logs.log('Instruction: PoolInitialize');
      if (!ok) {
        logs.log(ANCHOR_ERROR);
        return false;
      }
      b.cpi(ix, 2, SYSTEM_PROGRAM, [user, pool.address], systemIx.createAccount(BigInt(poolRent), 396n, GAMBA_PROGRAM_ID), {
        program: 'system',
        type: 'createAccount',
        info: { lamports: poolRent, newAccount: pool.address, owner: GAMBA_PROGRAM_ID, source: user, space: 396 },
      });
      logs.builtin(SYSTEM_PROGRAM, 2);
      b.cpi(ix, 2, TOKEN_PROGRAM, [pool.lpMint], tokenIx.initializeMint2(pool.token.decimals, pool.address), {
        program: 'spl-token',
        type: 'initializeMint2',
        info: { decimals: pool.token.decimals, mint: pool.lpMint, mintAuthority: pool.address },
      });
      logs.invoke(TOKEN_PROGRAM, 2, TOKEN_CU.initializeMint2, () => logs.log('Instruction: InitializeMint2'));
      const event: GambaEvent = { name: 'PoolCreated', data: created };
      emitEvent(b, logs, ix, event, false, eco.eventAuthority);
      events.push(event);
      return true;
    }, ok ? undefined : CUSTOM_6000);
    if (ok) {
      b.lamportDelta.set(pool.address, poolRent);
      b.lamportDelta.set(user, -poolRent);
    } else err = failAt(ix, 6000);
  } else {
    // Instructions without events: player_initialize, player_close, player_claim, distribute_fees.
    const user = payer;
    const player = tx.actor >= 0 ? tx.actor : 0;
    const playerPda = eco.playerPda(player);
    const gamePda = eco.gamePda(player);
    let accounts: [string, Role][];
    let data: Uint8Array;
    let name: string;
    if (tx.kind === 'playerInit') {
      accounts = [
        [playerPda, 'w'],
        [gamePda, 'w'],
        [user, 'sw'],
        [SYSTEM_PROGRAM, ''],
      ];
      data = gambaIx.playerInitialize();
      name = 'PlayerInitialize';
    } else if (tx.kind === 'playerClose') {
      accounts = [
        [user, 'sw'],
        [playerPda, 'w'],
        [gamePda, 'w'],
      ];
      data = gambaIx.playerClose();
      name = 'PlayerClose';
    } else if (tx.kind === 'playerClaim') {
      const mint = tx.pool!.token.mint;
      accounts = [
        [user, 'sw'],
        [mint, ''],
        [playerPda, 'w'],
        [gamePda, 'w'],
        [eco.ata(playerPda, mint), 'w'],
        [eco.ata(user, mint), 'w'],
        [SYSTEM_PROGRAM, ''],
        [TOKEN_PROGRAM, ''],
        [ATA_PROGRAM, ''],
      ];
      data = gambaIx.playerClaim();
      name = 'PlayerClaim';
    } else {
      const mint = tx.pool!.token.mint;
      accounts = [
        [user, 'sw'],
        [mint, ''],
        [eco.gambaState, 'w'],
        [eco.ata(eco.gambaState, mint), 'w'],
        [eco.distributionRecipient, 'w'],
        [eco.ata(eco.distributionRecipient, mint), 'w'],
        [ATA_PROGRAM, ''],
        [TOKEN_PROGRAM, ''],
        [SYSTEM_PROGRAM, ''],
      ];
      data = gambaIx.distributeFees(false);
      name = 'DistributeFees';
    }
    const ix = b.ix(GAMBA_PROGRAM_ID, accounts, data);
    const rents: [string, number][] = [
      [playerPda, 1_586_880],
      [gamePda, 2_449_920],
    ];
    logs.invoke(GAMBA_PROGRAM_ID, 1, tx.programCu, () => {
      logs.log(`Instruction: ${name}`);
      if (!ok) {
        logs.log(ANCHOR_ERROR);
        return false;
      }
      if (tx.kind === 'playerInit') {
        for (const [acct, lamports] of rents) {
          b.cpi(ix, 2, SYSTEM_PROGRAM, [user, acct], systemIx.createAccount(BigInt(lamports), 200n, GAMBA_PROGRAM_ID), {
            program: 'system',
            type: 'createAccount',
            info: { lamports, newAccount: acct, owner: GAMBA_PROGRAM_ID, source: user, space: 200 },
          });
          logs.builtin(SYSTEM_PROGRAM, 2);
        }
      }
      return true;
    }, ok ? undefined : CUSTOM_6000);
    if (!ok) err = failAt(ix, 6000);
    else if (tx.kind === 'playerInit') {
      for (const [acct, lamports] of rents) b.lamportDelta.set(acct, lamports);
      b.lamportDelta.set(user, -(rents[0]![1] + rents[1]![1]));
    }
  }

  gambaIxCount = b.outer.length - builtins;
  const limit = tx.cuLimit > 0 ? tx.cuLimit : Math.min(1_400_000, 200_000 * gambaIxCount);
  const fee = BASE_FEE + Math.ceil((tx.cuPrice * limit) / 1_000_000);

  const lookup =
    tx.v0 && tx.kind === 'settle' ? { table: eco.rngLookupTable, contents: RNG_LOOKUP_CONTENTS, loaded: new Set<string>(RNG_LOOKUP_CONTENTS) } : null;
  const lamports = new Map<string, [number, number]>();
  const tokenAccounts = new Set(b.balances.keys());
  for (const key of b.metas.keys()) {
    let pre: number;
    if (key === payer) pre = tx.feePayerLamports;
    else if (key in LAMPORTS_BY_KEY) pre = LAMPORTS_BY_KEY[key]!;
    else if (tokenAccounts.has(key)) pre = 2_039_280;
    else pre = 890_880 + (hash32(ctx.seed, 'lamports', key) % 5_000_000_000);
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
