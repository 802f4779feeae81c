/**
 * The early-stopping top-N of windowed /players?sortBy=usd_volume|usd_profit, of every player or of
 * one creator (docs/design.md §7 "Top-N over a window's parts", src/store/queries/topn.ts): over many random windows (whole blocks, edge days,
 * cut days, open and closed ends) × limits × offsets, the answer equals a brute-force ranking of
 * the stored raw games (Σ usd_wager per player in the window, descending, ties by player address
 * ascending), including ties constructed at the N-th position (a player's games cloned to two other
 * addresses, one sorting before it and one after); the method itself is checked to answer (not
 * fall back) for most windows, and to give the same rows as the summing path; each of its methods
 * (the all-time leaderboard as a bound by USD volume, the scan of every part, the threshold
 * algorithm over the window's parts) is checked alone.
 */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createCommon, MS_PER_DAY } from '../../src/core/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { createStore, type LeaderboardEntry } from '../../src/store/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { thresholdTopN, topWindow, type SortedList, type TopSpec, type TopWindowMethod } from '../../src/store/queries/topn.js';
import { loadFixture } from '../helpers/contract-world.js';
import { generateFixture, type Fixture } from '../helpers/fixture.js';
import { testDialects } from '../helpers/store.js';
import { openPlace, type RawPlace } from '../helpers/derived.js';

function kyselyOn(place: RawPlace): Kysely<any> {
  if (place.config.kind === 'sqlite') return new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(place.config.path) }) });
  const p = new pg.Pool({ connectionString: place.config.url, max: 2, options: `-c search_path=${place.config.schema}` });
  return new Kysely({ dialect: new PostgresDialect({ pool: p }) });
}

/**
 * The fixture plus every game of `tied` cloned to two new addresses (one sorting before it, one
 * after), as more events of the same transaction: the write path then adds the clones' USD values
 * in the same batches and order as the original's, so their sums are the same doubles (exact ties).
 */
function withTies(f: Fixture, tied: string): { f: Fixture; clones: string[] } {
  const before = '1111' + tied.slice(4);
  const after = 'zzzz' + tied.slice(4);
  expect(before < tied && tied < after).toBe(true);
  const events: LocatedEvent[] = [];
  for (const e of f.events) {
    events.push(e);
    if (e.name !== 'GameSettled' || e.data.user !== tied) continue;
    for (const [i, user] of [before, after].entries()) events.push({ ...e, eventIndex: e.eventIndex + 10 * (i + 1), data: { ...e.data, user } } as LocatedEvent);
  }
  return { f: { ...f, events }, clones: [before, after] };
}

interface Game { player: string; creator: string; time_ms: number; usd: number; profit: number; plays: number }

/** Brute force over raw games: Σ of the spec's USD value (volume or profit) and plays per player of [start, end) (of the spec's creator), ranked desc, player asc. */
function oracle(games: Game[], start: number | undefined, end: number | undefined, spec: TopSpec = { sortBy: 'usd_volume' }): { player: string; usd: number; plays: number }[] {
  const m = new Map<string, { player: string; usd: number; plays: number }>();
  for (const g of games) {
    if ((start !== undefined && g.time_ms < start) || (end !== undefined && g.time_ms >= end)) continue;
    if (spec.creator !== undefined && g.creator !== spec.creator) continue;
    const e = m.get(g.player) ?? { player: g.player, usd: 0, plays: 0 };
    e.usd += spec.sortBy === 'usd_volume' ? g.usd : g.profit;
    e.plays += 1;
    m.set(g.player, e);
  }
  return [...m.values()].sort((x, y) => y.usd - x.usd || (x.player < y.player ? -1 : x.player > y.player ? 1 : 0));
}

const near = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));

/**
 * Same ranking: identical players in order (values within float noise of the oracle's sums).
 * With `exactTies` false (the summing path: its GROUP BY adds a tie group's doubles in whatever
 * order the engine feeds them, so equal totals may differ in the last bits), players of a tie
 * group may come in any order; everything else is exact.
 */
