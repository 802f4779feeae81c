/**
 * The part copies of the windowed top-N (docs/design.md §7 "Part vectors", src/store/queries/part-vectors.ts):
 * every write that changes a day's rollups raises that day's `rev` in ru_day_rev (migration 0029),
 * whether it stores new games, re-prices stored ones or rebuilds every rollup; and the `vectors`
 * method of topWindow, with copies warmed before each write, still answers what a brute force over
 * the stored games answers after it, with the default cache and with one too small to hold a
 * window's parts.
 */
import { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createCommon, MS_PER_DAY } from '../../src/core/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { partVectorsOf } from '../../src/store/queries/part-vectors.js';
import { prefetchTopN, topWindow, type TopSpec } from '../../src/store/queries/topn.js';
import { kyselyOn, openPlace } from '../helpers/derived.js';
import { generateFixture, type Fixture } from '../helpers/fixture.js';
import { testDialects } from '../helpers/store.js';

interface Game { player: string; time_ms: number; usd: number; profit: number }

async function storedGames(db: Kysely<any>): Promise<Game[]> {
  const rows = (await db.selectFrom('games').select(['player', 'time_ms', 'usd_wager', 'usd_profit']).execute()) as Record<string, unknown>[];
  return rows.map((g) => ({ player: String(g.player), time_ms: Number(g.time_ms), usd: Number(g.usd_wager ?? 0), profit: Number(g.usd_profit ?? 0) }));
}

/** Brute force: players of [start, end) by Σ of the sort's USD value, descending, ties by player ascending. */
function ranking(games: Game[], start: number | undefined, end: number | undefined, sortBy: TopSpec['sortBy']): { player: string; v: number }[] {
  const m = new Map<string, number>();
  for (const g of games) {
    if ((start !== undefined && g.time_ms < start) || (end !== undefined && g.time_ms >= end)) continue;
    m.set(g.player, (m.get(g.player) ?? 0) + (sortBy === 'usd_volume' ? g.usd : g.profit));
  }
  return [...m].map(([player, v]) => ({ player, v })).sort((x, y) => y.v - x.v || (x.player < y.player ? -1 : x.player > y.player ? 1 : 0));
}

/** day → [rev, the day's ru_day row as text] */
async function daySnapshot(db: Kysely<any>): Promise<Map<number, { rev: number; row: string }>> {
  const out = new Map<number, { rev: number; row: string }>();
  for (const r of (await db.selectFrom('ru_day').selectAll().execute()) as Record<string, unknown>[]) {
    out.set(Number(r.day), { rev: 0, row: JSON.stringify(Object.entries(r).map(([k, v]) => [k, String(v)]).sort()) });
  }
  for (const r of (await db.selectFrom('ru_day_rev').selectAll().execute()) as Record<string, unknown>[]) {
    const d = out.get(Number(r.day)) ?? { rev: 0, row: '' };
    out.set(Number(r.day), { ...d, rev: Number(r.rev) });
  }
  return out;
}

/** Every day whose ru_day row changed between the snapshots has a larger rev; `all`: every day with a row does. Returns the days changed. */
function expectRevsRaised(before: Map<number, { rev: number; row: string }>, after: Map<number, { rev: number; row: string }>, label: string, all = false): number {
  let changed = 0;
  for (const [day, a] of after) {
    const b = before.get(day) ?? { rev: 0, row: '' };
    expect(a.rev, `${label}: day ${day}`).toBeGreaterThanOrEqual(b.rev);
    if (a.row !== b.row || (all && a.row !== '')) {
      changed++;
      expect(a.rev, `${label}: day ${day} changed`).toBeGreaterThan(b.rev);
    }
  }
  return changed;
}

/** Transactions split in two: every third one (by position) written later. */
function split(f: Fixture): [LocatedEvent[], LocatedEvent[]] {
  const late = new Set(f.signatures.filter((_, i) => i % 3 === 1).map((s) => s.signature));
  return [f.events.filter((e) => !late.has(e.signature)), f.events.filter((e) => late.has(e.signature))];
}

