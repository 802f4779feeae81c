/**
 * Players active in a window (store/queries/window-players.ts activePlayers), every way it counts
 * them: directly from the last_ms indexes, as the player counters minus the players whose last
 * play is before the window, and as the previous-active-day counts of the whole days after the
 * start day plus the players whose last play is on that day. Each must equal the distinct players
 * of the fixture's games at or after `since`, overall, per creator and for one creator.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { activePlayers } from '../../src/store/queries/window-players.js';
import type { Database } from '../../src/store/schema.js';
import { generateFixture, loadFixture, type Fixture } from '../helpers/fixture.js';

let dir: string;
let store: Store;
let raw: BetterSqlite3.Database;
let db: Kysely<Database>;
let f: Fixture;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gamba-active-'));
  const path = join(dir, 'gamba.db');
  store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path } });
  f = generateFixture({ seed: 17, games: 1200, poolChanges: 20 });
  await loadFixture(store, f);
  raw = new BetterSqlite3(path, { readonly: true });
  raw.defaultSafeIntegers(true);
  db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
});
afterAll(async () => {
  await db?.destroy();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** creator ('' = all) → distinct players with a game at or after `since`, from the fixture. */
function expected(since: number, byCreator: boolean, creator?: string): Map<string, number> {
  const sets = new Map<string, Set<string>>();
  for (const e of f.events) {
    if (e.name !== 'GameSettled' || e.blockTime * 1000 < since) continue;
    if (creator !== undefined && e.data.creator !== creator) continue;
    const k = byCreator ? e.data.creator : '';
    if (!sets.has(k)) sets.set(k, new Set());
    sets.get(k)!.add(e.data.user);
  }
  return new Map([...sets].map(([k, s]) => [k, s.size]));
}

/** Drops zero counts (the complement path reports creators with no player left in the window as 0). */
const nonZero = (m: Map<string, number>) => new Map([...m].filter(([, n]) => n !== 0));

describe('activePlayers', () => {
  it('direct, complement and previous-active-day counts equal the distinct players of the window', async () => {
    // Spans ending inside a day and at a day's start (so since falls on 00:00 UTC of its day).
    const dayStart = f.nowMs - (f.nowMs % 86_400_000);
    const spans = [3_600_000, 2 * 86_400_000 + 17, 40 * 86_400_000, 200 * 86_400_000 + 999, 900 * 86_400_000, f.nowMs - (dayStart - 33 * 86_400_000)];
    let checked = 0;
    for (const span of spans) {
      const since = f.nowMs - span;
      for (const shape of [{}, { byCreator: true }, { creator: f.creators[0] }, { creator: f.creators[5] }] as { creator?: string; byCreator?: boolean }[]) {
        const want = expected(since, shape.byCreator === true, shape.creator);
        const label = `${span} ms ${JSON.stringify(shape)}`;
        for (const way of ['direct', 'complement', 'days', undefined] as const) {
          expect(nonZero(await activePlayers(db, since, shape, way)), `${label} ${way ?? 'cheapest'}`).toEqual(want);
        }
        checked++;
      }
    }
    // The windows must actually differ (a fixture where every window holds everyone proves little).
    expect(expected(f.nowMs - 3_600_000, false).get('') ?? 0).toBeLessThan(expected(f.nowMs - 900 * 86_400_000, false).get('')!);
    expect(checked).toBe(24);
  });
});
