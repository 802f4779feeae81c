/**
 * The Redis usage counter of GET /usage (docs/design.md §4 "Usage"): every API process sharing a
 * Redis shares the counts (two limiters over one Redis count into the same hash), one hash per key
 * and UTC day that expires, and a read while Redis is unreachable is a 503 SERVICE_UNAVAILABLE.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import { createRedisRateLimiter, createRedisUsageCounter } from '../../src/ratelimit/index.js';
import { testRedisUrl } from '../helpers/scaleout.js';

const prefix = `gamba:test:usage:${process.pid}:${Date.now()}:`;
const T = Date.UTC(2026, 0, 15, 12);
let redis: Redis;
beforeAll(() => {
  redis = new Redis(testRedisUrl());
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** Waits until `read` sees `expected` (counts are written without the request waiting for them). */
async function eventually(read: () => Promise<unknown>, expected: unknown): Promise<void> {
  for (let i = 0; i < 50 && JSON.stringify(await read()) !== JSON.stringify(expected); i++) await new Promise((r) => setTimeout(r, 20));
  expect(await read()).toEqual(expected);
}

test('two processes (limiters) over one Redis count into one hash per key and UTC day, which expires', async () => {
  const clock = new ManualClock(T);
  const a = createRedisRateLimiter({ url: testRedisUrl(), keyPrefix: prefix, clock });
  const b = createRedisRateLimiter({ url: testRedisUrl(), keyPrefix: prefix, clock });
  try {
    await a.consume('warm', { rpm: 1, burst: 1 });
    await b.consume('warm2', { rpm: 1, burst: 1 });
    a.usage!.count('key_1', 'getStats', T);
    b.usage!.count('key_1', 'getStats', T);
    b.usage!.count('key_1', 'getPlayers', T);
    a.usage!.count('key_2', 'getStats', T);
    await eventually(() => a.usage!.read('key_1', T), { getStats: 2, getPlayers: 1 });
    expect(await b.usage!.read('key_2', T)).toEqual({ getStats: 1 });
    expect(await a.usage!.read('key_1', T + 86_400_000)).toEqual({});
    const ttl = await redis.ttl(`${prefix}usage:2026-01-15:key_1`);
    expect(ttl).toBeGreaterThan(86_400);
    expect(ttl).toBeLessThanOrEqual(2 * 86_400);
  } finally {
    await a.close();
    await b.close();
  }
});

test('a read while Redis is unreachable → AppError SERVICE_UNAVAILABLE; a count is dropped, not thrown', async () => {
  const down = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
  down.on('error', () => undefined);
  const u = createRedisUsageCounter({ client: down, keyPrefix: prefix });
  expect(() => u.count('k', 'getStats', T)).not.toThrow();
  await expect(u.read('k', T)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  down.disconnect();
});
