import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { getAddressCodec, type Address } from '@solana/kit';
import {
  decodeEventBytes,
  encodeEventBytes,
  EVENT_DISCRIMINATORS,
  EVENT_IX_TAG_LE,
  gameSettledCodec,
  poolChangeCodec,
  poolCreatedCodec,
  pubkeyCodec,
  type GambaEvent,
  type GameSettled,
} from '../../src/protocol/index.js';

/** Deterministic pseudo-random source (mulberry32) so failures reproduce. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = Array.from({ length: 8 }, (_, i) => bs58.encode(Uint8Array.from({ length: 32 }, (_, j) => (i * 37 + j * 11) & 255)));

function game(r: () => number, n: number): GameSettled {
  const u64 = () => (r() < 0.1 ? 18_446_744_073_709_551_615n : r() < 0.2 ? 0n : BigInt(Math.floor(r() * 2 ** 53)) * BigInt(1 + Math.floor(r() * 1000)));
  const str = (len: number) => Array.from({ length: len }, () => String.fromCharCode(32 + Math.floor(r() * 95))).join('');
  return {
    user: KEYS[n % 8]!, pool: KEYS[(n + 1) % 8]!, tokenMint: KEYS[(n + 2) % 8]!, creator: KEYS[(n + 3) % 8]!,
    creatorFee: u64(), gambaFee: u64(), poolFee: u64(), jackpotFee: u64(), underlyingUsed: u64(), bonusUsed: u64(), wager: u64(), payout: u64(),
    multiplierBps: Math.floor(r() * 2 ** 32), payoutFromBonusPool: u64(), payoutFromNormalPool: u64(), jackpotProbabilityUbps: u64(), jackpotResult: u64(),
    nonce: u64(), clientSeed: n % 5 === 0 ? `é€${str(3)}` : str(n % 40), resultIndex: u64(), bet: Array.from({ length: n % 7 }, () => Math.floor(r() * 2 ** 32)),
    jackpotPayoutToUser: u64(), poolLiquidity: u64(), rngSeed: str(64), nextRngSeedHashed: str(64), metadata: str(n % 90),
  };
}

function events(count: number): GambaEvent[] {
  const r = rng(3);
  const out: GambaEvent[] = [];
  for (let n = 0; n < count; n++) {
    if (n % 3 === 0) out.push({ name: 'GameSettled', data: game(r, n) });
    else if (n % 3 === 1) out.push({ name: 'PoolChange', data: { user: KEYS[n % 8]!, pool: KEYS[(n + 3) % 8]!, tokenMint: KEYS[(n + 5) % 8]!, action: n % 2 ? 'deposit' : 'withdraw', amount: BigInt(n) * 1_000_000_007n, postLiquidity: 18_446_744_073_709_551_615n, lpSupply: 0n } });
    else out.push({ name: 'PoolCreated', data: { user: KEYS[n % 8]!, authority: KEYS[(n + 1) % 8]!, pool: KEYS[(n + 2) % 8]!, tokenMint: KEYS[(n + 4) % 8]! } });
  }
  return out;
}

/** The kit struct codecs' bytes behind the discriminator, composed here independently of encodeEventBytes. */
const kitCodec = { GameSettled: gameSettledCodec, PoolChange: poolChangeCodec, PoolCreated: poolCreatedCodec } as const;
function kitEncode(e: GambaEvent): Uint8Array {
  return Uint8Array.from([...EVENT_DISCRIMINATORS[e.name], ...Array.from((kitCodec[e.name] as unknown as { encode(v: unknown): ArrayLike<number> }).encode(e.data))]);
}

describe('pubkeyCodec (32 raw bytes, base58 through bs58)', () => {
  it('writes and reads the same bytes and strings as kit\'s address codec', () => {
    const kit = getAddressCodec();
    for (let i = 0; i < 500; i++) {
      const b = new Uint8Array(randomBytes(32));
      if (i % 7 === 0) b.fill(0, 0, i % 5); // leading zero bytes → leading '1's
      const text = kit.decode(b) as string;
      expect(pubkeyCodec.decode(b)).toBe(text);
      expect(pubkeyCodec.encode(text)).toEqual(b);
      expect(pubkeyCodec.encode(text)).toEqual(kit.encode(text as Address));
    }
  });

  it('refuses text that is not the base58 of exactly 32 bytes, and short input', () => {
    expect(() => pubkeyCodec.encode('not-an-address')).toThrow(RangeError);
    expect(() => pubkeyCodec.encode(bs58.encode(new Uint8Array(31).fill(1)))).toThrow(RangeError);
    expect(() => pubkeyCodec.encode(bs58.encode(new Uint8Array(33).fill(1)))).toThrow(RangeError);
    expect(() => pubkeyCodec.decode(new Uint8Array(31))).toThrow();
  });
});

