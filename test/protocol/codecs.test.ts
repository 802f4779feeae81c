import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import {
  base58Decode,
  base58Encode,
  decodeEventBytes,
  encodeEventBytes,
  EVENT_DISCRIMINATORS,
  EVENT_IX_TAG_LE,
  gameSettledCodec,
  poolChangeCodec,
  poolCreatedCodec,
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

describe('base58 (limb-wise) against bs58', () => {
  it('encodes and decodes every length 0–300 with leading zeros, all-zero and all-0xff inputs', () => {
    const r = rng(1);
    for (let n = 0; n <= 300; n++) {
      for (let k = 0; k < 12; k++) {
        const b = new Uint8Array(n).map(() => Math.floor(r() * 256));
        if (k === 1) b.fill(0);
        if (k === 2) b.fill(255);
        if (k >= 3 && k < 6) b.fill(0, 0, Math.min(n, k - 2));
        const expected = bs58.encode(b);
        expect(base58Encode(b)).toBe(expected);
        expect(base58Decode(expected)).toEqual(b);
      }
    }
  });

  it('decodes arbitrary strings like bs58.decodeUnsafe, null where it refuses', () => {
    const r = rng(2);
    const chars = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl+ é\u0000';
    for (let t = 0; t < 5000; t++) {
      let s = '1'.repeat(t % 4);
      const n = Math.floor(r() * 100);
      const pool = t % 3 === 0 ? chars.length : 58;
      for (let i = 0; i < n; i++) s += chars[Math.floor(r() * pool)];
      const want = bs58.decodeUnsafe(s);
      const got = base58Decode(s);
      if (want === undefined) expect(got).toBeNull();
      else expect(got).toEqual(want);
    }
  });

  it('round-trips random 32- and 64-byte keys', () => {
    for (let i = 0; i < 2000; i++) {
      const b = new Uint8Array(randomBytes(i % 2 ? 32 : 64));
      expect(base58Decode(base58Encode(b))).toEqual(b);
    }
  });
});

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

/** kit's struct codecs (the reference layouts written from the IDL). */
const kitCodec = { GameSettled: gameSettledCodec, PoolChange: poolChangeCodec, PoolCreated: poolCreatedCodec } as const;
function kitEncode(e: GambaEvent): Uint8Array {
  return Uint8Array.from([...EVENT_DISCRIMINATORS[e.name], ...Array.from((kitCodec[e.name] as unknown as { encode(v: unknown): ArrayLike<number> }).encode(e.data))]);
}
function kitDecode(bytes: Uint8Array): { ok: boolean; data?: unknown } {
  for (const name of ['GameSettled', 'PoolChange', 'PoolCreated'] as const) {
    if (!EVENT_DISCRIMINATORS[name].every((b, i) => bytes[i] === b)) continue;
    try {
      const [data, end] = (kitCodec[name] as unknown as { read(b: Uint8Array, o: number): [unknown, number] }).read(bytes, 8);
      return end === bytes.length ? { ok: true, data } : { ok: false };
    } catch {
      return { ok: false };
    }
  }
  return { ok: false };
}

describe('event Borsh codec (borsh.ts) against the kit codecs', () => {
  const all = events(600);

  it('encodes byte-identically, with and without the emit_cpi prefix', () => {
    for (const e of all) {
      const want = kitEncode(e);
      expect(encodeEventBytes(e)).toEqual(want);
      expect(encodeEventBytes(e, EVENT_IX_TAG_LE)).toEqual(Uint8Array.from([...EVENT_IX_TAG_LE, ...want]));
    }
  });

  it('decodes to the same values', () => {
    for (const e of all) {
      const bytes = kitEncode(e);
      const out = decodeEventBytes(bytes);
      expect(out).toEqual({ ok: true, event: { name: e.name, data: kitDecode(bytes).data } });
      expect(out).toEqual({ ok: true, event: e });
    }
  });

  it('refuses what kit refuses: every truncation, trailing bytes, bad enum, oversized vec; removes NULs and replaces bad UTF-8 like kit', () => {
    for (const e of all.slice(0, 30)) {
      const bytes = kitEncode(e);
      for (let cut = 8; cut < bytes.length; cut += 3) {
        const short = bytes.subarray(0, cut);
        expect(decodeEventBytes(short).ok).toBe(kitDecode(short).ok);
      }
      expect(decodeEventBytes(Uint8Array.from([...bytes, 0]))).toEqual({ ok: false, reason: 'malformed' });
    }
    const pc = kitEncode(all[1]!);
    pc[8 + 96] = 2;
    expect(decodeEventBytes(pc)).toEqual({ ok: false, reason: 'malformed' });
    expect(kitDecode(pc).ok).toBe(false);
    // A GameSettled whose clientSeed holds NULs and an invalid UTF-8 sequence.
    const g = all[0] as { name: 'GameSettled'; data: GameSettled };
    const odd = { ...g, data: { ...g.data, clientSeed: 'ab' } };
    const bytes = kitEncode(odd);
    const at = 8 + 128 + 64 + 4 + 40 + 4; // clientSeed's bytes
    bytes[at] = 0;
    bytes[at + 1] = 0xff;
    expect(decodeEventBytes(bytes)).toEqual({ ok: true, event: { name: 'GameSettled', data: kitDecode(bytes).data } });
    expect((kitDecode(bytes).data as GameSettled).clientSeed).toBe('\ufffd');
  });

  it('refuses to encode what kit refuses (u64 overflow, bad address)', () => {
    const g = all[0] as { name: 'GameSettled'; data: GameSettled };
    expect(() => encodeEventBytes({ name: 'GameSettled', data: { ...g.data, wager: 1n << 64n } })).toThrow();
    expect(() => encodeEventBytes({ name: 'GameSettled', data: { ...g.data, wager: -1n } })).toThrow();
    expect(() => encodeEventBytes({ name: 'GameSettled', data: { ...g.data, user: 'not-an-address' } })).toThrow();
    expect(() => encodeEventBytes({ name: 'GameSettled', data: { ...g.data, user: bs58.encode(new Uint8Array(31).fill(1)) } })).toThrow();
  });
});
