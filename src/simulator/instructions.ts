import {
  getAddressEncoder,
  getArrayEncoder,
  getBooleanEncoder,
  getStructEncoder,
  getU32Encoder,
  getU64Encoder,
  getU8Encoder,
  getUtf8Encoder,
  addEncoderSizePrefix,
  type Address,
  type Encoder,
} from '@solana/kit';
import { INSTRUCTION_DISCRIMINATORS } from '../protocol/index.js';

/**
 * Instruction data of the transactions the simulator writes: Gamba's Anchor instructions
 * (8-byte discriminator + Borsh args, args from the gamba-labs IDL, gamba-v2.md §4) and the
 * few native/SPL instructions around them (ComputeBudget, SPL Token, System), all encoded with
 * @solana/kit codecs.
 */

/** Discriminators of the IDL instructions that src/protocol does not list (gamba-labs IDL). */
export const MORE_IX_DISCRIMINATORS = {
  playerInitialize: Uint8Array.from([213, 160, 145, 88, 197, 68, 63, 150]),
  playerClose: Uint8Array.from([26, 155, 61, 179, 53, 157, 80, 30]),
  playerClaim: Uint8Array.from([188, 220, 237, 31, 181, 18, 85, 45]),
  distributeFees: Uint8Array.from([120, 56, 27, 7, 53, 176, 113, 186]),
} as const;

const u8 = getU8Encoder();
const u32 = getU32Encoder();
const u64 = getU64Encoder();
const str = addEncoderSizePrefix(getUtf8Encoder(), u32);
const pubkey = getAddressEncoder();

function withDisc<T>(disc: Uint8Array, enc: Encoder<T>, args: T): Uint8Array {
  const body = enc.encode(args);
  const out = new Uint8Array(8 + body.length);
  out.set(disc, 0);
  out.set(body, 8);
  return out;
}

const playGameArgs = getStructEncoder([
  ['wager', u64],
  ['bet', getArrayEncoder(u32, { size: u32 })],
  ['clientSeed', str],
  ['creatorFeeBps', u32],
  ['jackpotFeeBps', u32],
  ['metadata', str],
]);
const rngSettleArgs = getStructEncoder([
  ['rngSeed', str],
  ['nextRngSeedHashed', str],
]);
const amountArgs = getStructEncoder([['amount', u64]]);
const poolInitArgs = getStructEncoder([
  ['poolAuthority', pubkey],
  ['lookupAddress', pubkey],
]);
const distributeArgs = getStructEncoder([['nativeSol', getBooleanEncoder()]]);

export const gambaIx = {
  playGame: (a: { wager: bigint; bet: readonly number[]; clientSeed: string; creatorFeeBps: number; jackpotFeeBps: number; metadata: string }) =>
    withDisc(INSTRUCTION_DISCRIMINATORS.playGame, playGameArgs, { ...a, bet: [...a.bet] }),
  rngSettle: (a: { rngSeed: string; nextRngSeedHashed: string }) => withDisc(INSTRUCTION_DISCRIMINATORS.rngSettle, rngSettleArgs, a),
  poolDeposit: (amount: bigint) => withDisc(INSTRUCTION_DISCRIMINATORS.poolDeposit, amountArgs, { amount }),
  poolWithdraw: (amount: bigint) => withDisc(INSTRUCTION_DISCRIMINATORS.poolWithdraw, amountArgs, { amount }),
  poolInitialize: (poolAuthority: string, lookupAddress: string) =>
    withDisc(INSTRUCTION_DISCRIMINATORS.poolInitialize, poolInitArgs, { poolAuthority: poolAuthority as Address, lookupAddress: lookupAddress as Address }),
  playerInitialize: () => Uint8Array.from(MORE_IX_DISCRIMINATORS.playerInitialize),
  playerClose: () => Uint8Array.from(MORE_IX_DISCRIMINATORS.playerClose),
  playerClaim: () => Uint8Array.from(MORE_IX_DISCRIMINATORS.playerClaim),
  distributeFees: (nativeSol: boolean) => withDisc(MORE_IX_DISCRIMINATORS.distributeFees, distributeArgs, { nativeSol }),
};

/** ComputeBudget program: SetComputeUnitLimit = tag 2 + u32; SetComputeUnitPrice = tag 3 + u64 µlamports. */
export const computeBudgetIx = {
  setLimit: (units: number) => concat(u8.encode(2), u32.encode(units)),
  setPrice: (microLamports: number) => concat(u8.encode(3), u64.encode(BigInt(microLamports))),
};

/** SPL Token instruction tags (token program instruction.rs): Transfer 3, MintTo 7, Burn 8, InitializeMint2 20. */
export const tokenIx = {
  transfer: (amount: bigint) => concat(u8.encode(3), u64.encode(amount)),
  mintTo: (amount: bigint) => concat(u8.encode(7), u64.encode(amount)),
  burn: (amount: bigint) => concat(u8.encode(8), u64.encode(amount)),
  initializeMint2: (decimals: number, mintAuthority: string) =>
    concat(u8.encode(20), u8.encode(decimals), pubkey.encode(mintAuthority as Address), u8.encode(0)),
};

/** System program CreateAccount: u32 tag 0, lamports u64, space u64, owner pubkey. */
export const systemIx = {
  createAccount: (lamports: bigint, space: bigint, owner: string) =>
    concat(u32.encode(0), u64.encode(lamports), u64.encode(space), pubkey.encode(owner as Address)),
};

function concat(...parts: ArrayLike<number>[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
