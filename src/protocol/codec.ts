import {
  addCodecSizePrefix,
  getAddressCodec,
  getArrayCodec,
  getStructCodec,
  getU32Codec,
  getU64Codec,
  getU8Codec,
  getUtf8Codec,
  transformCodec,
  type Codec,
} from '@solana/kit';
import { EVENT_DISCRIMINATORS } from './program.js';
import type { GambaEvent, GameSettled, PoolAction, PoolChange, PoolCreated } from './events.js';

// Borsh layouts written from the IDL (gamba-v2.md §3–§4), built from @solana/kit codecs:
// u64 little-endian, pubkey 32 raw bytes, string = u32 length + UTF-8, vec<u32> = u32 count + items.
const u64 = getU64Codec();
const u32 = getU32Codec();
const pubkey = transformCodec(getAddressCodec(), (s: string) => s as never, (a) => a as string);
const str = addCodecSizePrefix(getUtf8Codec(), u32);
const bigU64 = transformCodec(u64, (v: bigint) => v, (v) => BigInt(v));

const poolAction = transformCodec(
  getU8Codec(),
  (a: PoolAction) => (a === 'deposit' ? 0 : 1),
  (n: number): PoolAction => {
    if (n === 0) return 'deposit';
    if (n === 1) return 'withdraw';
    throw new RangeError(`unknown PoolAction variant ${n}`);
  },
);

export const gameSettledCodec: Codec<GameSettled> = getStructCodec([
  ['user', pubkey],
  ['pool', pubkey],
  ['tokenMint', pubkey],
  ['creator', pubkey],
  ['creatorFee', bigU64],
  ['gambaFee', bigU64],
  ['poolFee', bigU64],
  ['jackpotFee', bigU64],
  ['underlyingUsed', bigU64],
  ['bonusUsed', bigU64],
  ['wager', bigU64],
  ['payout', bigU64],
  ['multiplierBps', u32],
  ['payoutFromBonusPool', bigU64],
  ['payoutFromNormalPool', bigU64],
  ['jackpotProbabilityUbps', bigU64],
  ['jackpotResult', bigU64],
  ['nonce', bigU64],
  ['clientSeed', str],
  ['resultIndex', bigU64],
  ['bet', getArrayCodec(u32, { size: u32 })],
  ['jackpotPayoutToUser', bigU64],
  ['poolLiquidity', bigU64],
  ['rngSeed', str],
  ['nextRngSeedHashed', str],
  ['metadata', str],
]) as unknown as Codec<GameSettled>;

export const poolChangeCodec: Codec<PoolChange> = getStructCodec([
  ['user', pubkey],
  ['pool', pubkey],
  ['tokenMint', pubkey],
  ['action', poolAction],
  ['amount', bigU64],
  ['postLiquidity', bigU64],
  ['lpSupply', bigU64],
]) as unknown as Codec<PoolChange>;

export const poolCreatedCodec: Codec<PoolCreated> = getStructCodec([
  ['user', pubkey],
  ['authority', pubkey],
  ['pool', pubkey],
  ['tokenMint', pubkey],
]) as unknown as Codec<PoolCreated>;

function startsWith(bytes: Uint8Array, prefix: Uint8Array, offset = 0): boolean {
  if (bytes.length < offset + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[offset + i] !== prefix[i]) return false;
  return true;
}

export type EventDecodeOutcome =
  | { ok: true; event: GambaEvent }
  | { ok: false; reason: 'unknown_discriminator' | 'malformed' };

/**
 * Decodes Anchor event bytes (8-byte discriminator + Borsh body). Never throws: unknown
 * discriminators and malformed bodies (short, trailing bytes, bad enum) come back as values.
 */
export function decodeEventBytes(bytes: Uint8Array): EventDecodeOutcome {
  const table: [GambaEvent['name'], Uint8Array, Codec<unknown>][] = [
    ['GameSettled', EVENT_DISCRIMINATORS.GameSettled, gameSettledCodec as Codec<unknown>],
    ['PoolChange', EVENT_DISCRIMINATORS.PoolChange, poolChangeCodec as Codec<unknown>],
    ['PoolCreated', EVENT_DISCRIMINATORS.PoolCreated, poolCreatedCodec as Codec<unknown>],
  ];
  for (const [name, disc, codec] of table) {
    if (!startsWith(bytes, disc)) continue;
    try {
      const [data, end] = codec.read(bytes, 8);
      if (end !== bytes.length) return { ok: false, reason: 'malformed' };
      return { ok: true, event: { name, data } as GambaEvent };
    } catch {
      return { ok: false, reason: 'malformed' };
    }
  }
  return { ok: false, reason: 'unknown_discriminator' };
}

/** Encodes an event as Anchor's `emit!` does: discriminator + Borsh body. */
export function encodeEventBytes(event: GambaEvent): Uint8Array {
  const body =
    event.name === 'GameSettled'
      ? gameSettledCodec.encode(event.data)
      : event.name === 'PoolChange'
        ? poolChangeCodec.encode(event.data)
        : poolCreatedCodec.encode(event.data);
  const out = new Uint8Array(8 + body.length);
  out.set(EVENT_DISCRIMINATORS[event.name], 0);
  out.set(body, 8);
  return out;
}

export { startsWith as bytesStartWith };
