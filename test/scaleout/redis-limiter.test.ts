/**
 * The Redis token buckets (docs/deployment.md) against the memory limiter and the pure model of
 * src/ratelimit/bucket.ts (`decide`), which test/ratelimit/bucket.test.ts checks against an
 * independent GCRA oracle: same answers, same stored state, on random request sequences.
 * Runs against the machine's Redis (TEST_REDIS_URL), every test under its own key prefix.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import { type BucketState, createMemoryRateLimiter, createRedisRateLimiter, decide } from '../../src/ratelimit/index.js';
import { testRedisUrl } from '../helpers/scaleout.js';

let redis: Redis;
const runPrefix = `gamba:test:${process.pid}:${Date.now()}:`;
let n = 0;
const freshPrefix = () => `${runPrefix}${n++}:`;

beforeAll(() => {
  redis = new Redis(testRedisUrl());
});
afterAll(async () => {
  const keys = await redis.keys(`${runPrefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('Redis rate limiter', () => {
  test('answers and stores exactly what the memory limiter and the bucket model do (random sequences)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(
          fc.record({
            bucket: fc.constantFrom('a', 'b', 'c'),
            // Mostly forward, sometimes a clock step backwards (which must refill nothing).
            advance: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 120_000 }), fc.integer({ min: -5000, max: 0 })),
            take: fc.boolean(),
          }),
          { maxLength: 60 },
        ),
        async (rpm, burst, ops) => {
          const clock = new ManualClock(1_700_000_000_000);
          const keyPrefix = freshPrefix();
          const shared = createRedisRateLimiter({ client: redis, clock, keyPrefix });
          const memory = createMemoryRateLimiter({ clock });
          const model = new Map<string, BucketState>();
          const limits = { rpm, burst };
          for (const op of ops) {
            clock.advance(op.advance);
            const expected = decide(model.get(op.bucket), limits, clock.now(), op.take);
            if (op.take) model.set(op.bucket, expected.state);
            const got = op.take ? await shared.consume(op.bucket, limits) : await shared.peek(op.bucket, limits);
            const mem = op.take ? await memory.consume(op.bucket, limits) : await memory.peek(op.bucket, limits);
            expect(got).toEqual(expected.decision);
            expect(got).toEqual(mem);
          }
          // What the script stored is the model's state, to the unit.
          for (const [bucket, state] of model) {
            const h = await redis.hgetall(keyPrefix + bucket);
            expect({ level: Number(h.l), updatedMs: Number(h.t) }).toEqual(state);
          }
          await shared.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a burst of concurrent consumes from two limiters on separate connections takes exactly `burst` tokens', async () => {
    // rpm 1: the refill during the test (< 1/60 000 token per ms) cannot add a whole token.
    const limits = { rpm: 1, burst: 25 };
    const keyPrefix = freshPrefix();
    const a = createRedisRateLimiter({ url: testRedisUrl(), keyPrefix });
    const b = createRedisRateLimiter({ url: testRedisUrl(), keyPrefix });
    try {
      const all = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 ? a : b).consume('key:k', limits)));
      expect(all.filter((d) => d.allowed)).toHaveLength(25);
      const denied = all.filter((d) => !d.allowed);
      expect(denied).toHaveLength(55);
      // One token per minute: the next one is at most 60 s away.
      for (const d of denied) expect(d.retryAfterSec).toBeGreaterThan(0);
      for (const d of denied) expect(d.retryAfterSec).toBeLessThanOrEqual(60);
      expect((await a.peek('key:k', limits)).remaining).toBe(0);
      // Server time (no clock given): the key expires when the bucket would be full again (+1 s).
      const ttl = await redis.pttl(`${keyPrefix}key:k`);
      expect(ttl).toBeGreaterThan(25 * 60_000 - 5000);
      expect(ttl).toBeLessThanOrEqual(25 * 60_000 + 1000);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('peek never writes; a fresh bucket is full', async () => {
    const keyPrefix = freshPrefix();
    const limiter = createRedisRateLimiter({ client: redis, keyPrefix });
    const d = await limiter.peek('authfail:1.2.3.4', { rpm: 30, burst: 30 });
    expect(d).toMatchObject({ allowed: true, limit: 30, remaining: 30, retryAfterSec: 0 });
    expect(await redis.exists(`${keyPrefix}authfail:1.2.3.4`)).toBe(0);
    await expect(limiter.consume('x', { rpm: 0, burst: 1 })).rejects.toThrow(RangeError);
  });

  test('unreachable Redis: closed policy rejects with SERVICE_UNAVAILABLE, open policy allows', async () => {
    // A port nothing listens on (the connection is refused at once).
    const url = 'redis://127.0.0.1:1';
    const closed = createRedisRateLimiter({ url, commandTimeoutMs: 300 });
    const open = createRedisRateLimiter({ url, onError: 'open', commandTimeoutMs: 300 });
    try {
      await expect(closed.consume('key:k', { rpm: 10, burst: 10 })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
      await expect(closed.peek('authfail:ip', { rpm: 10, burst: 10 })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(await open.consume('key:k', { rpm: 10, burst: 10 })).toMatchObject({ allowed: true, limit: 10 });
    } finally {
      await closed.close();
      await open.close();
    }
  });
});
