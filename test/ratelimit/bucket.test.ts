import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import { type RateLimitDecision, createMemoryRateLimiter } from '../../src/ratelimit/index.js';

/**
 * Oracle: the virtual-scheduling form of GCRA, an algorithm equivalent to a token bucket but
 * written independently of src/ratelimit/bucket.ts. Time is scaled by rpm so the emission
 * interval is exactly 60 000 units: a request at t is allowed iff TAT − t ≤ (burst − 1)·T.
 */
class GcraOracle {
  private tat = 0n; // theoretical arrival time, in ms × rpm
  private readonly T = 60_000n;
  constructor(
    private readonly rpm: number,
    private readonly burst: number,
  ) {}

  step(nowMs: number, take: boolean): RateLimitDecision {
    const r = BigInt(this.rpm);
    const t = BigInt(nowMs) * r;
    const tat = this.tat > t ? this.tat : t;
    const tau = BigInt(this.burst - 1) * this.T;
    const allowed = tat - t <= tau;
    const newTat = allowed && take ? tat + this.T : tat;
    if (take) this.tat = newTat;
    const ceilDiv = (a: bigint, b: bigint) => (a <= 0n ? 0n : (a + b - 1n) / b);
    // Tokens left = how many more emissions fit before the tolerance is exceeded.
    const remaining = (BigInt(this.burst) * this.T - (newTat - t)) / this.T;
    // Full again at TAT (ms = TAT / rpm, rounded up), reported in whole seconds rounded up.
    const fullMs = ceilDiv(newTat, r);
    const resetSec = ceilDiv(fullMs > BigInt(nowMs) ? fullMs : BigInt(nowMs), 1000n);
    // Next allowed at TAT − τ; seconds from now rounded up.
    const retryMs = allowed ? 0n : ceilDiv(tat - tau - t, r);
    return {
      allowed,
      limit: this.rpm,
      remaining: Number(remaining),
      resetSec: Number(resetSec),
      retryAfterSec: Number(ceilDiv(retryMs, 1000n)),
    };
  }
}

describe('token bucket (memory limiter)', () => {
  test('matches an independent GCRA oracle on random request sequences', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.record({ advance: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 120_000 })), take: fc.boolean() }), { maxLength: 120 }),
        async (rpm, burst, ops) => {
          const clock = new ManualClock(1_700_000_000_000);
          const limiter = createMemoryRateLimiter({ clock });
          const oracle = new GcraOracle(rpm, burst);
          for (const op of ops) {
            clock.advance(op.advance);
            const got = op.take ? await limiter.consume('b', { rpm, burst }) : await limiter.peek('b', { rpm, burst });
            expect(got).toEqual(oracle.step(clock.now(), op.take));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a full burst passes, the next is denied until one token has refilled', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const limiter = createMemoryRateLimiter({ clock });
    const limits = { rpm: 100, burst: 200 };
    for (let i = 0; i < 200; i++) {
      const d = await limiter.consume('k', limits);
      expect(d.allowed).toBe(true);
      expect(d.remaining).toBe(199 - i);
    }
    const denied = await limiter.consume('k', limits);
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfterSec: 1, limit: 100 });
    // 100 per minute = one token per 600 ms: 599 ms is not enough, 600 ms is.
    clock.advance(599);
    expect((await limiter.consume('k', limits)).allowed).toBe(false);
    clock.advance(1);
    expect((await limiter.consume('k', limits)).allowed).toBe(true);
    expect((await limiter.consume('k', limits)).allowed).toBe(false);
  });

  test('reset is when the bucket is full again; retry-after rounds up to whole seconds', async () => {
    const clock = new ManualClock(1_700_000_000_000); // a whole second
    const limiter = createMemoryRateLimiter({ clock });
    const limits = { rpm: 1, burst: 2 };
    await limiter.consume('k', limits);
    const d = await limiter.consume('k', limits);
    // Two tokens at one per minute: full again in 120 s.
    expect(d.resetSec).toBe(1_700_000_000 + 120);
    const denied = await limiter.consume('k', limits);
    expect(denied.retryAfterSec).toBe(60);
    clock.advance(59_001);
    expect((await limiter.consume('k', limits)).retryAfterSec).toBe(1);
  });

  test('buckets are independent; peek never takes a token', async () => {
    const clock = new ManualClock();
    const limiter = createMemoryRateLimiter({ clock });
    const limits = { rpm: 60, burst: 1 };
    expect((await limiter.peek('a', limits)).allowed).toBe(true);
    expect((await limiter.peek('a', limits)).allowed).toBe(true);
    expect((await limiter.consume('a', limits)).allowed).toBe(true);
    expect((await limiter.consume('a', limits)).allowed).toBe(false);
    expect((await limiter.peek('a', limits)).allowed).toBe(false);
    expect((await limiter.consume('b', limits)).allowed).toBe(true);
  });

  test('evicting full buckets under memory pressure changes no answer', async () => {
    const clock = new ManualClock();
    const small = createMemoryRateLimiter({ clock, maxBuckets: 3 });
    const big = createMemoryRateLimiter({ clock });
    const limits = { rpm: 600, burst: 3 };
    for (let i = 0; i < 400; i++) {
      const id = `k${(i * 7) % 11}`;
      clock.advance((i * 37) % 250);
      expect(await small.consume(id, limits)).toEqual(await big.consume(id, limits));
    }
  });

  test('rejects limits that could never refill', async () => {
    const limiter = createMemoryRateLimiter({ clock: new ManualClock() });
    await expect(limiter.consume('k', { rpm: 0, burst: 1 })).rejects.toThrow(RangeError);
    await expect(limiter.consume('k', { rpm: 1, burst: 0.5 })).rejects.toThrow(RangeError);
    // The synchronous facet throws what the promise interface rejects with.
    expect(() => limiter.sync!.consume('k', { rpm: 1, burst: 0 })).toThrow(RangeError);
    expect(() => limiter.sync!.peek('k', { rpm: Number.NaN, burst: 1 })).toThrow(RangeError);
  });

  test('the synchronous facet decides exactly as the promise interface (one bucket state behind both)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ id: fc.constantFrom('a', 'b'), advance: fc.nat(20_000), take: fc.boolean(), viaSync: fc.boolean() }), { maxLength: 60 }),
        async (ops) => {
          const clockA = new ManualClock(0);
          const clockB = new ManualClock(0);
          const mixed = createMemoryRateLimiter({ clock: clockA });
          const plain = createMemoryRateLimiter({ clock: clockB });
          const limits = { rpm: 30, burst: 4 };
          for (const op of ops) {
            clockA.advance(op.advance);
            clockB.advance(op.advance);
            const got = op.viaSync
              ? op.take ? mixed.sync!.consume(op.id, limits) : mixed.sync!.peek(op.id, limits)
              : op.take ? await mixed.consume(op.id, limits) : await mixed.peek(op.id, limits);
            const want = op.take ? await plain.consume(op.id, limits) : await plain.peek(op.id, limits);
            expect(got).toEqual(want);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
