import {
  addEncoderSizePrefix,
  getArrayEncoder,
  getBooleanEncoder,
  getConstantEncoder,
  getHiddenPrefixEncoder,
  getStructEncoder,
  getU32Encoder,
  getU64Encoder,
  getU8Encoder,
  getUtf8Encoder,
  type Encoder,
} from '@solana/kit';
import { INSTRUCTION_DISCRIMINATORS, pubkeyCodec } from '../../protocol/index.js';

/**
 * Instruction data of the transactions the simulator writes: Gamba's Anchor instructions
 * (8-byte discriminator + Borsh args, args from the gamba-labs IDL, docs/protocol.md §4) and the
 * few native/SPL instructions around them (ComputeBudget, SPL Token, System), all encoded with
 * @solana/kit codecs built once here: the discriminator or tag is a hidden constant prefix, so
 * each `encode` writes the whole instruction data in one buffer. Pubkeys use src/protocol's
 * pubkeyCodec (32 raw bytes, base58 through `bs58`, memoised). Out-of-range values throw.
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
const pubkey = pubkeyCodec;

/** `encoder` behind constant leading bytes (an Anchor discriminator, a native instruction tag). */
function tagged<T>(tag: Uint8Array | number[], encoder: Encoder<T>): Encoder<T> {
  return getHiddenPrefixEncoder(encoder, [getConstantEncoder(Uint8Array.from(tag))]) as Encoder<T>;
}

/** playGame's arguments (gamba-labs IDL order below); amounts in the token's smallest units. */
interface PlayGameArgs {
  wager: bigint;
  bet: readonly number[];
  clientSeed: string;
  creatorFeeBps: number;
  jackpotFeeBps: number;
  metadata: string;
}

const playGame = tagged<PlayGameArgs>(
  INSTRUCTION_DISCRIMINATORS.playGame,
  getStructEncoder([
    ['wager', u64],
    ['bet', getArrayEncoder(u32, { size: u32 })],
    ['clientSeed', str],
    ['creatorFeeBps', u32],
    ['jackpotFeeBps', u32],
    ['metadata', str],
  ]) as unknown as Encoder<PlayGameArgs>,
);
const rngSettle = tagged(
  INSTRUCTION_DISCRIMINATORS.rngSettle,
  getStructEncoder([
    ['rngSeed', str],
    ['nextRngSeedHashed', str],
  ]),
);
const poolDeposit = tagged(INSTRUCTION_DISCRIMINATORS.poolDeposit, u64);
const poolWithdraw = tagged(INSTRUCTION_DISCRIMINATORS.poolWithdraw, u64);
const poolInitialize = tagged(
  INSTRUCTION_DISCRIMINATORS.poolInitialize,
  getStructEncoder([
    ['poolAuthority', pubkey],
    ['lookupAddress', pubkey],
  ]),
);
const distributeFees = tagged(MORE_IX_DISCRIMINATORS.distributeFees, getBooleanEncoder());

const setComputeUnitLimit = tagged([2], u32);
const setComputeUnitPrice = tagged([3], u64);
const tokenTransfer = tagged([3], u64);
const tokenMintTo = tagged([7], u64);
const tokenBurn = tagged([8], u64);
/** InitializeMint2: decimals u8, mint authority pubkey, freeze authority COption = None (0). */
const initializeMint2 = tagged(
  [20],
  getStructEncoder([
    ['decimals', u8],
    ['mintAuthority', pubkey],
    ['freezeAuthority', u8],
  ]),
);
/** CreateAccount: u32 tag 0, lamports u64, space u64, owner pubkey. */
const createAccount = getStructEncoder([
  ['tag', u32],
  ['lamports', u64],
  ['space', u64],
  ['owner', pubkey],
]);

const bytes = (b: ArrayLike<number>) => b as Uint8Array;

/** Borsh data of the Gamba instructions the simulator emits (8-byte Anchor discriminator + args; docs/protocol.md). */
export const gambaIx = {
  playGame: (a: PlayGameArgs) => bytes(playGame.encode(a)),
  rngSettle: (a: { rngSeed: string; nextRngSeedHashed: string }) => bytes(rngSettle.encode(a)),
  poolDeposit: (amount: bigint) => bytes(poolDeposit.encode(amount)),
  poolWithdraw: (amount: bigint) => bytes(poolWithdraw.encode(amount)),
  poolInitialize: (poolAuthority: string, lookupAddress: string) => bytes(poolInitialize.encode({ poolAuthority, lookupAddress })),
  playerInitialize: () => Uint8Array.from(MORE_IX_DISCRIMINATORS.playerInitialize),
  playerClose: () => Uint8Array.from(MORE_IX_DISCRIMINATORS.playerClose),
  playerClaim: () => Uint8Array.from(MORE_IX_DISCRIMINATORS.playerClaim),
  distributeFees: (nativeSol: boolean) => bytes(distributeFees.encode(nativeSol)),
};

/** ComputeBudget program: SetComputeUnitLimit = tag 2 + u32; SetComputeUnitPrice = tag 3 + u64 µlamports. */
export const computeBudgetIx = {
  setLimit: (units: number) => bytes(setComputeUnitLimit.encode(units)),
  setPrice: (microLamports: number) => bytes(setComputeUnitPrice.encode(microLamports)),
};

/** SPL Token instruction tags (token program instruction.rs): Transfer 3, MintTo 7, Burn 8, InitializeMint2 20. */
export const tokenIx = {
  transfer: (amount: bigint) => bytes(tokenTransfer.encode(amount)),
  mintTo: (amount: bigint) => bytes(tokenMintTo.encode(amount)),
  burn: (amount: bigint) => bytes(tokenBurn.encode(amount)),
  initializeMint2: (decimals: number, mintAuthority: string) => bytes(initializeMint2.encode({ decimals, mintAuthority, freezeAuthority: 0 })),
};

/** System program CreateAccount: u32 tag 0, lamports u64, space u64, owner pubkey. */
export const systemIx = {
  createAccount: (lamports: bigint, space: bigint, owner: string) => bytes(createAccount.encode({ tag: 0, lamports, space, owner })),
};
