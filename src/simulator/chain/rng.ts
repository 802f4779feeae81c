/**
 * Deterministic randomness for the simulator. Everything the chain shows is a pure function of
 * the seed and a label (segment index, entity index…), so any part of history can be rebuilt
 * on demand without holding it in memory (docs/simulator.md "Scale"). Not for cryptography.
 */

/** 32-bit FNV-1a over the UTF-16 code units of `s`, then a murmur3 finalizer for avalanche. */
function fnv32(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** murmur3's 32-bit finalizer: a bijective mix of one u32. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A stable u32 hash of a list of labels (numbers and strings). */
export function hash32(...parts: (number | string)[]): number {
  return fnv32(parts.join('\u0001'));
}

/** A u32 in [0, 2^32) mapped to [0, 1). */
export function unit(u32: number): number {
  return u32 / 4_294_967_296;
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128-bit state, good statistical
 * quality, cheap. Seeded from four independent hashes of the labels.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...labels: (number | string)[]) {
    const key = labels.join('\u0001');
    this.a = fnv32(key, 0x9e3779b9);
    this.b = fnv32(key, 0x243f6a88);
    this.c = fnv32(key, 0xb7e15162);
    this.d = fnv32(key, 0x8aed2a6b) | 1;
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4_294_967_296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Fills `out` with random bytes. */
  fill(out: Uint8Array): Uint8Array {
    for (let i = 0; i < out.length; i += 4) {
      const v = this.u32();
      out[i] = v & 0xff;
      if (i + 1 < out.length) out[i + 1] = (v >>> 8) & 0xff;
      if (i + 2 < out.length) out[i + 2] = (v >>> 16) & 0xff;
      if (i + 3 < out.length) out[i + 3] = v >>> 24;
    }
    return out;
  }

  /** Lowercase hex string of `chars` characters (even). */
  hex(chars: number): string {
    const bytes = this.fill(HEX_SCRATCH.subarray(0, chars >> 1));
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal with the given median and log-space sigma. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Poisson-distributed count (Knuth for small means, rounded normal beyond). */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean > 40) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const limit = Math.exp(-mean);
    let k = 0;
    let p = this.next();
    while (p > limit) {
      k++;
      p *= this.next();
    }
    return k;
  }
}

const HEX_SCRATCH = new Uint8Array(64);

/** Samples ranks 0..n-1 with probability ∝ 1/(rank+1)^s (Zipf), by binary search on the CDF. */
export class Zipf {
  private readonly cdf: Float64Array;

  constructor(n: number, s: number) {
    this.cdf = new Float64Array(n);
    let acc = 0;
    for (let i = 0; i < n; i++) {
      acc += 1 / Math.pow(i + 1, s);
      this.cdf[i] = acc;
    }
    for (let i = 0; i < n; i++) this.cdf[i]! /= acc;
  }

  get size(): number {
    return this.cdf.length;
  }

  sample(u: number): number {
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Picks an index by weights (not necessarily normalised). */
export function pickWeighted(weights: readonly number[], u: number): number {
  let total = 0;
  for (const w of weights) total += w;
  let x = u * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i]!;
    if (x < 0) return i;
  }
  return weights.length - 1;
}