function expectRanking(got: LeaderboardEntry[], want: { player: string; usd: number; plays: number }[], label: string, exactTies = true, all = want, sortBy: TopSpec['sortBy'] = 'usd_volume'): void {
  expect(got.length, label).toBe(want.length);
  got.forEach((r, i) => {
    const w = want[i]!;
    expect(near(sortBy === 'usd_volume' ? r.usd_volume : r.usd_profit, w.usd), `${label} #${i}: ${sortBy === 'usd_volume' ? r.usd_volume : r.usd_profit} against ${w.usd}`).toBe(true);
    if (exactTies) {
      expect(r.user, label).toBe(w.player);
      expect(r.total_plays, label).toBe(w.plays);
    }
  });
  if (!exactTies) {
    // Players whose total ties nobody else's in the window are in their exact place.
    const tied = (i: number) => all.filter((o) => o.usd === want[i]!.usd).length > 1;
    got.forEach((r, i) => { if (!tied(i)) expect(r.user, label).toBe(want[i]!.player); });
  }
}

/** Lists of small whole values (many exact ties, thresholds equal to N-th totals) as the method reads them: sorted, in batches. */
function listsOf(rows: Map<string, number>[]): SortedList[] {
  return rows.map((m) => {
    const sorted = [...m].map(([player, v]) => ({ player, v })).sort((x, y) => y.v - x.v || (x.player < y.player ? -1 : 1));
    let pos = 0;
    return { next: async (size: number) => sorted.slice(pos, (pos += size)) };
  });
}

describe('threshold algorithm', () => {
  it('equals the brute-force top-N over random lists full of ties, for every depth', async () => {
    let seed = 3;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    let checked = 0;
    for (let round = 0; round < 400; round++) {
      const players = Array.from({ length: 40 + rand(60) }, (_, i) => `p${String(i).padStart(3, '0')}`);
      const rows = Array.from({ length: 1 + rand(6) }, () => {
        const m = new Map<string, number>();
        // Each list holds a random subset (a player missing from a list adds 0); values 0..4, or
        // -3..4 in odd rounds (USD profit: a missing player's 0 is above a list's negative values).
        for (const p of players) if (rand(3) > 0) m.set(p, round % 2 ? rand(8) - 3 : rand(5));
        return m;
      });
      const totals = new Map<string, number>();
      for (const m of rows) for (const [p, v] of m) totals.set(p, (totals.get(p) ?? 0) + v);
      const want = [...totals].map(([player, sk]) => ({ player, sk })).sort((x, y) => y.sk - x.sk || (x.player < y.player ? -1 : 1));
      for (const depth of [1, 2, 3, 5, 8, 13, 33]) {
        let looked = 0;
        const got = await thresholdTopN(listsOf(rows), async (ps) => ((looked += ps.length), ps.map((player) => ({ player, sk: totals.get(player)! }))), depth, 1e9, 1 + (round % 4));
        expect(got, `round ${round} depth ${depth}`).toEqual(want.slice(0, depth));
        // After a keyset position (a row of the ranking): the rows that follow it.
        const at = want[rand(want.length)]!;
        const keep = (r: { player: string; sk: number }) => r.sk < at.sk || (r.sk === at.sk && r.player > at.player);
        const rest = await thresholdTopN(listsOf(rows), async (ps) => ps.map((player) => ({ player, sk: totals.get(player)! })), depth, 1e9, 1 + (round % 3), keep);
        const from = want.indexOf(at) + 1;
        expect(rest, `round ${round} depth ${depth} after ${at.player}`).toEqual(want.slice(from, from + depth));
        if (looked < totals.size) checked++;
      }
    }
    // Early stopping happened (not every player was looked up) in many cases.
    expect(checked).toBeGreaterThan(100);
  });

  it('keeps reading while the threshold equals the N-th total: an unseen player with that total and a smaller address wins the tie', async () => {
    // Batches of 1 then 2: after two rounds g (total 4 + 1) is the best seen, and the threshold is
    // 1 + 4 = 5 with f unseen: f ties both lists' last values (1, 4) after them by address, total 5,
    // and sorts before g. Stopping at threshold = N-th total would answer g.
    const rows = [new Map([['g', 4], ['b', 1], ['c', 1], ['f', 1]]), new Map([['a', 4], ['d', 4], ['e', 4], ['f', 4], ['g', 1]])];
    const totals = new Map<string, number>();
    for (const m of rows) for (const [p, v] of m) totals.set(p, (totals.get(p) ?? 0) + v);
    const got = await thresholdTopN(listsOf(rows), async (ps) => ps.map((player) => ({ player, sk: totals.get(player)! })), 1, 1e9, 1);
    expect(got).toEqual([{ player: 'f', sk: 5 }]);
  });

  it('gives up (undefined) past its read budget', async () => {
    const rows = [new Map(Array.from({ length: 500 }, (_, i) => [`p${i}`, 1] as [string, number]))];
    expect(await thresholdTopN(listsOf(rows), async (ps) => ps.map((player) => ({ player, sk: 1 })), 10, 100, 10)).toBeUndefined();
  });
});

