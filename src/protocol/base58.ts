/**
 * Base58 (Bitcoin alphabet, as Solana writes signatures, addresses and `json`-encoded
 * instruction data) — the same output and the same decoding rules as `bs58`/base-x 5:
 * each leading zero byte is one '1', the rest is the big-endian integer in base 58 without
 * leading zeros; decoding refuses any character outside the alphabet.
 *
 * Why not `bs58` itself: base-x converts one byte and one base-58 digit at a time, so its cost
 * grows with the square of the length in single-digit steps. Here the same schoolbook
 * conversion runs on big limbs — 3 input bytes against base-58⁴ digits (encode), 4 input
 * characters against 3-byte limbs (decode) — with carries that stay below 2⁵³ so plain
 * doubles hold them exactly: ≈ 10× fewer steps. It matters for instruction data (100–400
 * bytes) and 64-byte signatures, which the simulator writes and the indexer reads for every
 * transaction (docs/benchmarks.md "Ingest"). Tests compare both directions with `bs58` on
 * random inputs.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Char code → digit value, 255 outside the alphabet. */
const DIGIT = new Uint8Array(128).fill(255);
for (let i = 0; i < 58; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
/** 58⁴ = 11,316,496 < 2²⁴: one limb of four base-58 digits. */
const B58_4 = 58 ** 4;

const TWO24 = 2 ** 24;
const INV_TWO24 = 2 ** -24;
const INV_B58_4 = 1 / B58_4;

/** Scratch limbs reused by every call (single-threaded, never held across calls). */
let scratch = new Float64Array(64);
const CHARS = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));

/**
 * Writes the base58 text of `bytes` as ASCII codes into `out` from `at`; returns the end.
 * `out` needs room for base58MaxLength(bytes.length) codes.
 */
export function base58EncodeInto(bytes: Uint8Array, out: Uint8Array, at: number): number {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  // Limbs of 4 base-58 digits, least significant first; an upper bound of their count.
  const need = Math.ceil(((n - zeros) * 1.3657) / 4) + 1;
  if (scratch.length < need) scratch = new Float64Array(need * 2);
  const limbs = scratch;
  let used = 0;
  let i = zeros;
  // Horner over 3-byte chunks (the first one shorter so the rest align): limbs = limbs·2²⁴ + chunk.
  const head = (n - zeros) % 3;
  let shift = head === 0 ? TWO24 : 2 ** (8 * head);
  while (i < n) {
    let carry: number;
    if (i === zeros && head !== 0) {
      carry = head === 1 ? bytes[i]! : (bytes[i]! << 8) | bytes[i + 1]!;
      i += head;
    } else {
      carry = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
      i += 3;
    }
    for (let j = 0; j < used; j++) {
      // < 58⁴·2²⁴ + 2²⁴ < 2⁴⁸: exact in a double. The quotient through the reciprocal (a
      // multiply instead of a divide, ≈ 1.5× faster here) is off by at most one: corrected.
      const v = limbs[j]! * shift + carry;
      let q = Math.floor(v * INV_B58_4);
      let r = v - q * B58_4;
      if (r < 0) {
        q--;
        r += B58_4;
      } else if (r >= B58_4) {
        q++;
        r -= B58_4;
      }
      limbs[j] = r;
      carry = q;
    }
    while (carry > 0) {
      const q = Math.floor(carry / B58_4);
      limbs[used++] = carry - q * B58_4;
      carry = q;
    }
    shift = TWO24;
  }
  for (let z = 0; z < zeros; z++) out[at++] = 49; // '1'
  if (used === 0) return at;
  // The top limb without leading zero digits, the others with all four.
  let top = limbs[used - 1]!;
  let digits = top >= 195_112 ? 4 : top >= 3364 ? 3 : top >= 58 ? 2 : 1;
  for (let d = digits - 1; d >= 0; d--) {
    const q = Math.floor(top / 58);
    out[at + d] = CHARS[top - q * 58]!;
    top = q;
  }
  at += digits;
  for (let j = used - 2; j >= 0; j--) {
    let v = limbs[j]!;
    for (let d = 3; d >= 0; d--) {
      const q = Math.floor(v / 58);
      out[at + d] = CHARS[v - q * 58]!;
      v = q;
    }
    at += 4;
  }
  return at;
}

/** Upper bound of the base58 length of `n` bytes. */
export const base58MaxLength = (n: number) => Math.ceil(n * 1.3657) + 2;

let text = new Uint8Array(128);

/** Encodes bytes as base58. */
export function base58Encode(bytes: Uint8Array): string {
  const max = base58MaxLength(bytes.length);
  if (text.length < max) text = new Uint8Array(max * 2);
  const end = base58EncodeInto(bytes, text, 0);
  return Buffer.prototype.latin1Slice.call(text, 0, end) as string;
}

/** Decodes base58; null when a character is outside the alphabet. */
export function base58Decode(s: string): Uint8Array | null {
  const n = s.length;
  let zeros = 0;
  while (zeros < n && s.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  // Limbs of 3 bytes (base 2²⁴), least significant first; an upper bound of their count.
  const limbs = new Float64Array(Math.ceil(((n - zeros) * 0.7322) / 3) + 1);
  let used = 0;
  let i = zeros;
  const head = (n - zeros) % 4;
  let mul = head === 0 ? B58_4 : 58 ** head;
  while (i < n) {
    const take = i === zeros && head !== 0 ? head : 4;
    let carry = 0;
    for (let k = 0; k < take; k++) {
      const c = s.charCodeAt(i + k);
      const d = c < 128 ? DIGIT[c]! : 255;
      if (d === 255) return null;
      carry = carry * 58 + d;
    }
    i += take;
    for (let j = 0; j < used; j++) {
      // < 2²⁴·58⁴ + 58⁴ < 2⁴⁸: exact in a double.
      const v = limbs[j]! * mul + carry;
      carry = Math.floor(v * INV_TWO24); // exact: a power of two
      limbs[j] = v - carry * TWO24;
    }
    while (carry > 0) {
      const q = Math.floor(carry / TWO24);
      limbs[used++] = carry - q * TWO24;
      carry = q;
    }
    mul = B58_4;
  }
  // Significant bytes of the integer (the top limb may hold fewer than 3).
  let sig = used * 3;
  if (used > 0) {
    const top = limbs[used - 1]!;
    sig -= top < 256 ? 2 : top < 65536 ? 1 : 0;
  }
  const out = new Uint8Array(zeros + sig);
  let at = out.length;
  for (let j = 0; j < used; j++) {
    const v = limbs[j]!;
    out[--at] = v & 255;
    if (at > zeros) out[--at] = (v >>> 8) & 255;
    if (at > zeros) out[--at] = v >>> 16;
  }
  return out;
}
