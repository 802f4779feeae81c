import { GAMBA_PROGRAM_ID, type GambaEvent } from '../../protocol/index.js';
import { ATA_PROGRAM, gameFees, hash32, hashedAddress, RENT_SYSVAR, SYSTEM_PROGRAM, TOKEN_METADATA_PROGRAM, TOKEN_PROGRAM, type RealTx, type TxKind } from '../chain/index.js';
import { gambaIx, systemIx, tokenIx } from './instructions.js';
import type { LogBook } from './logs.js';
import { ANCHOR_ERROR, CUSTOM_6000, emitEvent, failAt, TOKEN_CU, transfer, walletBalance, type Builder, type Role } from './tx-builder.js';
import type { PlanContext } from './txplan.js';

/**
 * One planner per transaction kind: the accounts of the Gamba IDL instruction (docs/protocol.md §4,
 * gamba-labs IDL account order), its Borsh arguments, the CPIs it makes, its log lines and the
 * token balances it moves. A planner fills the builder and sets `err` when the transaction fails.
 */
export interface KindArgs {
  b: Builder;
  logs: LogBook;
  real: RealTx;
  ctx: PlanContext;
  payer: string;
  ok: boolean;
  /** Events in decoder order (pushed only by successful instructions). */
  events: GambaEvent[];
  err: unknown;
}

/** play_game, signed by the player: wager + fees move to the player PDA's account; no event. */
function planPlay(k: KindArgs): void {
  const { b, logs, real, ctx, payer, ok } = k;
  const tx = real.skel;
  const eco = ctx.economy;
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
  if (tx.fail) k.err = failAt(ix, poor ? 1 : 6000);
  b.tokenBalance(userAta, mint, user, g.pool.token.decimals, have, ok ? have - total : have);
  b.tokenBalance(playerAta, mint, playerPda, g.pool.token.decimals, 0n, ok ? total : 0n);
}

/** rng_settle (one or two games), signed by the RNG key: fee and payout transfers, then GameSettled. */
function planSettle(k: KindArgs): void {
  const { b, logs, real, ctx, ok, events } = k;
  const tx = real.skel;
  const eco = ctx.economy;
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
  if (retryFail) k.err = failAt(lastIx, 6000);
}

/** pool_deposit / pool_withdraw, signed by an LP: underlying in/out, LP minted/burned, then PoolChange. */
function planPoolOp(k: KindArgs): void {
  const { b, logs, real, ctx, payer, ok, events } = k;
  const tx = real.skel;
  const eco = ctx.economy;
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
  // The instruction takes underlying for deposits and LP units for withdrawals (docs/protocol.md §4).
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
  if (!ok) k.err = failAt(ix, 6000);
  const userHas = walletBalance(op.amount, tx.u1);
  const lpHas = deposit ? walletBalance(op.lp, tx.u2) - op.lp : walletBalance(op.lp, tx.u2);
  const d = deposit ? 1n : -1n;
  b.tokenBalance(pool.underlyingAta, mint, pool.address, dec, op.liquidityBefore, ok ? op.event.postLiquidity : op.liquidityBefore);
  b.tokenBalance(userAta, mint, user, dec, userHas, ok ? userHas - d * op.amount : userHas);
  b.tokenBalance(userLpAta, pool.lpMint, user, dec, lpHas, ok ? lpHas + d * op.lp : lpHas);
}

/** pool_initialize: creates the pool and its LP mint, then PoolCreated. */
function planPoolInit(k: KindArgs): void {
  const { b, logs, real, ctx, payer, ok, events } = k;
  const tx = real.skel;
  const eco = ctx.economy;
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
  } else k.err = failAt(ix, 6000);
}

/** Instructions without events: player_initialize, player_close, player_claim, distribute_fees. */
function planOther(k: KindArgs): void {
  const { b, logs, real, ctx, payer, ok } = k;
  const tx = real.skel;
  const eco = ctx.economy;
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
  if (!ok) k.err = failAt(ix, 6000);
  else if (tx.kind === 'playerInit') {
    for (const [acct, lamports] of rents) b.lamportDelta.set(acct, lamports);
    b.lamportDelta.set(user, -(rents[0]![1] + rents[1]![1]));
  }
}

/** The planner of each transaction kind (instructions, CPIs, logs and events per the Gamba IDL's account lists). */
export const KIND_PLANNERS: Record<TxKind, (k: KindArgs) => void> = {
  play: planPlay,
  settle: planSettle,
  poolOp: planPoolOp,
  poolInit: planPoolInit,
  playerInit: planOther,
  playerClaim: planOther,
  playerClose: planOther,
  distributeFees: planOther,
};
