import { BorshWriter, INSTRUCTION_DISCRIMINATORS } from '../protocol/index.js';

/**
 * Instruction data of the transactions the simulator writes: Gamba's Anchor instructions
 * (8-byte discriminator + Borsh args, args from the gamba-labs IDL, gamba-v2.md §4) and the
 * few native/SPL instructions around them (ComputeBudget, SPL Token, System), written with
 * src/protocol's BorshWriter (little-endian integers, u32-prefixed strings and vectors, raw
 * 32-byte pubkeys — the layouts kit's codecs produced, see test/simulator/instructions.test.ts).
 */

/** Discriminators of the IDL instructions that src/protocol does not list (gamba-labs IDL). */
export const MORE_IX_DISCRIMINATORS = {
  playerInitialize: Uint8Array.from([213, 160, 145, 88, 197, 68, 63, 150]),
  playerClose: Uint8Array.from([26, 155, 61, 179, 53, 157, 80, 30]),
  playerClaim: Uint8Array.from([188, 220, 237, 31, 181, 18, 85, 45]),
  distributeFees: Uint8Array.from([120, 56, 27, 7, 53, 176, 113, 186]),
} as const;

/** One writer for every instruction (reset per use; bytes() copies out). */
const scratch = new BorshWriter(512);
const disc = (d: Uint8Array) => scratch.reset().raw(d);

export const gambaIx = {
  playGame: (a: { wager: bigint; bet: readonly number[]; clientSeed: string; creatorFeeBps: number; jackpotFeeBps: number; metadata: string }) =>
    disc(INSTRUCTION_DISCRIMINATORS.playGame).u64(a.wager).vecU32(a.bet).string(a.clientSeed).u32(a.creatorFeeBps).u32(a.jackpotFeeBps).string(a.metadata).bytes(),
  rngSettle: (a: { rngSeed: string; nextRngSeedHashed: string }) => disc(INSTRUCTION_DISCRIMINATORS.rngSettle).string(a.rngSeed).string(a.nextRngSeedHashed).bytes(),
  poolDeposit: (amount: bigint) => disc(INSTRUCTION_DISCRIMINATORS.poolDeposit).u64(amount).bytes(),
  poolWithdraw: (amount: bigint) => disc(INSTRUCTION_DISCRIMINATORS.poolWithdraw).u64(amount).bytes(),
  poolInitialize: (poolAuthority: string, lookupAddress: string) => disc(INSTRUCTION_DISCRIMINATORS.poolInitialize).pubkey(poolAuthority).pubkey(lookupAddress).bytes(),
  playerInitialize: () => Uint8Array.from(MORE_IX_DISCRIMINATORS.playerInitialize),
  playerClose: () => Uint8Array.from(MORE_IX_DISCRIMINATORS.playerClose),
  playerClaim: () => Uint8Array.from(MORE_IX_DISCRIMINATORS.playerClaim),
  distributeFees: (nativeSol: boolean) => disc(MORE_IX_DISCRIMINATORS.distributeFees).bool(nativeSol).bytes(),
};

/** ComputeBudget program: SetComputeUnitLimit = tag 2 + u32; SetComputeUnitPrice = tag 3 + u64 µlamports. */
export const computeBudgetIx = {
  setLimit: (units: number) => scratch.reset().u8(2).u32(units).bytes(),
  setPrice: (microLamports: number) => scratch.reset().u8(3).u64(microLamports).bytes(),
};

/** SPL Token instruction tags (token program instruction.rs): Transfer 3, MintTo 7, Burn 8, InitializeMint2 20. */
export const tokenIx = {
  transfer: (amount: bigint) => scratch.reset().u8(3).u64(amount).bytes(),
  mintTo: (amount: bigint) => scratch.reset().u8(7).u64(amount).bytes(),
  burn: (amount: bigint) => scratch.reset().u8(8).u64(amount).bytes(),
  initializeMint2: (decimals: number, mintAuthority: string) => scratch.reset().u8(20).u8(decimals).pubkey(mintAuthority).u8(0).bytes(),
};

/** System program CreateAccount: u32 tag 0, lamports u64, space u64, owner pubkey. */
export const systemIx = {
  createAccount: (lamports: bigint, space: bigint, owner: string) => scratch.reset().u32(0).u64(lamports).u64(space).pubkey(owner).bytes(),
};