describe.each(testDialects())('windowed USD volume and profit top-N, all players and one creator (%s)', (dialect) => {
  it('equals the brute-force ranking of the raw games for random windows, limits and offsets, ties at the N-th position included', async () => {
    const place = await openPlace(dialect, 'topn');
    const store = await createStore({ common: createCommon(), config: place.config });
    const db = kyselyOn(place);
    const a = dialect === 'sqlite' ? sqliteAdapter : postgresAdapter;
    try {
      const base = generateFixture({ seed: 77, games: 2500, poolChanges: 40 });
      // The tied player: an active one, so its clones rank high in most windows.
      const { f, clones } = withTies(base, base.users[2]!);
      await loadFixture(store, f, 'prices-first');
      const games = ((await db.selectFrom('games').select(['player', 'creator', 'time_ms', 'usd_wager', 'usd_profit']).execute()) as Record<string, unknown>[]).map(
        (g): Game => ({ player: String(g.player), creator: String(g.creator), time_ms: Number(g.time_ms), usd: Number(g.usd_wager ?? 0), profit: Number(g.usd_profit ?? 0), plays: 1 }),
      );
      const tiedGames = games.filter((g) => g.player === base.users[2]).length;
      expect(tiedGames).toBeGreaterThan(20);
      expect(games.filter((g) => g.player === clones[0]).length).toBe(tiedGames);
      const t0 = Math.min(...games.map((g) => g.time_ms));
      const t1 = Math.max(...games.map((g) => g.time_ms));
      // The tied player's busiest creator: its clones tie within that creator's leaderboard too.
      const byCreator = new Map<string, number>();
      for (const g of games) if (g.player === base.users[2]) byCreator.set(g.creator, (byCreator.get(g.creator) ?? 0) + 1);
      const creator = [...byCreator].sort((x, y) => y[1] - x[1])[0]![0];
      const specs: [TopSpec, number][] = [
        [{ sortBy: 'usd_volume' }, 30],
        [{ sortBy: 'usd_profit' }, 12],
        [{ creator, sortBy: 'usd_volume' }, 12],
        [{ creator, sortBy: 'usd_profit' }, 12],
      ];
      let seed = 9;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
      for (const [spec, windows] of specs) {
        let answered = 0;
        let allTimeAnswered = 0;
        let scanAnswered = 0;
        let vectorsAnswered = 0;
        let tieCases = 0;
        let cases = 0;
        for (let i = 0; i < windows; i++) {
          // Long windows (≥ 40 days: whole blocks inside), cut at random times; some open-ended, some
          // from the start of history; every fifth one 2–12 days (whole days, no whole block).
          const short = i % 5 === 4;
          const start = i % 7 === 3 && !short ? undefined : Math.floor(t0 + rand() * (t1 - t0 - 40 * MS_PER_DAY));
          const from = start ?? t0;
          const end = short
            ? Math.floor(from + (2 + rand() * 10) * MS_PER_DAY)
            : i % 3 === 0 ? undefined : Math.floor(from + 40 * MS_PER_DAY + rand() * (t1 + MS_PER_DAY - from - 40 * MS_PER_DAY));
          if (start === undefined && end === undefined) continue;
          const want = oracle(games, start, end, spec);
          const label = (limit: number, offset: number) => `${JSON.stringify(spec)} [${start}, ${end}) limit ${limit} offset ${offset}`;
          // Limits whose boundary splits the tie group of the cloned player (when it is in the window), and random ones.
          const tieAt = want.findIndex((w) => w.player === clones[0]);
          const pages: [number, number][] = [[1, 0], [5, 0], [10, 3], [1 + Math.floor(rand() * 12), Math.floor(rand() * 8)]];
          if (tieAt >= 0 && want[tieAt]!.usd > 0) {
            expect(want[tieAt + 1]!.player).toBe(base.users[2]);
            expect(want[tieAt + 1]!.usd).toBe(want[tieAt]!.usd);
            pages.push([tieAt + 1, 0], [tieAt + 2, 0], [1, tieAt + 1], [2, tieAt], [1, tieAt]);
            tieCases++;
          }
          // Whether the window is the early-stopping method's (else the summing path answers; see expectRanking).
          const method = (await topWindow(db, a, spec, start, end, 1)) !== undefined;
          const exact = method || dialect === 'sqlite';
          const query = { sortBy: spec.sortBy, creator: spec.creator, startTime: start, endTime: end };
          for (const [limit, offset] of pages) {
            cases++;
            const got = await store.queries.players({ ...query, limit, offset });
            expect(got.total, label(limit, offset)).toBe(want.length);
            expectRanking(got.results, want.slice(offset, offset + limit), label(limit, offset), exact && (offset + limit + 1) * 4 < want.length, want, spec.sortBy);
            expect(got.next === null, label(limit, offset)).toBe(offset + limit >= want.length);
            // The method itself (not the summing fallback) over the same window: as chosen, and by
            // USD volume each set of lists forced (the all-time bound, the window's parts).
            const methods: (TopWindowMethod | undefined)[] = spec.sortBy === 'usd_volume' ? [undefined, 'alltime', 'scan', 'parts', 'vectors'] : [undefined, 'scan', 'parts', 'vectors'];
            for (const m of methods) {
              const top = await topWindow(db, a, spec, start, end, offset + limit + 1, undefined, m);
              if (!top) continue;
              if (m === undefined) answered++;
              if (m === 'alltime') allTimeAnswered++;
              if (m === 'scan') scanAnswered++;
              if (m === 'vectors') vectorsAnswered++;
              expect(top.total).toBe(want.length);
              expect(top.rows.map((r: Record<string, unknown>) => String(r.player)), `${label(limit, offset)} ${m ?? 'chosen'}`).toEqual(want.slice(0, offset + limit + 1).map((w) => w.player));
              for (const r of top.rows) {
                const w = want.find((x) => x.player === String(r.player))!;
                expect(near(Number(r.sk), w.usd), `${label(limit, offset)} ${m ?? 'chosen'} ${String(r.player)}`).toBe(true);
              }
            }
            // A cursor continues where the page ended, without gap or repeat (the method again, with a keyset position).
            if (got.next) {
              const more = await store.queries.players({ ...query, limit: 3, offset: 0, after: got.next });
              expectRanking(more.results, want.slice(offset + limit, offset + limit + 3), `${label(limit, offset)} after`, exact && 16 < want.length, want, spec.sortBy);
            }
          }
        }
        if (spec.creator === undefined && spec.sortBy === 'usd_volume') expect(tieCases).toBeGreaterThan(5);
        // Most windows are answered by the early-stopping method, not the fallback; by USD volume the
        // all-time bound answers most of them on its own.
        expect(answered, JSON.stringify(spec)).toBeGreaterThan(cases / 2);
        if (spec.sortBy === 'usd_volume') expect(allTimeAnswered, JSON.stringify(spec)).toBeGreaterThan(cases / 2);
        // The scan answers every window the method takes (its lists are far below its row cap here).
        expect(scanAnswered, JSON.stringify(spec)).toBe(answered);
        // The bounds separate the page's candidates from the rest in every such window here.
        expect(vectorsAnswered, JSON.stringify(spec)).toBe(answered);
      }
      // Falls back (undefined) for a window without a whole UTC day and for a depth near the window's players.
      const lastDay = Math.floor(t1 / MS_PER_DAY) * MS_PER_DAY;
      expect(await topWindow(db, a, { sortBy: 'usd_volume' }, lastDay + 1000, undefined, 5)).toBeUndefined();
      expect(await topWindow(db, a, { sortBy: 'usd_volume' }, lastDay - MS_PER_DAY + 1000, lastDay + 1000, 5)).toBeUndefined();
      expect(await topWindow(db, a, { sortBy: 'usd_volume' }, t0, undefined, 10_000)).toBeUndefined();
    } finally {
      await store.close();
      await db.destroy();
      await place.close();
    }
  });
});
