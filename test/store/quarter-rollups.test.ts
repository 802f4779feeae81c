/**
 * The quarter-hour rollups of migration 0020 (docs/design.md §7 "Bounded windows"): ru_quarter,
 * ru_quarter_c and ru_quarter_p equal a brute-force grouping of the stored games (every column,
 * every key); migration 0020's fill from the raw games gives the same rows as the write path; the
 * cut of a range into days, hours, quarter hours and raw slices covers every millisecond once and
 * reads no raw game when the range's ends are on quarter hours; and sums over random ranges, over
 * the buckets of half-hour and 45-minute zones equal the brute force (open windows and whole
 * API answers in those zones: test/contract/windows.test.ts against its oracle).
 * Rebuild == incremental for these tables is test/store/rebuild.test.ts (every derived table).
 */
import { describe, expect, it } from 'vitest';
import { createCommon, MS_PER_DAY, MS_PER_HOUR, MS_PER_QUARTER } from '../../src/core/index.js';
import { createStore } from '../../src/store/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import { cut, rangeSums, type Piece } from '../../src/store/queries/series.js';
import { loadFixture } from '../helpers/contract-world.js';
import { generateFixture } from '../helpers/fixture.js';
import { testDialects } from '../helpers/store.js';
import { expectSameRows, kyselyOn, groupGames, openPlace, type Game } from '../helpers/derived.js';

const quarterOfGame = (g: Game) => Math.floor(Number(g.time_ms) / MS_PER_QUARTER) * MS_PER_QUARTER;

describe('cut', () => {
  it('days, hours, quarter hours and raw slices cover [from, to) once, each aligned to its unit; quarter-hour ends read no raw game', () => {
    let seed = 23;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const base = 1_700_000_000_000;
    const cases: [number, number][] = [[base, base + 3 * MS_PER_DAY], [base + 1, base + 2], [base - (base % MS_PER_QUARTER), base - (base % MS_PER_QUARTER) + 5 * MS_PER_QUARTER]];
    for (let i = 0; i < 400; i++) {
      const from = base + rand(5 * MS_PER_DAY);
      const len = [rand(MS_PER_QUARTER), rand(3 * MS_PER_HOUR), rand(4 * MS_PER_DAY)][i % 3]!;
      // A third of the ranges start and end on quarter hours (the buckets of every time zone).
      cases.push(i % 3 === 0 ? [from - (from % MS_PER_QUARTER), from - (from % MS_PER_QUARTER) + len - (len % MS_PER_QUARTER)] : [from, from + len]);
    }
    for (const [from, to] of cases) {
      const days: Piece[] = [], hours: Piece[] = [], quarters: Piece[] = [], raw: Piece[] = [];
      cut(from, to, 7, days, hours, quarters, raw);
      const spans: [number, number][] = [
        ...days.map((p) => [p.lo * MS_PER_DAY, p.hi * MS_PER_DAY] as [number, number]),
        ...hours.map((p) => [p.lo, p.hi] as [number, number]),
        ...quarters.map((p) => [p.lo, p.hi] as [number, number]),
        ...raw.map((p) => [p.lo, p.hi] as [number, number]),
      ].sort((x, y) => x[0] - y[0]);
      // Contiguous, non-empty, exactly [from, to).
      let at = from;
      for (const [lo, hi] of spans) {
        expect(lo, `[${from}, ${to})`).toBe(at);
        expect(hi).toBeGreaterThan(lo);
        at = hi;
      }
      expect(at).toBe(from < to ? to : from);
      for (const p of [...days, ...hours, ...quarters, ...raw]) expect(p.range).toBe(7);
      for (const p of hours) expect([p.lo % MS_PER_HOUR, p.hi % MS_PER_HOUR]).toEqual([0, 0]);
      for (const p of quarters) expect([p.lo % MS_PER_QUARTER, p.hi % MS_PER_QUARTER, (p.hi - p.lo) / MS_PER_QUARTER < 8]).toEqual([0, 0, true]);
      // A raw slice never holds a whole quarter hour.
      for (const p of raw) expect(Math.ceil(p.lo / MS_PER_QUARTER) * MS_PER_QUARTER + MS_PER_QUARTER > p.hi).toBe(true);
      if (from % MS_PER_QUARTER === 0 && to % MS_PER_QUARTER === 0) expect(raw).toEqual([]);
    }
  });
});

