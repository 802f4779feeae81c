import { expect, test } from 'vitest';
import { isAppError } from '../../src/core/index.js';
import { decodeCursor, encodeCursor, nextCursor } from '../../src/api/cursor.js';
import { keysetKinds } from '../../src/store/index.js';

/** Keyset cursors are the API's (src/api/cursor.ts); their wire format is base64url JSON `{ o, s, k }`. */
const SIG = '5'.repeat(88);

function rejection(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

test('the wire format: base64url JSON of the ordering, the direction and the last row key', () => {
  const cursor = encodeCursor('multiplier', 'ASC', { values: [20_000, 1_700_000_000_000, SIG, 3] });
  expect(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))).toEqual({ o: 'multiplier', s: 'ASC', k: [20_000, 1_700_000_000_000, SIG, 3] });
  expect(Buffer.from(cursor, 'base64url').toString('utf8')).toBe(`{"o":"multiplier","s":"ASC","k":[20000,1700000000000,"${SIG}",3]}`);
  expect(decodeCursor(cursor, 'multiplier', 'ASC', keysetKinds('settledGames', 'multiplier'))).toEqual({ values: [20_000, 1_700_000_000_000, SIG, 3] });
  expect(nextCursor('time', 'DESC', null)).toBeNull();
});

test('a cursor of another shape or ordering → INVALID_PARAMETER naming cursor', () => {
  const time = encodeCursor('time', 'DESC', { values: [1, SIG, 0] });
  const cases: [string, string, 'ASC' | 'DESC', RegExp][] = [
    ['not a cursor', 'time', 'DESC', /returned by this endpoint/],
    [Buffer.from('{"o":"time","s":"DESC","k":[1,2,3]}').toString('base64url'), 'time', 'DESC', /returned by this endpoint/],
    [Buffer.from('{"o":"time","s":"DESC","k":[1e999,"a",3]}').toString('base64url'), 'time', 'DESC', /returned by this endpoint/],
    [time, 'time', 'ASC', /was issued for orderBy=time&sorting=DESC/],
  ];
  for (const [cursor, o, s, message] of cases) {
    const err = rejection(() => decodeCursor(cursor, o, s, keysetKinds('settledGames', 'time')));
    expect(isAppError(err) && err.code === 'INVALID_PARAMETER' && err.details?.parameter === 'cursor', cursor).toBe(true);
    expect((err as Error).message).toMatch(message);
  }
});
