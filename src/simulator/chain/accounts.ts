import { getAddressEncoder, getBase58Decoder, getBase64Decoder, getStructEncoder, getU32Encoder, getU64Encoder, getU8Encoder, getBooleanEncoder, type Address } from '@solana/kit';
import { hashedAddress, TOKEN_PROGRAM } from './addresses.js';
import type { Economy } from './economy.js';
import { TOKENS } from './tokens.js';

/**
 * The accounts the simulator can show: SPL Token mints of the simulated tokens and of the pools'
 * LP tokens. Mint layout (82 bytes, spl-token state.rs): COption<Pubkey> mint authority (u32 tag
 * + 32 bytes), supply u64, decimals u8, is_initialized bool, COption<Pubkey> freeze authority.
 */
export interface MintAccount {
  address: string;
  decimals: number;
  supply: bigint;
  mintAuthority: string | null;
  freezeAuthority: string | null;
}

/** Size of an SPL Token mint account in bytes (spl-token state.rs `Mint::LEN`). */
export const MINT_SIZE = 82;
/** Rent-exempt balance of an 82-byte account, in lamports (what getAccountInfo reports for a mint). */
export const MINT_LAMPORTS = 1_461_600;
/** rentEpoch of rent-exempt accounts: u64::MAX, printed by the node as a bare number. */
export const RENT_EPOCH_MAX = 18_446_744_073_709_551_615n;

const u32 = getU32Encoder();
const mintEncoder = getStructEncoder([
  ['mintAuthorityOption', u32],
  ['mintAuthority', getAddressEncoder()],
  ['supply', getU64Encoder()],
  ['decimals', getU8Encoder()],
  ['isInitialized', getBooleanEncoder()],
  ['freezeAuthorityOption', u32],
  ['freezeAuthority', getAddressEncoder()],
]);
const ZERO_KEY = '11111111111111111111111111111111' as Address;

/** The 82-byte account data of a mint in spl-token's layout (absent authorities as a zero tag and the zero key). */
export function mintBytes(m: MintAccount): Uint8Array {
  return new Uint8Array(
    mintEncoder.encode({
      mintAuthorityOption: m.mintAuthority ? 1 : 0,
      mintAuthority: (m.mintAuthority ?? ZERO_KEY) as Address,
      supply: m.supply,
      decimals: m.decimals,
      isInitialized: true,
      freezeAuthorityOption: m.freezeAuthority ? 1 : 0,
      freezeAuthority: (m.freezeAuthority ?? ZERO_KEY) as Address,
    }),
  );
}

/** Static token mints (stablecoins keep a mint and freeze authority, the others renounced theirs). */
export function tokenMints(seed: number): Map<string, MintAccount> {
  return new Map(
    TOKENS.map((t) => {
      const managed = t.symbol === 'USDC' || t.symbol === 'USDT';
      const auth = managed ? hashedAddress(seed, 'mint-authority', t.symbol) : null;
      return [t.mint, { address: t.mint, decimals: t.decimals, supply: t.supply, mintAuthority: auth, freezeAuthority: auth }];
    }),
  );
}

/** The pool whose LP token mint is `address`, or null when it is not an LP mint. */
export function lpMintOf(eco: Economy, address: string): { pool: number } | null {
  const pool = eco.pools.find((p) => p.lpMint === address);
  return pool ? { pool: pool.index } : null;
}

const b58 = getBase58Decoder();
const b64 = getBase64Decoder();

/** getAccountInfo `encoding` values the simulator answers (Solana RPC docs); `binary` is the legacy base58. */
export type AccountEncoding = 'jsonParsed' | 'base64' | 'base58' | 'binary';

/** The `value` of getAccountInfo for a mint in the requested encoding (agave account-decoder UiAccount). */
export function renderMint(m: MintAccount, encoding: AccountEncoding, slice?: { offset: number; length: number }): Record<string, unknown> {
  let data: unknown;
  if (encoding === 'jsonParsed') {
    data = {
      parsed: {
        info: {
          decimals: m.decimals,
          freezeAuthority: m.freezeAuthority,
          isInitialized: true,
          mintAuthority: m.mintAuthority,
          supply: m.supply.toString(),
        },
        type: 'mint',
      },
      program: 'spl-token',
      space: MINT_SIZE,
    };
  } else {
    let bytes = mintBytes(m);
    if (slice) bytes = bytes.slice(slice.offset, slice.offset + slice.length);
    if (encoding === 'binary') data = b58.decode(bytes);
    else data = [encoding === 'base64' ? b64.decode(bytes) : b58.decode(bytes), encoding];
  }
  return { data, executable: false, lamports: MINT_LAMPORTS, owner: TOKEN_PROGRAM, rentEpoch: RENT_EPOCH_MAX, space: MINT_SIZE };
}
