/**
 * The 8-day segment rollups of migration 0026 (docs/design.md §7 "Segments at the block edges"):
 * ru_seg_user, ru_seg_user_c and ru_seg_user_t equal a brute-force grouping of the stored games
 * (every column, every key); migration 0026's fill from the day rollups gives the same rows as the
 * write path; the split of a day range into whole blocks, segments and days (with and without
 * complements) counts every day of the range exactly once and nothing else; and the reads that
 * use segments (`/house-edge?groupBy=player` and the `/players` top-N over windows) equal the brute
 * force over the games for random windows. Rebuild == incremental for these tables is
 * test/store/rebuild.test.ts (every derived table); the top-N's own brute force is
 * test/store/topn.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY } from '../../src/core/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import { listedSegmentSpans, segmentsOf } from '../../src/store/queries/common.js';
import { testDialects } from '../helpers/store.js';
import { expectSameRows, groupGames as group, loadedPlace, u64Of, undoMigrationsFrom, type Game } from '../helpers/derived.js';

const segOfGame = (g: Game) => Math.floor(Math.floor(Number(g.time_ms) / MS_PER_DAY) / 8);

describe('listedSegmentSpans', () => {
  it('whole blocks, segments and days (minus the subtracted days) count every day of [first, end) once, and nothing else', () => {
    // Every start in the first three blocks, with lengths from 0 to 130 days.
    const cases: [number, number][] = [[10, 5]];
    for (let first = 0; first < 96; first++) for (let n = 0; n <= 130; n += 3) cases.push([first, first + n]);
    let complemented = 0;
    for (const [first, end] of cases) {
      for (const complements of [false, true]) {
        const s = listedSegmentSpans(first, end, complements);
        const count = new Array<number>(240).fill(0);
        const add = (d: number, n: number) => (count[d] = count[d]! + n);
        for (const b of s.blocks) for (let d = b * 32; d < (b + 1) * 32; d++) add(d, 1);
        for (const g of s.segs) for (let d = g * 8; d < (g + 1) * 8; d++) add(d, 1);
        for (const d of s.days) add(d, 1);
        for (const d of s.minusDays) add(d, -1);
        expect(count, `[${first}, ${end}) complements ${complements}`).toEqual(count.map((_, d) => (d >= first && d < end ? 1 : 0)));
        // A unit is never listed twice, and a subtracted day is never also added.
        expect(new Set(s.segs).size).toBe(s.segs.length);
        expect(s.days.filter((d) => s.minusDays.includes(d))).toEqual([]);
        // Few rows: at most 3 segments and 7 days a side, or 4 segments and 4 days (added or subtracted) with complements.
        expect(s.segs.length).toBeLessThanOrEqual(complements ? 8 : 6);
        expect(s.days.length + s.minusDays.length).toBeLessThanOrEqual(complements ? 8 : 14);
        if (s.minusDays.length > 0) complemented++;
      }
    }
    expect(complemented).toBeGreaterThan(1000);
  });

  it('takes a segment whose days after the newest stored day are not listed, up to the window\'s end', () => {
    // Days 17..21 listed, 22 and 23 after the newest stored day (21): segment 2 (days 16..23) lacks day 16.
    expect(segmentsOf([17, 18, 19, 20, 21], 21)).toEqual({ segs: [], days: [17, 18, 19, 20, 21] });
    expect(segmentsOf([16, 17, 18, 19, 20, 21], 21)).toEqual({ segs: [2], days: [] });
    expect(segmentsOf([16, 17, 18, 19, 20, 21], 22)).toEqual({ segs: [], days: [16, 17, 18, 19, 20, 21] });
    // A closed window ending on day 23 (its cut day): day 23 is not the window's, so not filled.
    expect(segmentsOf([16, 17, 18, 19, 20, 21], 21, 23)).toEqual({ segs: [], days: [16, 17, 18, 19, 20, 21] });
    expect(segmentsOf([16, 17, 18, 19, 20, 21], 21, 24)).toEqual({ segs: [2], days: [] });
  });
});

describe.each(testDialects())('segment rollups (%s)', (dialect) => {
  it('equal the brute force over the stored games; migration 0026 fills the same rows; windows by player equal the brute force', async () => {
    const { place, store, db, games } = await loadedPlace(dialect, 'segments', { seed: 43, poolChanges: 60 });
    try {
      expect(games.length).toBeGreaterThan(1000);
      expect(new Set(games.map(segOfGame)).size).toBeGreaterThan(30);

      const want = {
        ru_seg_user: group(games, ['seg', 'player'], (g) => [segOfGame(g), g.player as string]),
        ru_seg_user_c: group(games, ['seg', 'creator', 'player'], (g) => [segOfGame(g), g.creator as string, g.player as string]),
        ru_seg_user_t: group(games, ['seg', 'player', 'token'], (g) => [segOfGame(g), g.player as string, g.token as string]),
      };
      const written = { ru_seg_user: await place.rows('ru_seg_user'), ru_seg_user_c: await place.rows('ru_seg_user_c'), ru_seg_user_t: await place.rows('ru_seg_user_t') };
      for (const t of ['ru_seg_user', 'ru_seg_user_c', 'ru_seg_user_t'] as const) expectSameRows(t, written[t], want[t], 'brute force');

      // Random windows whose edges hold segments: /house-edge by player (segments minus days) and
      // the /players top-N (segments as parts and as lists), each against the games.
      const t0 = Math.min(...games.map((g) => Number(g.time_ms)));
      const t1 = Math.max(...games.map((g) => Number(g.time_ms)));
      let seed = 7;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
      for (let i = 0; i < 10; i++) {
        const a = Math.floor(t0 + rand() * (t1 - t0) * 0.7);
        const b = i % 3 === 0 ? undefined : Math.floor(a + 9 * MS_PER_DAY + rand() * (t1 - a));
        const inWindow = games.filter((g) => Number(g.time_ms) >= a && (b === undefined || Number(g.time_ms) < b));
        const label = `[${a}, ${b})`;
        const got = await store.queries.houseEdge({ groupBy: 'player', startTime: a, endTime: b, limit: 100_000 });
        const edge = group(inWindow, ['k', 'token'], (g) => [g.player as string, g.token as string]);
        expect(got.results.map((r) => [r.key, r.token, r.plays, r.wins, String(r.wager), String(r.payout)]), label).toEqual(
          edge.map((w) => [w.k, w.token, Number(w.plays), Number(w.wins), u64Of(w, 'wager'), u64Of(w, 'payout')]),
        );
        const byPlayer = new Map<string, { plays: number; usd: number }>();
        for (const g of inWindow) {
          const e = byPlayer.get(g.player as string) ?? { plays: 0, usd: 0 };
          e.plays += 1;
          e.usd += Number(g.usd_wager ?? 0);
          byPlayer.set(g.player as string, e);
        }
        const ranking = [...byPlayer].sort((x, y) => y[1].usd - x[1].usd || (x[0] < y[0] ? -1 : 1));
        const top = await store.queries.players({ sortBy: 'usd_volume', startTime: a, endTime: b, limit: 5, offset: 0 });
        expect(top.results.map((r) => [r.user, r.total_plays]), label).toEqual(ranking.slice(0, 5).map(([p, e]) => [p, e.plays]));
      }
      await store.close();

      // Migration 0026 on a database that predates it: the same rows, filled from the day rollups.
      const migrator = createMigrator(db, dialect === 'sqlite' ? sqliteAdapter : postgresAdapter, place.config.kind === 'postgres' ? place.config.schema : undefined);
      await undoMigrationsFrom(place, '0026_segment_rollups', migrator);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      for (const t of ['ru_seg_user', 'ru_seg_user_c', 'ru_seg_user_t'] as const) expectSameRows(t, await place.rows(t), written[t], 'migration 0026');
    } finally {
      await db.destroy();
      await place.close();
    }
  });
});
