import { createHash } from 'node:crypto';
import { address, getProgramDerivedAddress } from '@solana/kit';
import bs58 from 'bs58';
import { GAMBA_PROGRAM_ID } from '../../protocol/index.js';

/** Well-known program and sysvar ids (Solana docs). */
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
/** SPL Token program id. */
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** Associated Token Account program id. */
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
/** Compute Budget program id (SetComputeUnitLimit / SetComputeUnitPrice). */
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** Rent sysvar id. */
export const RENT_SYSVAR = 'SysvarRent111111111111111111111111111111111';
/** Metaplex Token Metadata program id (pool_initialize creates the LP token's metadata). */
export const TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';

// base58 through `bs58` (base-x's byte-array algorithm): 2.3× faster than kit's BigInt-based
// codec, which took a quarter of the simulator's getTransaction CPU (docs/benchmarks.md).
/** Encodes bytes as base58 (Bitcoin alphabet, as Solana writes keys, signatures and data). */
export function toBase58(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/** Decodes base58; returns null on any invalid character. */
export function fromBase58(s: string): Uint8Array | null {
  return bs58.decodeUnsafe(s) ?? null;
}

/**
 * A deterministic 32-byte address for an off-chain identity (wallet, token account…):
 * sha256 of the seed and labels. Real keys for per-player accounts would need one PDA/ATA
 * derivation (an ed25519 curve check) per player; hashes look the same to any client.
 */
export function hashedAddress(seed: number, ...labels: (string | number)[]): string {
  const h = createHash('sha256').update(`gamba-sim\u0001${seed}\u0001${labels.join('\u0001')}`).digest();
  return toBase58(new Uint8Array(h.buffer, h.byteOffset, 32));
}

/** Anchor seed constants as the Gamba IDL spells them (the quotes are part of the bytes). */
export const SEEDS = {
  gambaState: '"GAMBA_STATE"',
  pool: '"POOL"',
  poolAta: '"POOL_ATA"',
  poolBonusAta: '"POOL_BONUS_UNDERLYING_TA"',
  poolJackpot: '"POOL_JACKPOT"',
  lpMint: '"POOL_LP_MINT"',
  bonusMint: '"POOL_BONUS_MINT"',
  eventAuthority: '__event_authority',
} as const;

/** A real program-derived address of the Gamba program (kit's derivation). */
export async function gambaPda(...seeds: (string | Uint8Array)[]): Promise<string> {
  const [pda] = await getProgramDerivedAddress({ programAddress: address(GAMBA_PROGRAM_ID), seeds });
  return pda as string;
}

/** The 32 bytes of a base58 address; throws RangeError when `a` is not a 32-byte base58 key. */
export function addressBytes(a: string): Uint8Array {
  const b = fromBase58(a);
  if (!b || b.length !== 32) throw new RangeError(`not a 32-byte address: ${a}`);
  return b;
}
