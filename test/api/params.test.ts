import fc from 'fast-check';
import { expect, test } from 'vitest';
import { isAppError } from '../../src/core/index.js';
import { parseStartTime } from '../../src/api/params.js';

/** `startTime` parsing against the platform's own ISO 8601 parser as the oracle. */
const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

test('ISO 8601 date-times with any zone parse to the same instant as Date.parse', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 4_102_444_800_000 }), // 1970 … 2100
      fc.integer({ min: -14 * 60, max: 14 * 60 }),
      fc.constantFrom(0, 1, 2, 3),
      (ms, offsetMin, fracDigits) => {
        const local = new Date(ms + offsetMin * 60_000);
        const frac = fracDigits === 0 ? '' : `.${pad(local.getUTCMilliseconds(), 3).slice(0, fracDigits)}`;
        const zone = offsetMin === 0 ? 'Z' : `${offsetMin < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(offsetMin) / 60))}:${pad(Math.abs(offsetMin) % 60)}`;
        const text = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${frac}${zone}`;
        const expected = Date.parse(text);
        if (expected < 0) return; // before the epoch once the offset is applied: rejected, tested below
        expect(parseStartTime(text)).toBe(expected);
      },
    ),
    { numRuns: 500 },
  );
});

test('milliseconds pass through; impossible dates are rejected naming startTime', () => {
  expect(parseStartTime('0')).toBe(0);
  expect(parseStartTime('1735689600000')).toBe(1_735_689_600_000);
  expect(parseStartTime(undefined)).toBeUndefined();
  expect(parseStartTime('2024-02-29T00:00Z')).toBe(Date.UTC(2024, 1, 29));
  for (const bad of ['2023-02-29T00:00:00Z', '2025-04-31T00:00:00Z', '2025-01-01T23:60:00Z', '2025-01-01T00:00:60Z', '2025-01-01T00:00:00+24:00', '1970-01-01T00:00:00+00:01']) {
    let err: unknown;
    try {
      parseStartTime(bad);
    } catch (e) {
      err = e;
    }
    expect(isAppError(err) && err.code === 'INVALID_PARAMETER' && err.details?.parameter === 'startTime', bad).toBe(true);
  }
});