async function write(store: Store, f: Fixture, events: LocatedEvent[]): Promise<void> {
  const bySig = new Map(f.signatures.map((s) => [s.signature, s]));
  for (let i = 0; i < events.length; ) {
    let j = Math.min(i + 400, events.length);
    while (j < events.length && events[j]!.signature === events[j - 1]!.signature) j++;
    const batch = events.slice(i, j);
    await store.writeBatch({ events: batch, signatures: [...new Set(batch.map((e) => e.signature))].map((s) => bySig.get(s)!) });
    i = j;
  }
}

describe.each(testDialects())('part copies of the windowed top-N (%s)', (dialect) => {
  it('raises the rev of every day a write changes, and the vectors method stays exact across new games, re-pricing and a rebuild', async () => {
    const place = await openPlace(dialect, 'partvectors');
    const store = await createStore({ common: createCommon(), config: place.config });
    // Two handles: the default cache, and one that holds about one block's copy at a time.
    const db = kyselyOn(place);
    const tiny = kyselyOn(place);
    partVectorsOf(tiny, 4 / 1024);
    // And one with the copies off (STORE_COPIES_MIB=0): the default ranking takes another method.
    const off = kyselyOn(place);
    partVectorsOf(off, 0);
    const a = dialect === 'sqlite' ? sqliteAdapter : postgresAdapter;
    try {
      const f = generateFixture({ seed: 41, games: 2500, poolChanges: 30 });
      const [first, later] = split(f);
      await store.upsertMints(f.mints);
      await store.putPrices(f.prices.filter((_, i) => i % 2 === 0));
      await write(store, f, first);
      const games0 = await storedGames(db);
      const t0 = Math.min(...games0.map((g) => g.time_ms));
      const t1 = Math.max(...games0.map((g) => g.time_ms));
      let seed = 5;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
      // Windows with whole blocks inside, cut at random times; some open towards now.
      const windows: [number, number | undefined][] = [];
      for (let i = 0; i < 6; i++) {
        const start = Math.floor(t0 + rand() * (t1 - t0 - 45 * MS_PER_DAY));
        windows.push([start, i % 3 === 0 ? undefined : Math.floor(start + 40 * MS_PER_DAY + rand() * (t1 - start - 40 * MS_PER_DAY))]);
      }
      let answered = 0;
      const check = async (label: string) => {
        const games = await storedGames(db);
        for (const [start, end] of windows) {
          for (const sortBy of ['usd_profit', 'usd_volume'] as const) {
            const want = ranking(games, start, end, sortBy);
            const fallback = await topWindow(off, a, { sortBy }, start, end, 7);
            if (fallback) expect(fallback.rows.map((r) => String(r.player)), `${label} copies off ${sortBy}`).toEqual(want.slice(0, 7).map((w) => w.player));
            for (const [handle, name] of [[db, 'default'], [tiny, 'tiny']] as const) {
              for (const depth of [1, 7]) {
                const top = await topWindow(handle, a, { sortBy }, start, end, depth, undefined, 'vectors');
                if (!top) continue;
                answered++;
                const at = `${label} ${name} ${sortBy} [${start}, ${end}) depth ${depth}`;
                expect(top.total, at).toBe(want.length);
                expect(top.rows.map((r) => String(r.player)), at).toEqual(want.slice(0, depth).map((w) => w.player));
                for (const r of top.rows) expect(Math.abs(Number(r.sk) - want.find((w) => w.player === String(r.player))!.v), at).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(Number(r.sk))));
                // A keyset page after the first row continues the ranking.
                const next = await topWindow(handle, a, { sortBy }, start, end, 3, { sk: Number(top.rows[0]!.sk), player: String(top.rows[0]!.player) }, 'vectors');
                if (next) expect(next.rows.map((r) => String(r.player)), `${at} after`).toEqual(want.slice(1, 4).map((w) => w.player));
              }
            }
          }
        }
      };
      // Copies warmed on the first games.
      await check('first games');
      // A part read a few rows a statement (the background reads' keyset pages) holds what a whole
      // read holds, equal values across a page's edge included.
      const paged = kyselyOn(place);
      try {
        const units = [
          ['ru_block_user', 'block'],
          ['ru_seg_user', 'seg'],
          ['ru_day_user', 'day'],
        ] as const;
        let pagedParts = 0;
        let tiedParts = 0;
        for (const [table, unit] of units) {
          const ns = ((await db.selectFrom(table).select(unit).distinct().execute()) as Record<string, unknown>[]).map((r) => Number(r[unit])).slice(0, 12);
          for (const n of ns) {
            for (const column of ['usd_profit', 'usd_wager']) {
              const ref = { table, unit, n, column };
              const rowsOf = async (handle: Kysely<any>, pageRows?: number) => {
                const { numbering, vectors } = await partVectorsOf(handle).vectors(handle, [ref], pageRows);
                const v = vectors[0]!;
                return [...v.players].map((p, i) => `${numbering.names[p]} ${v.values[i]}`).sort();
              };
              const whole = await rowsOf(db);
              expect(await rowsOf(paged, 3), `${table} ${n} ${column}`).toEqual(whole);
              pagedParts += whole.length > 3 ? 1 : 0;
              const values = whole.map((x) => x.split(' ')[1]);
              if (new Set(values).size < values.length) tiedParts++;
            }
          }
        }
        expect(pagedParts).toBeGreaterThan(20);
        expect(tiedParts).toBeGreaterThan(0);
      } finally {
        await paged.destroy();
      }
      let before = await daySnapshot(db);
      await write(store, f, later);
      let after = await daySnapshot(db);
      expect(expectRevsRaised(before, after, 'new games')).toBeGreaterThan(20);
      await check('new games');
      before = after;
      await store.putPrices(f.prices.filter((_, i) => i % 2 === 1));
      after = await daySnapshot(db);
      expect(expectRevsRaised(before, after, 're-pricing')).toBeGreaterThan(5);
      await check('re-priced');
      before = after;
      await store.rebuildRollups();
      after = await daySnapshot(db);
      expect(expectRevsRaised(before, after, 'rebuild', true)).toBe([...after.values()].filter((d) => d.row !== '').length);
      await check('rebuilt');
      // 4 stages × 6 windows × 2 sorts × 2 handles × 2 depths: the method answered nearly all.
      expect(answered).toBeGreaterThan(4 * 6 * 2 * 2 * 2 * 0.9);
      expect(partVectorsOf(off).enabled).toBe(false);
      expect(partVectorsOf(off).bytesHeld).toBe(0);
      // With the copies off the default ranking never reads a part into one.
      expect(partVectorsOf(off).partsRead).toBe(0);
      expect(partVectorsOf(tiny).bytesHeld).toBeLessThanOrEqual(4096);
      expect(partVectorsOf(db).bytesHeld).toBeGreaterThan(4096);
    } finally {
      await store.close();
      await db.destroy();
      await tiny.destroy();
      await off.destroy();
      await place.close();
    }
  });

  it('prefetches every part a profit window reads, the cut days\' USD wager included, so a first window reads none on demand', async () => {
    const place = await openPlace(dialect, 'partprefetch');
    const store = await createStore({ common: createCommon(), config: place.config });
    const db = kyselyOn(place);
    const a = dialect === 'sqlite' ? sqliteAdapter : postgresAdapter;
    try {
      const f = generateFixture({ seed: 43, games: 2000, poolChanges: 20 });
      await store.upsertMints(f.mints);
      await store.putPrices(f.prices);
      await write(store, f, f.events);
      const games = await storedGames(db);
      const t0 = Math.min(...games.map((g) => g.time_ms));
      const t1 = Math.max(...games.map((g) => g.time_ms));
      const copies = partVectorsOf(db);
      prefetchTopN(db);
      await copies.prefetched();
      const read = copies.partsRead;
      expect(read).toBeGreaterThan(0);
      let answered = 0;
      for (let i = 0; i < 8; i++) {
        // Cut inside a day at both ends (or open towards now), so two cut days are bounded.
        const start = Math.floor(t0 + ((i + 0.37) / 8) * (t1 - t0) * 0.6);
        const end = i % 4 === 0 ? undefined : Math.floor(start + (t1 - start) * 0.8) + 12_345;
        const top = await topWindow(db, a, { sortBy: 'usd_profit' }, start, end, 5, undefined, 'vectors');
        if (!top) continue;
        answered++;
        expect(top.rows.map((r) => String(r.player)), `[${start}, ${end})`).toEqual(ranking(games, start, end, 'usd_profit').slice(0, 5).map((w) => w.player));
      }
      expect(answered).toBeGreaterThan(5);
      expect(copies.partsRead, 'parts read on demand after the prefetch').toBe(read);
    } finally {
      await store.close();
      await db.destroy();
      await place.close();
    }
  });
});