describe('event Borsh codec', () => {
  const all = events(600);

  it('encodes discriminator + the kit struct layout, with and without the emit_cpi prefix', () => {
    for (const e of all) {
      const want = kitEncode(e);
      expect(encodeEventBytes(e)).toEqual(want);
      expect(encodeEventBytes(e, EVENT_IX_TAG_LE)).toEqual(Uint8Array.from([...EVENT_IX_TAG_LE, ...want]));
    }
  });

  it('decodes what it encodes to the same values', () => {
    for (const e of all) expect(decodeEventBytes(encodeEventBytes(e))).toEqual({ ok: true, event: e });
  });

  it('a PoolCreated is exactly discriminator + four 32-byte keys', () => {
    const e = all[2] as Extract<GambaEvent, { name: 'PoolCreated' }>;
    const bytes = encodeEventBytes(e);
    const d = e.data;
    expect(bytes).toEqual(Uint8Array.from([...EVENT_DISCRIMINATORS.PoolCreated, ...[d.user, d.authority, d.pool, d.tokenMint].flatMap((k) => [...bs58.decode(k)])]));
  });

  it('malformed: every truncation, trailing bytes, bad enum, oversized vec; unknown discriminator apart', () => {
    for (const e of all.slice(0, 30)) {
      const bytes = encodeEventBytes(e);
      for (let cut = 8; cut < bytes.length; cut += 3) {
        expect(decodeEventBytes(bytes.subarray(0, cut))).toEqual({ ok: false, reason: 'malformed' });
      }
      expect(decodeEventBytes(Uint8Array.from([...bytes, 0]))).toEqual({ ok: false, reason: 'malformed' });
    }
    const pc = encodeEventBytes(all[1]!);
    pc[8 + 96] = 2;
    expect(decodeEventBytes(pc)).toEqual({ ok: false, reason: 'malformed' });
    // A GameSettled whose bet vector claims more items than the bytes hold.
    const g = all[3] as { name: 'GameSettled'; data: GameSettled };
    const gb = encodeEventBytes(g);
    const betAt = 8 + 128 + 64 + 4 + 40 + 4 + Buffer.byteLength(g.data.clientSeed) + 8;
    expect(new DataView(gb.buffer).getUint32(betAt, true)).toBe(g.data.bet.length);
    new DataView(gb.buffer).setUint32(betAt, 0xffff_fff0, true);
    expect(decodeEventBytes(gb)).toEqual({ ok: false, reason: 'malformed' });
    const unknown = encodeEventBytes(all[0]!);
    unknown[0] ^= 0xff;
    expect(decodeEventBytes(unknown)).toEqual({ ok: false, reason: 'unknown_discriminator' });
    expect(decodeEventBytes(new Uint8Array(4))).toEqual({ ok: false, reason: 'unknown_discriminator' });
  });

  it('removes NULs and replaces invalid UTF-8 in strings (kit\'s utf8 decoder)', () => {
    const g = all[0] as { name: 'GameSettled'; data: GameSettled };
    const bytes = encodeEventBytes({ ...g, data: { ...g.data, clientSeed: 'ab' } });
    const at = 8 + 128 + 64 + 4 + 40 + 4; // clientSeed's bytes
    bytes[at] = 0;
    bytes[at + 1] = 0xff;
    const out = decodeEventBytes(bytes);
    expect(out.ok && out.event.name === 'GameSettled' && out.event.data.clientSeed).toBe('\ufffd');
  });

  it('refuses to encode what the layout cannot hold (u64 overflow, bad address)', () => {
    const g = all[0] as { name: 'GameSettled'; data: GameSettled };
    expect(() => encodeEventBytes({ name: 'GameSettled', data: { ...g.data, wager: 1n << 64n } })).toThrow();
    expect(() => encodeEventBytes({ name: 'GameSettled', data: { ...g.data, wager: -1n } })).toThrow();
    expect(() => encodeEventBytes({ name: 'GameSettled', data: { ...g.data, user: 'not-an-address' } })).toThrow();
    expect(() => encodeEventBytes({ name: 'GameSettled', data: { ...g.data, user: bs58.encode(new Uint8Array(31).fill(1)) } })).toThrow();
  });
});
