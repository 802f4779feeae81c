/**
 * The quarter-hour rollups of migration 0020 (docs/design.md §7 "Bounded windows"): ru_quarter,
 * ru_quarter_c and ru_quarter_p equal a brute-force grouping of the stored games (every column,
 * every key); migration 0020's fill from the raw games gives the same rows as the write path; the
 * cut of a range into days, hours, quarter hours and raw slices covers every millisecond once and
 * reads no raw game when the range's ends are on quarter hours; and sums over random ranges, over
 * the buckets of half-hour and 45-minute zones equal the brute force (open windows and whole
 * API answers in those zones: test/contract/windows.test.ts against its oracle). The cut around
 * UTC midnights (cutAround: whole days plus or minus the parts at the ends) covers every
 * millisecond of a range once and none outside it, counting signs, and its sums equal the brute
 * force for the day and week buckets of Berlin, New York, Sydney and Kolkata, every filter shape
 * and grouping by creator, including groups whose subtracted parts held all their games (absent);
 * asking for a max/min column reads the plain cut and equals the brute force too.
 * Rebuild == incremental for these tables is test/store/rebuild.test.ts (every derived table).
 */
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR, MS_PER_QUARTER, seriesBuckets } from '../../src/core/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import { cut, cutAround, rangeSums, type Piece, type RangeColumn, type RangeSource } from '../../src/store/queries/series.js';
import { testDialects } from '../helpers/store.js';
import { expectSameRows, groupGames, loadedPlace, undoMigrationsFrom, type Game } from '../helpers/derived.js';

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

describe('cutAround', () => {
  it('days plus or minus hours, quarter hours and raw slices count every millisecond of [from, to) once and none outside it; zone buckets subtract', () => {
    let seed = 31;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const base = Date.UTC(2025, 2, 20);
    const cases: [number, number][] = [];
    for (const tz of ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata', 'Asia/Kathmandu']) {
      for (const interval of ['hour', 'day', 'week'] as const) {
        for (const b of seriesBuckets({ startTime: base, endTime: base + 20 * MS_PER_DAY, days: 1, tz, interval, now: base })) cases.push([b.from, b.to]);
      }
    }
    for (let i = 0; i < 400; i++) {
      const from = base + rand(5 * MS_PER_DAY);
      const len = [rand(MS_PER_QUARTER), rand(3 * MS_PER_HOUR), rand(4 * MS_PER_DAY)][i % 3]!;
      cases.push(i % 2 === 0 ? [from - (from % MS_PER_QUARTER), from - (from % MS_PER_QUARTER) + len - (len % MS_PER_QUARTER)] : [from, from + len]);
    }
    let subtracting = 0;
    for (const [from, to] of cases) {
      const days: Piece[] = [], hours: Piece[] = [], quarters: Piece[] = [], raw: Piece[] = [];
      cutAround(from, to, 3, days, hours, quarters, raw);
      const pieces = [
        ...days.map((p) => ({ lo: p.lo * MS_PER_DAY, hi: p.hi * MS_PER_DAY, sign: p.sign })),
        ...[...hours, ...quarters, ...raw].map((p) => ({ lo: p.lo, hi: p.hi, sign: p.sign })),
      ];
      for (const p of [...days, ...hours, ...quarters, ...raw]) expect(p.range).toBe(3);
      for (const p of pieces) expect(p.hi).toBeGreaterThan(p.lo);
      for (const p of hours) expect([p.lo % MS_PER_HOUR, p.hi % MS_PER_HOUR]).toEqual([0, 0]);
      for (const p of quarters) expect([p.lo % MS_PER_QUARTER, p.hi % MS_PER_QUARTER]).toEqual([0, 0]);
      if (from % MS_PER_QUARTER === 0 && to % MS_PER_QUARTER === 0) expect(raw).toEqual([]);
      // Between any two consecutive piece bounds, the signed count of pieces is 1 inside [from, to) and 0 outside.
      const bounds = [...new Set([from, to, ...pieces.flatMap((p) => [p.lo, p.hi])])].sort((x, y) => x - y);
      for (let i = 0; i + 1 < bounds.length; i++) {
        const at = bounds[i]!;
        const count = pieces.reduce((n, p) => n + (p.lo <= at && at < p.hi ? p.sign : 0), 0);
        expect(count, `[${from}, ${to}) at ${at}`).toBe(at >= from && at < to ? 1 : 0);
      }
      // Never more rows than the plain cut.
      const plain = { days: [] as Piece[], hours: [] as Piece[], quarters: [] as Piece[], raw: [] as Piece[] };
      cut(from, to, 3, plain.days, plain.hours, plain.quarters, plain.raw);
      const rows = (d: Piece[], h: Piece[], q: Piece[], r: Piece[]) =>
        d.reduce((n, p) => n + p.hi - p.lo, 0) + h.reduce((n, p) => n + (p.hi - p.lo) / MS_PER_HOUR, 0) + q.reduce((n, p) => n + (p.hi - p.lo) / MS_PER_QUARTER, 0) + 4 * r.length;
      expect(rows(days, hours, quarters, raw)).toBeLessThanOrEqual(rows(plain.days, plain.hours, plain.quarters, plain.raw));
      if (pieces.some((p) => p.sign === -1)) subtracting++;
    }
    expect(subtracting).toBeGreaterThan(100);
    // A Berlin day (UTC+1): day D, + [D−1 23:00, D 00:00), − [D 23:00, D+1 00:00): 3 rows instead of 24.
    const d = Date.UTC(2025, 0, 10) / MS_PER_DAY;
    const days: Piece[] = [], hours: Piece[] = [], quarters: Piece[] = [], raw: Piece[] = [];
    cutAround((d - 1) * MS_PER_DAY + 23 * MS_PER_HOUR, d * MS_PER_DAY + 23 * MS_PER_HOUR, 0, days, hours, quarters, raw);
    expect({ days, hours, quarters, raw }).toEqual({
      days: [{ lo: d, hi: d + 1, range: 0, sign: 1 }],
      hours: [
        { lo: (d - 1) * MS_PER_DAY + 23 * MS_PER_HOUR, hi: d * MS_PER_DAY, range: 0, sign: 1 },
        { lo: d * MS_PER_DAY + 23 * MS_PER_HOUR, hi: (d + 1) * MS_PER_DAY, range: 0, sign: -1 },
      ],
      quarters: [],
      raw: [],
    });
  });
});

