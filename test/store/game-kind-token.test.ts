/**
 * The game kind × token rollups of migration 0022 (docs/design.md §10 "House edge"):
 * ru_block_game_t, ru_day_game_t and ru_hour_game_t equal a brute-force grouping of the stored
 * games (every column, every key); migration 0022's fill gives the same rows as the write path;
 * and `/house-edge?groupBy=game|token` over random windows — whole blocks, edge days, cut days
 * read as whole hours plus under an hour of raw games at each end — with and without a token
 * filter equals the brute force over the games. Rebuild == incremental for these tables is
 * test/store/rebuild.test.ts (every derived table); their reads' plans, test/perf/plans.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from '../../src/core/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import { testDialects } from '../helpers/store.js';
import { expectSameRows, groupGames as group, loadedPlace, u64Of, undoMigrationsFrom, type Game } from '../helpers/derived.js';

const dayOf = (g: Game) => Math.floor(Number(g.time_ms) / MS_PER_DAY);

describe.each(testDialects())('game kind × token rollups (%s)', (dialect) => {
  it('equal the brute force over the stored games; migration 0022 fills the same rows; /house-edge by game and token over random windows equals the brute force', async () => {
    const { place, store, db, games } = await loadedPlace(dialect, 'kind_token', { seed: 52, poolChanges: 40 });
    try {
      expect(games.length).toBeGreaterThan(1000);
      expect(new Set(games.map((g) => Math.floor(dayOf(g) / 32))).size).toBeGreaterThan(8);
      expect(new Set(games.map((g) => g.game_kind)).size).toBeGreaterThan(2);

      const kinds = (unit: string, of: (g: Game) => number) => group(games, [unit, 'game_kind', 'token'], (g) => [of(g), String(g.game_kind), String(g.token)]);
      const want = {
        ru_block_game_t: kinds('block', (g) => Math.floor(dayOf(g) / 32)),
        ru_day_game_t: kinds('day', dayOf),
        ru_hour_game_t: kinds('hour_ms', (g) => Math.floor(Number(g.time_ms) / MS_PER_HOUR) * MS_PER_HOUR),
      };
      const written = { ru_block_game_t: await place.rows('ru_block_game_t'), ru_day_game_t: await place.rows('ru_day_game_t'), ru_hour_game_t: await place.rows('ru_hour_game_t') };
      for (const t of ['ru_block_game_t', 'ru_day_game_t', 'ru_hour_game_t'] as const) expectSameRows(t, written[t], want[t], 'brute force');

      // Windows with ends anywhere (inside an hour, on an hour, on a midnight), open or closed,
      // short (inside one day or one hour) or long (many blocks).
      const t0 = Math.min(...games.map((g) => Number(g.time_ms)));
      const t1 = Math.max(...games.map((g) => Number(g.time_ms)));
      let seed = 9;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
      const windows: [number | undefined, number | undefined][] = [];
      for (let i = 0; i < 14; i++) {
        let a = Math.floor(t0 + rand() * (t1 - t0));
        if (i % 7 === 3) a = Math.floor(a / MS_PER_HOUR) * MS_PER_HOUR;
        if (i % 7 === 5) a = Math.floor(a / MS_PER_DAY) * MS_PER_DAY;
        const span = i % 3 === 0 ? rand() * 2 * MS_PER_HOUR : i % 3 === 1 ? rand() * 3 * MS_PER_DAY : rand() * (t1 - a + MS_PER_DAY);
        windows.push([i % 5 === 0 ? undefined : a, i % 4 === 0 ? undefined : Math.floor(a + span)]);
      }
      const token = String(games[0]!.token);
      let compared = 0;
      for (const [start, end] of windows) {
        const inWindow = games.filter((g) => (start === undefined || Number(g.time_ms) >= start) && (end === undefined || Number(g.time_ms) < end));
        for (const [groupBy, filter] of [['game', {}], ['token', {}], ['game', { token }], ['token', { token }]] as const) {
          const got = await store.queries.houseEdge({ groupBy, ...filter, startTime: start, endTime: end, limit: 100_000 });
          const rows = 'token' in filter ? inWindow.filter((g) => g.token === filter.token) : inWindow;
          const byKey = groupBy === 'game' ? group(rows, ['k', 'token'], (g) => [String(g.game_kind), String(g.token)]) : group(rows, ['k'], (g) => [String(g.token)]);
          const label = `${groupBy} ${JSON.stringify(filter)} [${start}, ${end})`;
          expect(
            got.results.map((r) => [r.key, r.token, r.plays, r.wins, r.jackpots, String(r.wager), String(r.payout), String(r.jackpot), String(r.expected_payout)]),
            label,
          ).toEqual(byKey.map((w) => [w.k, groupBy === 'game' ? w.token : w.k, Number(w.plays), Number(w.wins), Number(w.jackpots), u64Of(w, 'wager'), u64Of(w, 'payout'), u64Of(w, 'jackpot'), u64Of(w, 'expected')]));
          // USD sums: equal up to summation order.
          got.results.forEach((r, i) => expect(Math.abs(r.usd_wager - Number(byKey[i]!.usd_wager)), label).toBeLessThanOrEqual(1e-9 * Math.max(1, Number(byKey[i]!.usd_wager))));
          compared++;
        }
      }
      expect(compared).toBe(56);
      await store.close();

      // Migration 0022 on a database that predates it: the same rows, filled from the raw games.
      const migrator = createMigrator(db, dialect === 'sqlite' ? sqliteAdapter : postgresAdapter, place.config.kind === 'postgres' ? place.config.schema : undefined);
      await undoMigrationsFrom(place, '0022_game_kind_token', migrator);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      for (const t of ['ru_block_game_t', 'ru_day_game_t', 'ru_hour_game_t'] as const) expectSameRows(t, await place.rows(t), written[t], 'migration 0022');
    } finally {
      await db.destroy();
      await place.close();
    }
  });
});
