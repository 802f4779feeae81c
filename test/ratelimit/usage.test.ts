/**
 * The in-memory usage counter of GET /usage (docs/design.md §4 "Usage"): counts per key and
 * operation within one UTC day, nothing carried into the next day, a clock stepping back does not
 * reopen a finished day, and at most `maxKeys` keys a day.
 */
import { expect, test } from 'vitest';
import { createMemoryUsageCounter, utcDay } from '../../src/ratelimit/index.js';

const DAY = 86_400_000;
const T = Date.UTC(2026, 0, 15, 23, 59, 59, 999);

test('counts per key and operation within the UTC day', async () => {
  const u = createMemoryUsageCounter();
  for (const [k, op] of [['a', 'getStats'], ['a', 'getStats'], ['a', 'getPlayers'], ['b', 'getStats']]) u.count(k!, op!, T - 1000);
  expect(await u.read('a', T)).toEqual({ getStats: 2, getPlayers: 1 });
  expect(await u.read('b', T)).toEqual({ getStats: 1 });
  expect(await u.read('c', T)).toEqual({});
});

test('a new UTC day starts from zero; a clock stepping back does not reopen the old one', async () => {
  const u = createMemoryUsageCounter();
  u.count('a', 'getStats', T);
  u.count('a', 'getStats', T + 1); // 00:00:00.000 the next day
  expect(utcDay(T + 1)).toBe('2026-01-16');
  expect(await u.read('a', T + 1)).toEqual({ getStats: 1 });
  expect(await u.read('a', T)).toEqual({});
  u.count('a', 'getPlayers', T);
  expect(await u.read('a', T + DAY / 2)).toEqual({ getStats: 1 });
});

test('at most maxKeys keys are counted a day', async () => {
  const u = createMemoryUsageCounter({ maxKeys: 2 });
  for (const k of ['a', 'b', 'c']) u.count(k, 'getStats', T);
  expect(await u.read('c', T)).toEqual({});
  u.count('a', 'getStats', T);
  expect(await u.read('a', T)).toEqual({ getStats: 2 });
});

test('utcDay names the UTC day of any time, back and forth across midnights', () => {
  // Independent of utcDay: the calendar date of the time, built from its UTC fields.
  const iso = (ms: number) => {
    const d = new Date(ms);
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
  };
  for (const ms of [T, T + 1, T - 1, T + DAY - 1, T + DAY, T - 1, 0, -1, T + 400 * DAY + 5, T]) expect(utcDay(ms), String(ms)).toBe(iso(ms));
});