describe.each(testDialects())('quarter-hour rollups (%s)', (dialect) => {
  it('equal the brute force over the stored games; migration 0020 fills the same rows; range sums in any zone equal the brute force', async () => {
    const { place, store, db, games } = await loadedPlace(dialect, 'quarters', { seed: 43, poolChanges: 60 });
    try {
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
      const migrator = createMigrator(db, dialect === 'sqlite' ? sqliteAdapter : postgresAdapter, place.config.kind === 'postgres' ? place.config.schema : undefined);
      await undoMigrationsFrom(place, '0020_quarter_rollups', migrator);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      for (const t of ['ru_quarter', 'ru_quarter_c', 'ru_quarter_p'] as const) expectSameRows(t, await place.rows(t), written[t], 'migration 0020');
    } finally {
      await db.destroy();
      await place.close();
    }
  });

  it('day and week buckets of Berlin, New York, Sydney and Kolkata read as days ± hours equal the brute force, per filter and per creator; a max/min column reads the plain cut', async () => {
    const { place, store, db, f, games: loaded } = await loadedPlace(dialect, 'around', { seed: 47, poolChanges: 60 });
    try {
      const games = [...loaded].sort((x, y) => Number(x.time_ms) - Number(y.time_ms));
      const times = games.map((g) => Number(g.time_ms));
      const t0 = times[0]!;
      const t1 = times[times.length - 1]! + 1;
      /** The games in [from, to), by binary search on the sorted times. */
      const between = (from: number, to: number): Game[] => {
        const at = (t: number) => {
          let lo = 0, hi = times.length;
          while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if (times[mid]! < t) lo = mid + 1;
            else hi = mid;
          }
          return lo;
        };
        return games.slice(at(from), at(to));
      };
      const creator = f.creators[5]!;
      const pool = f.pools.USDC;
      const shapes: { name: string; src: RangeSource; keep: (g: Game) => boolean }[] = [
        { name: 'all', src: { day: 'ru_day', hour: 'ru_hour', filter: {} }, keep: () => true },
        { name: 'creator', src: { day: 'ru_day_c', hour: 'ru_hour_c', filter: { creator } }, keep: (g) => g.creator === creator },
        { name: 'pool', src: { day: 'ru_pool_day', hour: 'ru_hour_p', filter: { pool } }, keep: (g) => g.pool === pool },
        { name: 'by creator', src: { day: 'ru_day_c', hour: 'ru_hour_c', filter: {}, byCreator: true }, keep: () => true },
        { name: 'creator, by creator', src: { day: 'ru_day_c', hour: 'ru_hour_c', filter: { creator }, byCreator: true }, keep: (g) => g.creator === creator },
      ];
      const adapter = dialect === 'sqlite' ? sqliteAdapter : postgresAdapter;
      const sums: RangeColumn[] = ['plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'usd_wager', 'usd_profit'];
      const extremes: RangeColumn[] = ['plays', 'wager_hi', 'wager_lo', 'usd_wager', 'max_usd_profit', 'min_usd_profit', 'first_ms', 'last_ms'];
      let compared = 0, subtracted = 0, zeroed = 0;
      for (const tz of ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata']) {
        for (const interval of ['day', 'week'] as const) {
          const buckets = seriesBuckets({ startTime: t0 - MS_PER_DAY, endTime: t1 + MS_PER_DAY, days: 1, tz, interval, now: t1 });
          const ranges = buckets.map((b) => ({ from: b.from, to: b.to }));
          // The parts each bucket subtracts (cutAround, as rangeSums cuts a sum-only read).
          const minus = ranges.map((r, i) => {
            const ps: Piece[] = [];
            cutAround(r.from, r.to, i, ps, ps, ps, ps);
            return ps.filter((p) => p.sign === -1);
          });
          subtracted += minus.filter((ps) => ps.length > 0).length;
          for (const { name, src, keep } of shapes) {
            for (const columns of [sums, extremes]) {
              const got = await rangeSums(db, adapter, src, ranges, columns);
              ranges.forEach((r, i) => {
                const label = `${tz} ${interval} ${name} ${columns === sums ? 'sums' : 'extremes'} [${new Date(r.from).toISOString()}, ${new Date(r.to).toISOString()})`;
                const want = new Map<string, Game[]>();
                for (const g of between(r.from, r.to)) {
                  if (!keep(g)) continue;
                  const k = src.byCreator ? (g.creator as string) : '';
                  want.set(k, [...(want.get(k) ?? []), g]);
                }
                expect([...got[i]!.keys()].sort(), label).toEqual([...want.keys()].sort());
                for (const [k, gs] of want) {
                  const s = got[i]!.get(k)!;
                  compared++;
                  const u64 = (c: 'wager' | 'payout') => BigInt(s[`${c}_hi`]!) * 2n ** 32n + BigInt(s[`${c}_lo`]!);
                  const total = (c: string) => gs.reduce((x, g) => x + BigInt(g[c] as string), 0n);
                  expect([Number(s.plays), u64('wager')], `${label} ${k}`).toEqual([gs.length, total('wager')]);
                  if (columns === sums) expect([Number(s.jackpots), u64('payout')], `${label} ${k}`).toEqual([gs.filter((g) => Number(g.is_jackpot) === 1).length, total('payout')]);
                  else {
                    const profits = gs.map((g) => Number(g.usd_profit ?? 0));
                    const ts = gs.map((g) => Number(g.time_ms));
                    expect([Number(s.max_usd_profit), Number(s.min_usd_profit), Number(s.first_ms), Number(s.last_ms)], `${label} ${k}`).toEqual([
                      Math.max(0, ...profits), Math.min(0, ...profits), Math.min(...ts), Math.max(...ts),
                    ]);
                  }
                  // USD doubles: equal up to summation order (1e-9 relative, as test/helpers/derived.ts).
                  for (const c of columns === sums ? ['usd_wager', 'usd_profit'] : ['usd_wager']) {
                    const usd = gs.reduce((x, g) => x + Number(g[c] ?? 0), 0);
                    expect(Math.abs(Number(s[c as RangeColumn]) - usd), `${label} ${k} ${c}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(usd)));
                  }
                }
                // Groups absent from the range but with games in what it subtracts: their sums went to 0 and they were dropped.
                if (columns === sums) {
                  const inMinus = new Set(minus[i]!.flatMap((p) => (p.lo > 1e9 ? between(p.lo, p.hi) : [])).filter(keep).map((g) => (src.byCreator ? (g.creator as string) : '')));
                  zeroed += [...inMinus].filter((k) => !want.has(k)).length;
                }
              });
            }
          }
        }
      }
      expect(compared).toBeGreaterThan(2000);
      expect(subtracted).toBeGreaterThan(500);
      expect(zeroed).toBeGreaterThan(50);
      await store.close();
    } finally {
      await db.destroy();
      await place.close();
    }
  });
});
