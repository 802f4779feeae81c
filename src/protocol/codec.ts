import {
  addCodecSizePrefix,
  fixCodecSize,
  getArrayCodec,
  getBytesCodec,
  getEncodedSize,
  getStructCodec,
  getU32Codec,
  getU64Codec,
  getU8Codec,
  getUtf8Codec,
  transformCodec,
  type Codec,
  type ReadonlyUint8Array,
} from '@solana/kit';
import bs58 from 'bs58';
import { EVENT_DISCRIMINATORS } from './program.js';
import type { GambaEvent, GameSettled, PoolAction, PoolChange, PoolCreated } from './events.js';

// Borsh layouts written from the IDL (docs/protocol.md §3–§4), built once from @solana/kit codecs:
// u64 little-endian, pubkey 32 raw bytes, string = u32 length + UTF-8, vec<u32> = u32 count + items.
const u64 = getU64Codec();
const u32 = getU32Codec();
const str = addCodecSizePrefix(getUtf8Codec(), u32);
const bigU64 = transformCodec(u64, (v: bigint) => v, (v) => BigInt(v));

/**
 * Bounded memos of the two directions of the base58 ⇄ 32-byte mapping: events repeat the same
 * few addresses (program, pools, mints, creators, returning players), so most conversions are
 * cache hits. Cleared when full (entries are cheap to recompute).
 */
const ADDRESS_MEMO = 50_000;
const addressToBytes = new Map<string, Uint8Array>();
const bytesToAddress = new Map<string, string>();

function pubkeyBytes(address: string): Uint8Array {
  let bytes = addressToBytes.get(address);
  if (bytes === undefined) {
    const b = bs58.decodeUnsafe(address);
    if (b === undefined || b.length !== 32) throw new RangeError(`not a 32-byte base58 address: ${address}`);
    if (addressToBytes.size >= ADDRESS_MEMO) addressToBytes.clear();
    addressToBytes.set(address, b);
    bytes = b;
  }
  return bytes;
}

function pubkeyText(bytes: ReadonlyUint8Array): string {
  // The 32 bytes as a latin1 string: a cheap exact Map key.
  const key = Buffer.prototype.latin1Slice.call(bytes, 0, 32) as string;
  let text = bytesToAddress.get(key);
  if (text === undefined) {
    text = bs58.encode(bytes as Uint8Array);
    if (bytesToAddress.size >= ADDRESS_MEMO) bytesToAddress.clear();
    bytesToAddress.set(key, text);
  }
  return text;
}

/**
 * A Solana public key: 32 raw bytes on the wire (kit's fixed-size bytes codec), a base58
 * address string in memory (`bs58`). Encoding refuses anything that is not the base58 text of
 * exactly 32 bytes (RangeError), as kit's address codec does. Chosen over kit's
 * `getAddressCodec`, whose BigInt base58 was the largest single cost of encoding and decoding
 * events (docs/benchmarks.md "Ingest"); same bytes and same strings.
 */
export const pubkeyCodec: Codec<string> = transformCodec(fixCodecSize(getBytesCodec(), 32), pubkeyBytes, pubkeyText);
const pubkey = pubkeyCodec;

const poolAction = transformCodec(
  getU8Codec(),
  (a: PoolAction) => (a === 'deposit' ? 0 : 1),
  (n: number): PoolAction => {
    if (n === 0) return 'deposit';
    if (n === 1) return 'withdraw';
    throw new RangeError(`unknown PoolAction variant ${n}`);
  },
);

/** Borsh codec of the GameSettled event body (after its 8-byte discriminator; field order from the IDL, docs/protocol.md §4). */
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

/** Borsh codec of the PoolChange event body (docs/protocol.md §4). */
export const poolChangeCodec: Codec<PoolChange> = getStructCodec([
  ['user', pubkey],
  ['pool', pubkey],
  ['tokenMint', pubkey],
  ['action', poolAction],
  ['amount', bigU64],
  ['postLiquidity', bigU64],
  ['lpSupply', bigU64],
]) as unknown as Codec<PoolChange>;

/** Borsh codec of the PoolCreated event body (docs/protocol.md §4). */
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

/** One event's bytes decoded, or why not: an unknown discriminator, or bytes the codec rejects. */
export type EventDecodeOutcome =
  | { ok: true; event: GambaEvent }
  | { ok: false; reason: 'unknown_discriminator' | 'malformed' };

const DECODERS: [GambaEvent['name'], Uint8Array, Codec<unknown>][] = [
  ['GameSettled', EVENT_DISCRIMINATORS.GameSettled, gameSettledCodec as Codec<unknown>],
  ['PoolChange', EVENT_DISCRIMINATORS.PoolChange, poolChangeCodec as Codec<unknown>],
  ['PoolCreated', EVENT_DISCRIMINATORS.PoolCreated, poolCreatedCodec as Codec<unknown>],
];

/**
 * Decodes Anchor event bytes (8-byte discriminator + Borsh body) with the kit codecs above.
 * Never throws: unknown discriminators and malformed bodies (short, trailing bytes, bad enum)
 * come back as values.
 */
export function decodeEventBytes(bytes: Uint8Array): EventDecodeOutcome {
  for (const [name, disc, codec] of DECODERS) {
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

const ENCODERS = { GameSettled: gameSettledCodec, PoolChange: poolChangeCodec, PoolCreated: poolCreatedCodec } as unknown as Record<
  GambaEvent['name'],
  Codec<unknown>
>;

/**
 * Encodes an event as Anchor's `emit!` does: discriminator + Borsh body, the body written by the
 * kit codecs above straight into the output (`prefix`, e.g. Anchor's EVENT_IX_TAG for
 * `emit_cpi!`, goes in front when given). Throws on values the layout cannot hold (u64 out of
 * range, address that is not 32 bytes of base58).
 */
export function encodeEventBytes(event: GambaEvent, prefix?: Uint8Array): Uint8Array {
  const codec = ENCODERS[event.name];
  const head = (prefix === undefined ? 0 : prefix.length) + 8;
  const out = new Uint8Array(head + getEncodedSize(event.data, codec));
  if (prefix !== undefined) out.set(prefix, 0);
  out.set(EVENT_DISCRIMINATORS[event.name], head - 8);
  codec.write(event.data, out, head);
  return out;
}

export { startsWith as bytesStartWith };
