/**
 * The per player × token × hour rollup of migration 0027 (docs/design.md §7 "Hours of the cut
 * days"): ru_hour_user_t equals a brute-force grouping of the stored games (every column, every
 * key); migration 0027's fill from the raw games gives the same rows as the write path; and the
 * reads that take a window's cut days from it — the rows of a windowed `/players` top-N page and
 * `/house-edge?groupBy=player` — equal the brute force over the games for windows whose ends fall
 * inside an hour, on an hour, and within the last hour of a day (no whole hour in the cut part);
 * and so does the summing path of windowed `/players`, which reads its cut days the same way, of
 * every token and of one.
 * Rebuild == incremental for this table is test/store/rebuild.test.ts (every derived table).
 */
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from '../../src/core/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import { topWindow } from '../../src/store/queries/topn.js';
import { testDialects } from '../helpers/store.js';
import { expectSameRows, groupGames as group, loadedPlace, u64Of, undoMigrationsFrom, type Game, type Row } from '../helpers/derived.js';

const dayOfGame = (g: Game) => Math.floor(Number(g.time_ms) / MS_PER_DAY);
const hourOfGame = (g: Game) => Math.floor(Number(g.time_ms) / MS_PER_HOUR) * MS_PER_HOUR;
const near = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));

describe.each(testDialects())('hour × player rollups (%s)', (dialect) => {
  it('equal the brute force over the stored games; migration 0027 fills the same rows; the cut days of windowed pages read from them equal the brute force', async () => {
    const { place, store, db, games } = await loadedPlace(dialect, 'hours', { seed: 47, poolChanges: 40 });
    const a = dialect === 'sqlite' ? sqliteAdapter : postgresAdapter;
    try {
      expect(games.length).toBeGreaterThan(1000);
      const want = group(games, ['day', 'player', 'token', 'hour_ms'], (g) => [dayOfGame(g), g.player as string, g.token as string, hourOfGame(g)]);
      // Some player has several games in one hour (rows are sums, not copies of games).
      expect(want.some((r) => Number(r.plays) > 1)).toBe(true);
      const written = await place.rows('ru_hour_user_t');
      expectSameRows('ru_hour_user_t', written, want, 'brute force');

      const t0 = Math.min(...games.map((g) => Number(g.time_ms)));
      const t1 = Math.max(...games.map((g) => Number(g.time_ms)));
      let seed = 11;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
      let pages = 0;
      for (let i = 0; i < 12; i++) {
        // Ends inside an hour, on an hour (whole hours only), or within the last hour of their day
        // (the cut part is raw games alone); every third window open towards now.
        const at = (t: number): number => {
          if (i % 3 === 1) return Math.floor(t / MS_PER_HOUR) * MS_PER_HOUR;
          if (i % 3 === 2) return (Math.floor(t / MS_PER_DAY) + 1) * MS_PER_DAY - Math.floor(rand() * MS_PER_HOUR);
          return Math.floor(t);
        };
        const start = at(t0 + rand() * (t1 - t0) * 0.6);
        const end = i % 3 === 0 ? undefined : at(start + 3 * MS_PER_DAY + rand() * (t1 - start));
        const label = `[${start}, ${end})`;
        const inWindow = games.filter((g) => Number(g.time_ms) >= start && (end === undefined || Number(g.time_ms) < end));

        // The top-N page's rows: every column of each player, from the window's parts.
        const byPlayer = new Map<string, Row>(group(inWindow, ['player'], (g) => [g.player as string]).map((r) => [String(r.player), r]));
        const top = await topWindow(db, a, { sortBy: 'usd_volume' }, start, end, 5);
        if (top) {
          pages++;
          for (const r of top.rows) {
            const w = byPlayer.get(String(r.player))!;
            expect(w, `${label} ${String(r.player)}`).toBeDefined();
            const what = `${label} ${String(r.player)}`;
            expect(Number(r.plays), what).toBe(Number(w.plays));
            expect(Number(r.wins), what).toBe(Number(w.wins));
            expect(String(BigInt(String(r.wager_hi)) * 2n ** 32n + BigInt(String(r.wager_lo))), what).toBe(u64Of(w, 'wager'));
            expect(String(BigInt(String(r.payout_hi)) * 2n ** 32n + BigInt(String(r.payout_lo))), what).toBe(u64Of(w, 'payout'));
            expect(near(Number(r.usd_wager), Number(w.usd_wager)), what).toBe(true);
            expect(near(Number(r.usd_net), Number(w.usd_net)), what).toBe(true);
            expect(near(Number(r.max_usd_profit), Number(w.max_usd_profit)), what).toBe(true);
            expect([Number(r.first_ms), Number(r.last_ms)], what).toEqual([Number(w.first_ms), Number(w.last_ms)]);
          }
        }

        // The summing path (a page deeper than the top-N serves), of every token and of one: each
        // player's plays, USD volume and (one token) token volume, against the games.
        const token = String(games[i * 97 % games.length]!.token);
        for (const t of [undefined, token]) {
          const kept = inWindow.filter((g) => t === undefined || g.token === t);
          const sums = new Map(group(kept, ['player'], (g) => [g.player as string]).map((r) => [String(r.player), r]));
          const got = await store.queries.players({ sortBy: 'usd_volume', startTime: start, endTime: end, limit: 1000, offset: 0, ...(t ? { token: t } : {}) });
          const what = `${label} token ${t ?? 'any'}`;
          expect(got.results.map((r) => r.user).sort(), what).toEqual([...sums.keys()].sort());
          for (const r of got.results) {
            const w = sums.get(r.user)!;
            expect(r.total_plays, `${what} ${r.user}`).toBe(Number(w.plays));
            expect(near(r.usd_volume, Number(w.usd_wager)), `${what} ${r.user}`).toBe(true);
            if (t) expect(String(r.token_volume), `${what} ${r.user}`).toBe(u64Of(w, 'wager'));
          }
        }

        // /house-edge by player: the whole window in one page, and in pages of 7 by keyset.
        const edge = group(inWindow, ['k', 'token'], (g) => [g.player as string, g.token as string]);
        const rowsOf = (rs: { key: string; token: string; plays: number; wins: number; wager: bigint; payout: bigint; expected_payout: bigint; usd_wager: number }[]) =>
          rs.map((r) => [r.key, r.token, r.plays, r.wins, String(r.wager), String(r.payout), String(r.expected_payout)]);
        const expected = edge.map((w) => [w.k, w.token, Number(w.plays), Number(w.wins), u64Of(w, 'wager'), u64Of(w, 'payout'), u64Of(w, 'expected')]);
        const whole = await store.queries.houseEdge({ groupBy: 'player', startTime: start, endTime: end, limit: 100_000 });
        expect(rowsOf(whole.results), label).toEqual(expected);
        whole.results.forEach((r, j) => expect(near(r.usd_wager, Number(edge[j]!.usd_wager)), `${label} ${r.key}`).toBe(true));
        const paged: typeof whole.results = [];
        let after: typeof whole.next = null;
        do {
          const p = await store.queries.houseEdge({ groupBy: 'player', startTime: start, endTime: end, limit: 7, ...(after ? { after } : {}) });
          paged.push(...p.results);
          after = p.next;
        } while (after);
        expect(rowsOf(paged), `${label} pages of 7`).toEqual(expected);
      }
      // The top-N's own method answered most windows (else its rows were not read here).
      expect(pages).toBeGreaterThan(6);
      await store.close();

      // Migration 0027 on a database that predates it: the same rows, filled from the raw games.
      const migrator = createMigrator(db, a, place.config.kind === 'postgres' ? place.config.schema : undefined);
      await undoMigrationsFrom(place, '0027_hour_user_rollups', migrator);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expectSameRows('ru_hour_user_t', await place.rows('ru_hour_user_t'), written, 'migration 0027');
    } finally {
      await db.destroy();
      await place.close();
    }
  });
});
