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
import { BorshError, BorshReader, BorshWriter } from './borsh.js';
import { EVENT_DISCRIMINATORS } from './program.js';
import type { GambaEvent, GameSettled, PoolAction, PoolChange, PoolCreated } from './events.js';

// Borsh layouts written from the IDL (gamba-v2.md §3–§4), built from @solana/kit codecs (the
// readable reference; encodeEventBytes/decodeEventBytes below use borsh.ts, byte-identical):
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

function readGameSettled(r: BorshReader): GameSettled {
  return {
    user: r.pubkey(),
    pool: r.pubkey(),
    tokenMint: r.pubkey(),
    creator: r.pubkey(),
    creatorFee: r.u64(),
    gambaFee: r.u64(),
    poolFee: r.u64(),
    jackpotFee: r.u64(),
    underlyingUsed: r.u64(),
    bonusUsed: r.u64(),
    wager: r.u64(),
    payout: r.u64(),
    multiplierBps: r.u32(),
    payoutFromBonusPool: r.u64(),
    payoutFromNormalPool: r.u64(),
    jackpotProbabilityUbps: r.u64(),
    jackpotResult: r.u64(),
    nonce: r.u64(),
    clientSeed: r.string(),
    resultIndex: r.u64(),
    bet: r.vecU32(),
    jackpotPayoutToUser: r.u64(),
    poolLiquidity: r.u64(),
    rngSeed: r.string(),
    nextRngSeedHashed: r.string(),
    metadata: r.string(),
  };
}

function writeGameSettled(w: BorshWriter, e: GameSettled): void {
  w.pubkey(e.user).pubkey(e.pool).pubkey(e.tokenMint).pubkey(e.creator);
  w.u64(e.creatorFee).u64(e.gambaFee).u64(e.poolFee).u64(e.jackpotFee).u64(e.underlyingUsed).u64(e.bonusUsed).u64(e.wager).u64(e.payout);
  w.u32(e.multiplierBps);
  w.u64(e.payoutFromBonusPool).u64(e.payoutFromNormalPool).u64(e.jackpotProbabilityUbps).u64(e.jackpotResult).u64(e.nonce);
  w.string(e.clientSeed).u64(e.resultIndex).vecU32(e.bet).u64(e.jackpotPayoutToUser).u64(e.poolLiquidity);
  w.string(e.rngSeed).string(e.nextRngSeedHashed).string(e.metadata);
}

function readPoolAction(r: BorshReader): PoolAction {
  const n = r.u8();
  if (n === 0) return 'deposit';
  if (n === 1) return 'withdraw';
  throw new BorshError(`unknown PoolAction variant ${n}`);
}

function readPoolChange(r: BorshReader): PoolChange {
  return {
    user: r.pubkey(),
    pool: r.pubkey(),
    tokenMint: r.pubkey(),
    action: readPoolAction(r),
    amount: r.u64(),
    postLiquidity: r.u64(),
    lpSupply: r.u64(),
  };
}

function writePoolChange(w: BorshWriter, e: PoolChange): void {
  w.pubkey(e.user).pubkey(e.pool).pubkey(e.tokenMint);
  w.u8(e.action === 'deposit' ? 0 : 1);
  w.u64(e.amount).u64(e.postLiquidity).u64(e.lpSupply);
}

function readPoolCreated(r: BorshReader): PoolCreated {
  return { user: r.pubkey(), authority: r.pubkey(), pool: r.pubkey(), tokenMint: r.pubkey() };
}

function writePoolCreated(w: BorshWriter, e: PoolCreated): void {
  w.pubkey(e.user).pubkey(e.authority).pubkey(e.pool).pubkey(e.tokenMint);
}

const READERS: [GambaEvent['name'], Uint8Array, (r: BorshReader) => unknown][] = [
  ['GameSettled', EVENT_DISCRIMINATORS.GameSettled, readGameSettled],
  ['PoolChange', EVENT_DISCRIMINATORS.PoolChange, readPoolChange],
  ['PoolCreated', EVENT_DISCRIMINATORS.PoolCreated, readPoolCreated],
];

/**
 * Decodes Anchor event bytes (8-byte discriminator + Borsh body). Never throws: unknown
 * discriminators and malformed bodies (short, trailing bytes, bad enum) come back as values.
 * Same results as the kit codecs above (tests compare them), read with borsh.ts for speed.
 */
export function decodeEventBytes(bytes: Uint8Array): EventDecodeOutcome {
  for (const [name, disc, read] of READERS) {
    if (!startsWith(bytes, disc)) continue;
    try {
      const r = new BorshReader(bytes, 8);
      const data = read(r);
      if (r.remaining !== 0) return { ok: false, reason: 'malformed' };
      return { ok: true, event: { name, data } as GambaEvent };
    } catch {
      return { ok: false, reason: 'malformed' };
    }
  }
  return { ok: false, reason: 'unknown_discriminator' };
}

/**
 * Encodes an event as Anchor's `emit!` does: discriminator + Borsh body (`prefix`, e.g.
 * Anchor's EVENT_IX_TAG for `emit_cpi!`, goes in front when given).
 */
const eventWriter = new BorshWriter(1024);

export function encodeEventBytes(event: GambaEvent, prefix?: Uint8Array): Uint8Array {
  const w = eventWriter.reset();
  if (prefix) w.raw(prefix);
  w.raw(EVENT_DISCRIMINATORS[event.name]);
  if (event.name === 'GameSettled') writeGameSettled(w, event.data);
  else if (event.name === 'PoolChange') writePoolChange(w, event.data);
  else writePoolCreated(w, event.data);
  return w.bytes();
}

export { startsWith as bytesStartWith };
