/**
 * The 32-day block rollups of migration 0013 (docs/design.md §7 "Bounded windows"): ru_block_daily,
 * ru_block_game and ru_block_user_t equal a brute-force grouping of the stored games (every column, every key);
 * migration 0013's fill from the day rollups gives the same rows as the write path; the split of
 * a day range into whole blocks and edge days covers every day exactly once; and /house-edge over
 * random windows (which read blocks, days and raw edges) equals the brute force over the games.
 * Rebuild == incremental for these tables is test/store/rebuild.test.ts (every derived table).
 */
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY } from '../../src/core/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import { blockSpans } from '../../src/store/queries/common.js';
import { testDialects } from '../helpers/store.js';
import { expectSameRows, groupGames as group, loadedPlace, u64Of, undoMigrationsFrom, type Game } from '../helpers/derived.js';

const blockOfGame = (g: Game) => Math.floor(Math.floor(Number(g.time_ms) / MS_PER_DAY) / 32);

describe('blockSpans', () => {
  it('whole blocks and edge days cover every day of [first, end) exactly once, and nothing else', () => {
    let seed = 17;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const cases: [number | undefined, number | undefined][] = [[undefined, undefined], [undefined, 100], [5, undefined], [64, 128], [63, 129], [10, 20], [32, 33], [40, 40]];
    for (let i = 0; i < 300; i++) cases.push([rand(400), rand(400)]);
    for (const [first, end] of cases) {
      const { blocks, days } = blockSpans(first, end);
      const hits = new Map<number, number>();
      const hit = (d: number) => hits.set(d, (hits.get(d) ?? 0) + 1);
      for (let d = 0; d < 600; d++) {
        if (blocks && (blocks[0] === undefined || Math.floor(d / 32) >= blocks[0]) && (blocks[1] === undefined || Math.floor(d / 32) < blocks[1])) hit(d);
        for (const [a, b] of days) if ((a === undefined || d >= a) && (b === undefined || d < b)) hit(d);
      }
      for (let d = 0; d < 600; d++) {
        const inside = (first === undefined || d >= first) && (end === undefined || d < end);
        expect(hits.get(d) ?? 0, `[${first}, ${end}) day ${d}`).toBe(inside ? 1 : 0);
      }
      // Few rows: at most 31 edge days on each side.
      expect(days.reduce((s, [a, b]) => s + ((b ?? a! + 31) - (a ?? b! - 31)), 0)).toBeLessThanOrEqual(62);
    }
  });
});

describe.each(testDialects())('block rollups (%s)', (dialect) => {
  it('equal the brute force over the stored games; migration 0013 fills the same rows; /house-edge over random windows equals the brute force', async () => {
    const { place, store, db, games } = await loadedPlace(dialect, 'blocks', { seed: 41, poolChanges: 60 });
    try {
      expect(games.length).toBeGreaterThan(1000);
      // The fixture spans many blocks, so whole blocks and edge days are both read.
      expect(new Set(games.map(blockOfGame)).size).toBeGreaterThan(8);

      const daily = group(games, ['block', 'creator', 'token', 'pool', 'player'], (g) => [blockOfGame(g), g.creator as string, g.token as string, g.pool as string, g.player as string]);
      const byGame = group(games, ['block', 'game_kind', 'creator', 'token', 'pool'], (g) => [blockOfGame(g), g.game_kind as string, g.creator as string, g.token as string, g.pool as string]);
      const byUserToken = group(games, ['block', 'player', 'token'], (g) => [blockOfGame(g), g.player as string, g.token as string]);
      const written = { ru_block_daily: await place.rows('ru_block_daily'), ru_block_game: await place.rows('ru_block_game'), ru_block_user_t: await place.rows('ru_block_user_t') };
      expectSameRows('ru_block_daily', written.ru_block_daily, daily, 'brute force');
      expectSameRows('ru_block_game', written.ru_block_game, byGame, 'brute force');
      expectSameRows('ru_block_user_t', written.ru_block_user_t, byUserToken, 'brute force');

      // Random windows: /house-edge by game (ru_block_game + ru_day_game + raw) and by player (ru_block_daily + ru_daily + raw).
      const t0 = Math.min(...games.map((g) => Number(g.time_ms)));
      const t1 = Math.max(...games.map((g) => Number(g.time_ms)));
      let seed = 5;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
      for (let i = 0; i < 12; i++) {
        const a = Math.floor(t0 + rand() * (t1 - t0));
        const b = i % 4 === 0 ? undefined : Math.floor(a + rand() * (t1 - a + MS_PER_DAY));
        const start = i % 5 === 0 ? undefined : a;
        const inWindow = games.filter((g) => (start === undefined || Number(g.time_ms) >= start) && (b === undefined || Number(g.time_ms) < b));
        const creator = games[i * 97]!.creator as string;
        for (const [groupBy, filter] of [['game', {}], ['player', {}], ['player', { creator }]] as const) {
          const got = await store.queries.houseEdge({ groupBy, ...filter, startTime: start, endTime: b, limit: 100_000 });
          const rows = 'creator' in filter ? inWindow.filter((g) => g.creator === filter.creator) : inWindow;
          const want = group(rows, ['k', 'token'], (g) => [(groupBy === 'game' ? g.game_kind : g.player) as string, g.token as string]);
          const label = `${groupBy} ${JSON.stringify(filter)} [${start}, ${b})`;
          expect(got.results.map((r) => [r.key, r.token, r.plays, r.wins, String(r.wager), String(r.payout), String(r.expected_payout)]), label).toEqual(
            want.map((w) => [
              w.k, w.token, Number(w.plays), Number(w.wins),
              u64Of(w, 'wager'),
              u64Of(w, 'payout'),
              u64Of(w, 'expected'),
            ]),
          );
        }
      }
      await store.close();

      // Migration 0013 on a database that predates it: the same rows, filled from the day rollups.
      const migrator = createMigrator(db, dialect === 'sqlite' ? sqliteAdapter : postgresAdapter, place.config.kind === 'postgres' ? place.config.schema : undefined);
      await undoMigrationsFrom(place, '0013_block_rollups', migrator);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expectSameRows('ru_block_daily', await place.rows('ru_block_daily'), written.ru_block_daily, 'migration 0013');
      expectSameRows('ru_block_game', await place.rows('ru_block_game'), written.ru_block_game, 'migration 0013');
      expectSameRows('ru_block_user_t', await place.rows('ru_block_user_t'), written.ru_block_user_t, 'migration 0013');
    } finally {
      await db.destroy();
      await place.close();
    }
  });
});