describe.each(testDialects())('quarter-hour rollups (%s)', (dialect) => {
  it('equal the brute force over the stored games; migration 0020 fills the same rows; range sums in any zone equal the brute force', async () => {
    const place = await openPlace(dialect, 'quarters');
    const store = await createStore({ common: createCommon(), config: place.config });
    const db = kyselyOn(place);
    try {
      const f = generateFixture({ seed: 43, games: 1500, poolChanges: 60 });
      await loadFixture(store, f, 'split');
      const games = (await db.selectFrom('games').selectAll().execute()) as Game[];
      expect(games.length).toBeGreaterThan(1000);
      // Several games share a quarter hour, so rows merge deltas.
      expect(new Set(games.map(quarterOfGame)).size).toBeLessThan(games.length);

      const want = {
        ru_quarter: groupGames(games, ['quarter_ms'], (g) => [quarterOfGame(g)]),
        ru_quarter_c: groupGames(games, ['creator', 'quarter_ms'], (g) => [g.creator as string, quarterOfGame(g)]),
        ru_quarter_p: groupGames(games, ['pool', 'quarter_ms', 'token'], (g) => [g.pool as string, quarterOfGame(g), g.token as string], true),
      };
      const written = { ru_quarter: await place.rows('ru_quarter'), ru_quarter_c: await place.rows('ru_quarter_c'), ru_quarter_p: await place.rows('ru_quarter_p') };
      for (const t of ['ru_quarter', 'ru_quarter_c', 'ru_quarter_p'] as const) expectSameRows(t, written[t], want[t], 'brute force');

      // Range sums: random ranges, the hour buckets of a 45-minute zone (UTC+05:45) and the day
      // buckets of a half-hour zone (UTC+05:30), of every game, one creator and one pool.
      const t0 = Math.min(...games.map((g) => Number(g.time_ms)));
      const t1 = Math.max(...games.map((g) => Number(g.time_ms)));
      let seed = 9;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
      // Random ranges (each alone: they overlap) and two bucket series (each in one call, as a chart reads them).
      const single: { from: number; to: number }[][] = [];
      for (let i = 0; i < 8; i++) {
        const a = Math.floor(t0 + rand() * (t1 - t0));
        single.push([{ from: a, to: Math.floor(a + rand() * (t1 - a)) + 1 }]);
      }
      const kathmanduHours: { from: number; to: number }[] = [];
      const h0 = Math.floor(t0 / MS_PER_HOUR) * MS_PER_HOUR + 15 * 60_000;
      for (let h = h0; h < h0 + 30 * MS_PER_HOUR; h += MS_PER_HOUR) kathmanduHours.push({ from: h, to: h + MS_PER_HOUR });
      const kolkataDays: { from: number; to: number }[] = [];
      const d0 = Math.floor(t0 / MS_PER_DAY) * MS_PER_DAY - 330 * 60_000;
      for (let d = d0; d < t1; d += MS_PER_DAY) kolkataDays.push({ from: d, to: d + MS_PER_DAY });
      const creator = games[17]!.creator as string;
      const pool = games[29]!.pool as string;
      const sources = [
        { src: { day: 'ru_day', hour: 'ru_hour', filter: {} }, keep: (_g: Game) => true },
        { src: { day: 'ru_day_c', hour: 'ru_hour_c', filter: { creator } }, keep: (g: Game) => g.creator === creator },
        { src: { day: 'ru_pool_day', hour: 'ru_hour_p', filter: { pool } }, keep: (g: Game) => g.pool === pool },
      ] as const;
      const adapter = dialect === 'sqlite' ? sqliteAdapter : postgresAdapter;
      let compared = 0;
      for (const { src, keep } of sources) {
        for (const ranges of [...single, kathmanduHours, kolkataDays]) {
          const got = await rangeSums(db, adapter, src, ranges, ['plays', 'wager_hi', 'wager_lo', 'usd_wager', 'last_ms']);
          ranges.forEach((r, i) => {
            const inRange = games.filter((g) => keep(g) && Number(g.time_ms) >= r.from && Number(g.time_ms) < r.to);
            const s = got[i]!.get('');
            const label = `${src.hour} [${r.from}, ${r.to})`;
            if (inRange.length === 0) return expect(s, label).toBeUndefined();
            compared++;
            expect([Number(s!.plays), BigInt(s!.wager_hi!) * 2n ** 32n + BigInt(s!.wager_lo!), Number(s!.last_ms)], label).toEqual([
              inRange.length,
              inRange.reduce((x, g) => x + BigInt(g.wager as string), 0n),
              Math.max(...inRange.map((g) => Number(g.time_ms))),
            ]);
            // USD doubles: equal up to summation order (1e-9 relative, as test/helpers/derived.ts).
            const usd = inRange.reduce((x, g) => x + Number(g.usd_wager ?? 0), 0);
            expect(Math.abs(Number(s!.usd_wager) - usd), label).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(usd)));
          });
        }
      }
      expect(compared).toBeGreaterThan(50);
      await store.close();

      // Migration 0020 on a database that predates it: the same rows, filled from the raw games.
      for (const t of ['ru_quarter', 'ru_quarter_c', 'ru_quarter_p']) await place.exec(`drop table ${t}`);
      await place.exec(`delete from schema_migrations where name = '0020_quarter_rollups'`);
      const migrator = createMigrator(db, dialect === 'sqlite' ? sqliteAdapter : postgresAdapter, place.config.kind === 'postgres' ? place.config.schema : undefined);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      for (const t of ['ru_quarter', 'ru_quarter_c', 'ru_quarter_p'] as const) expectSameRows(t, await place.rows(t), written[t], 'migration 0020');
    } finally {
      await db.destroy();
      await place.close();
    }
  });
});
