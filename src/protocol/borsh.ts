import { base58Decode, base58Encode } from './base58.js';

/**
 * A minimal Borsh reader and writer for the few types Gamba's events and instructions use
 * (Borsh spec: integers little-endian, `string` = u32 byte length + UTF-8, `Vec<T>` = u32
 * count + items, `Pubkey` = 32 raw bytes). Same bytes and same refusals as the @solana/kit
 * codecs in codec.ts (which stay the readable reference and are compared with these in the
 * tests), without their per-field closures, size pre-pass and BigInt base58: the event
 * codec ran once per event on both sides of the ingest and was the largest single cost of
 * building and decoding a transaction (docs/benchmarks.md "Ingest").
 */
const U64_MAX = (1n << 64n) - 1n;
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** base58 → 32 bytes for addresses that repeat (programs, pools, mints, players): bounded memo. */
const pubkeyBytes = new Map<string, Uint8Array>();
const PUBKEY_MEMO = 50_000;

export class BorshWriter {
  private buf: Uint8Array;
  private view: DataView;
  private at = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  /**
   * Starts over, keeping the buffer: one writer per module can serve every encode (each call
   * ends with bytes(), which copies out), instead of a fresh buffer + view per instruction.
   */
  reset(): this {
    this.at = 0;
    return this;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  raw(bytes: Uint8Array): this {
    this.room(bytes.length);
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
    return this;
  }

  u8(v: number): this {
    if (!(v >= 0 && v <= 0xff)) throw new RangeError(`u8 out of range: ${v}`);
    this.room(1);
    this.buf[this.at++] = v;
    return this;
  }

  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }

  u32(v: number): this {
    if (!(v >= 0 && v <= 0xffff_ffff)) throw new RangeError(`u32 out of range: ${v}`);
    this.room(4);
    this.view.setUint32(this.at, v, true);
    this.at += 4;
    return this;
  }

  u64(v: bigint | number): this {
    const b = typeof v === 'bigint' ? v : BigInt(v);
    if (b < 0n || b > U64_MAX) throw new RangeError(`u64 out of range: ${b}`);
    this.room(8);
    this.view.setBigUint64(this.at, b, true);
    this.at += 8;
    return this;
  }

  /** u32 byte length + UTF-8 (ASCII written directly, anything else through TextEncoder). */
  string(s: string): this {
    const n = s.length;
    let ascii = true;
    for (let i = 0; i < n; i++) {
      if (s.charCodeAt(i) > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (!ascii) {
      const bytes = textEncoder.encode(s);
      return this.u32(bytes.length).raw(bytes);
    }
    this.u32(n);
    this.room(n);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
    this.at = at;
    return this;
  }

  /** A base58 address as its 32 bytes; throws on anything else (like kit's address encoder). */
  pubkey(address: string): this {
    let bytes = pubkeyBytes.get(address);
    if (bytes === undefined) {
      const b = base58Decode(address);
      if (b === null || b.length !== 32) throw new RangeError(`not a 32-byte base58 address: ${address}`);
      if (pubkeyBytes.size >= PUBKEY_MEMO) pubkeyBytes.clear();
      pubkeyBytes.set(address, b);
      bytes = b;
    }
    return this.raw(bytes);
  }

  vecU32(items: readonly number[]): this {
    this.u32(items.length);
    for (const v of items) this.u32(v);
    return this;
  }

  /** The bytes written so far (a copy sized to fit). */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.at);
  }
}

/** Reading past the end or an out-of-range value: the caller maps it to "malformed". */
export class BorshError extends Error {}

export class BorshReader {
  private readonly view: DataView;

  constructor(
    private readonly buf: Uint8Array,
    public at = 0,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get remaining(): number {
    return this.buf.length - this.at;
  }

  private need(n: number): number {
    const at = this.at;
    if (at + n > this.buf.length) throw new BorshError(`need ${n} bytes at ${at}, have ${this.buf.length - at}`);
    this.at = at + n;
    return at;
  }

  u8(): number {
    return this.buf[this.need(1)]!;
  }

  u32(): number {
    return this.view.getUint32(this.need(4), true);
  }

  u64(): bigint {
    return this.view.getBigUint64(this.need(8), true);
  }

  /** UTF-8 with invalid sequences replaced and NUL characters removed (as kit's utf8 decoder). */
  string(): string {
    const n = this.u32();
    const at = this.need(n);
    const buf = this.buf;
    let s = '';
    if (n <= 64) {
      for (let i = at; i < at + n; i++) {
        const c = buf[i]!;
        if (c === 0) continue;
        if (c > 0x7f) return textDecoder.decode(buf.subarray(at, at + n)).replace(/\u0000/g, '');
        s += String.fromCharCode(c);
      }
      return s;
    }
    return textDecoder.decode(buf.subarray(at, at + n)).replace(/\u0000/g, '');
  }

  pubkey(): string {
    const at = this.need(32);
    return base58Encode(this.buf.subarray(at, at + 32));
  }

  vecU32(): number[] {
    const n = this.u32();
    if (n * 4 > this.remaining) throw new BorshError(`vec of ${n} u32 exceeds the ${this.remaining} bytes left`);
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.u32();
    return out;
  }
}
