import bs58 from 'bs58';

const utf8 = new TextEncoder();

/**
 * Writes JSON text as bytes into one reusable buffer and hands back a flat string at the end.
 * For the hot getTransaction answer (transactions/txjson.ts): string concatenation built hundreds of rope
 * pieces per transaction that stayed alive until the batch was sent, which the young-generation
 * GC then had to copy (GC was ≈ 25 % of the simulator's CPU). One writer per process is enough:
 * rendering is synchronous, a render never yields halfway.
 */
export class JsonText {
  private buf = new Uint8Array(1 << 14);
  private at = 0;
  private ascii = true;

  reset(): this {
    this.at = 0;
    this.ascii = true;
    return this;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
  }

  /** ASCII text written as is (punctuation, keys, literals, base58). */
  raw(s: string): this {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
    this.at = at;
    return this;
  }

  /** A number as JSON.stringify / canonicalJson write it (non-finite → null). */
  num(n: number): this {
    // Integers below 2⁵³ digit by digit (exact in doubles); anything else through String().
    if (n >= 0 && n <= Number.MAX_SAFE_INTEGER && Math.floor(n) === n) {
      this.room(16);
      const buf = this.buf;
      if (n < 10) {
        buf[this.at++] = 48 + n;
        return this;
      }
      let digits = 0;
      for (let m = n; m >= 1; m = Math.floor(m / 10)) digits++;
      let at = this.at + digits;
      this.at = at;
      while (n > 0) {
        const q = Math.floor(n / 10);
        buf[--at] = 48 + (n - q * 10);
        n = q;
      }
      return this;
    }
    return this.raw(Number.isFinite(n) ? String(n) : 'null');
  }

  /** `"…"` around text known to need no escaping (base58 keys and signatures, digits). */
  quoted(s: string): this {
    this.room(s.length + 2);
    this.buf[this.at++] = 34;
    this.raw(s);
    this.buf[this.at++] = 34;
    return this;
  }

  /** `"…"` around the base58 text of `bytes` (`bs58`), its ASCII copied into the buffer. */
  base58(bytes: Uint8Array): this {
    return this.quoted(bs58.encode(bytes));
  }

  /** Any string as a JSON string literal (JSON.stringify's escaping, UTF-8 bytes). */
  str(s: string): this {
    const n = s.length;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c === 34 || c === 92 || c > 0x7e) return this.utf8(JSON.stringify(s));
    }
    return this.quoted(s);
  }

  /** Text that is JSON already (e.g. canonicalJson's output), copied as UTF-8. */
  json(s: string): this {
    const n = s.length;
    for (let i = 0; i < n; i++) if (s.charCodeAt(i) > 0x7e) return this.utf8(s);
    return this.raw(s);
  }

  private utf8(s: string): this {
    this.room(s.length * 3);
    const { written } = utf8.encodeInto(s, this.buf.subarray(this.at));
    this.at += written;
    this.ascii = false;
    return this;
  }

  /**
   * The bytes written since the last reset, copied into a Buffer: off the V8 heap, so a batch
   * of answers waiting to be sent costs the young-generation GC nothing to keep, and the HTTP
   * layer writes them without re-encoding a string.
   */
  bytes(): Buffer {
    const out = Buffer.allocUnsafe(this.at);
    out.set(this.buf.subarray(0, this.at));
    return out;
  }

  /** The text written since the last reset, as one flat string. */
  text(): string {
    return this.ascii ? (Buffer.prototype.latin1Slice.call(this.buf, 0, this.at) as string) : Buffer.from(this.buf.buffer, 0, this.at).toString('utf8');
  }
}
