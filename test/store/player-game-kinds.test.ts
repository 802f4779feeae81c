/**
 * One player's all-time reads of migration 0021 (docs/design.md §10 and "Fairness audit"):
 * ru_user_game (player × game kind × creator × token × pool) and ru_fair_user (player × creator ×
 * token × pool × verdict × rule) equal a brute-force grouping of the stored games, every column
 * and key, with rigged games so that violations exist; migration 0021's fill gives the same rows
 * as the write path; and `/house-edge?groupBy=game&user=…` and `/audit/fairness?player=…` all time,
 * alone and beside a creator, token or pool filter, equal the brute force over the games.
 * The hour counts of migration 0023 (ru_fair_hg: hour × creator × token × pool × verdict × rule,
 * the cut days of `/audit/fairness` windows without a player) equal the brute force too, and its
 * fill gives the same rows. Rebuild == incremental for these tables is test/store/rebuild.test.ts
 * and test/store/fairness.test.ts (verdicts that change as history arrives out of order); the
 * windows' answers, test/store/fairness.test.ts; the plans of the reads and of the filtered
 * violation pages, test/perf/plans.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { createStore } from '../../src/store/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import { expectSameRows, groupGames, kyselyOn, openPlace, u64Of, undoMigrationsFrom, type Game, type Row } from '../helpers/derived.js';
import { simulatedHistory } from '../helpers/simulator.js';
import { testDialects } from '../helpers/store.js';

let events: LocatedEvent[] = [];
let mints: { mint: string; decimals: number }[] = [];

beforeAll(async () => {
  ({ events, mints } = await simulatedHistory({ seed: 77, days: 3, playsPerDay: 600, startTimeMs: Date.UTC(2026, 4, 2, 9, 10), faults: 'rig=0.03' }));
});
afterAll(() => {
  events = [];
});

/**
 * A fairness count table by brute force: the stored games counted per `lead` column (player, or
 * hour_ms) × creator × token × pool × verdict × rule, in key order (the hour numerically).
 */
function fairCounts(games: Game[], lead: 'player' | 'hour_ms'): Row[] {
  const m = new Map<string, { key: (string | number)[]; n: number }>();
  for (const g of games) {
    const key = [lead === 'hour_ms' ? Number(g.hour_ms) : String(g.player), ...[g.creator, g.token, g.pool, g.fairness, g.fairness_rule ?? ''].map(String)];
    const id = JSON.stringify(key);
    const e = m.get(id) ?? { key, n: 0 };
    e.n++;
    m.set(id, e);
  }
  const cols = [lead, 'creator', 'token', 'pool', 'fairness', 'rule'];
  const cmp = (x: (string | number)[], y: (string | number)[]) => {
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return 0;
  };
  return [...m.values()]
    .sort((x, y) => cmp(x.key, y.key))
    .map(({ key, n }) => ({ ...Object.fromEntries(cols.map((c, i) => [c, String(key[i])])), games: String(n) }));
}

describe.each(testDialects())('one player\'s all-time rollups (%s)', (dialect) => {
  it('ru_user_game and ru_fair_user equal the brute force; migration 0021 fills the same rows; /house-edge by game and /audit/fairness of one player equal the brute force', async () => {
    const place = await openPlace(dialect, 'player_kinds');
    const store = await createStore({ common: createCommon(), config: place.config });
    const db = kyselyOn(place);
    try {
      await store.upsertMints(mints);
      for (let i = 0; i < events.length; ) {
        // Batches of about 250 events that never split a transaction.
        let j = Math.min(events.length, i + 250);
        while (j < events.length && events[j]!.signature === events[j - 1]!.signature) j++;
        await store.writeBatch({ events: events.slice(i, j) });
        i = j;
      }
      const games = (await db.selectFrom('games').selectAll().execute()) as Game[];
      expect(games.length).toBeGreaterThan(1000);
      // Violations, several game kinds and players with games in several pools: every key varies.
      expect(games.filter((g) => g.fairness === 'violation').length).toBeGreaterThan(10);
      expect(new Set(games.map((g) => g.game_kind)).size).toBeGreaterThan(2);

      const byKind = groupGames(games, ['player', 'game_kind', 'creator', 'token', 'pool'], (g) => [g.player, g.game_kind, g.creator, g.token, g.pool].map(String));
      const written = { ru_user_game: await place.rows('ru_user_game'), ru_fair_user: await place.rows('ru_fair_user'), ru_fair_hg: await place.rows('ru_fair_hg') };
      expectSameRows('ru_user_game', written.ru_user_game, byKind, 'brute force');
      expectSameRows('ru_fair_user', written.ru_fair_user, fairCounts(games, 'player'), 'brute force');
      expectSameRows('ru_fair_hg', written.ru_fair_hg, fairCounts(games, 'hour_ms'), 'brute force');

      // The players with the most games, and one with a violation: /house-edge by game and the fairness counts, all time.
      const plays = new Map<string, number>();
      for (const g of games) plays.set(String(g.player), (plays.get(String(g.player)) ?? 0) + 1);
      const players = [...plays].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([p]) => p);
      players.push(String(games.find((g) => g.fairness === 'violation')!.player));
      let compared = 0;
      for (const player of players) {
        const mine = games.filter((g) => g.player === player);
        const first = mine[0]!;
        for (const filter of [{}, { creator: String(first.creator) }, { token: String(first.token) }, { pool: String(first.pool) }]) {
          const rows = mine.filter((g) => Object.entries(filter).every(([k, v]) => g[k] === v));
          const label = `${player} ${JSON.stringify(filter)}`;
          const edge = await store.queries.houseEdge({ groupBy: 'game', user: player, ...filter, limit: 1000 });
          const want = groupGames(rows, ['k', 'token'], (g) => [String(g.game_kind), String(g.token)]);
          expect(edge.results.map((r) => [r.key, r.token, r.plays, r.wins, r.jackpots, String(r.wager), String(r.payout), String(r.expected_payout)]), label).toEqual(
            want.map((w) => [
              w.k, w.token, Number(w.plays), Number(w.wins), Number(w.jackpots),
              u64Of(w, 'wager'),
              u64Of(w, 'payout'),
              u64Of(w, 'expected'),
            ]),
          );
          const audit = await store.queries.fairnessAudit({ player, ...filter, limit: 1000 });
          const count = (v: string, rule?: string) => rows.filter((g) => g.fairness === v && (rule === undefined || (g.fairness_rule ?? '') === rule)).length;
          expect(audit.counts.games, label).toBe(rows.length);
          expect([audit.counts.verified, audit.counts.unverifiable, audit.counts.violation], label).toEqual([count('verified'), count('unverifiable'), count('violation')]);
          for (const rule of ['commitment', 'result_index', 'multiplier', 'payout'] as const) expect(audit.counts.violations[rule], `${label} ${rule}`).toBe(count('violation', rule));
          for (const rule of ['first_seen', 'no_bet', 'not_audited'] as const) expect(audit.counts.unverifiableReasons[rule], `${label} ${rule}`).toBe(count('unverifiable', rule));
          expect(audit.violations.map((v) => v.signature).sort(), label).toEqual(rows.filter((g) => g.fairness === 'violation').map((g) => String(g.signature)).sort());
          compared++;
        }
      }
      expect(compared).toBe(16);
      await store.close();

      // Migration 0021 on a database that predates it: the same rows, filled from the raw games and ru_fair_day.
      const migrator = createMigrator(db, dialect === 'sqlite' ? sqliteAdapter : postgresAdapter, place.config.kind === 'postgres' ? place.config.schema : undefined);
      await undoMigrationsFrom(place, '0021_player_game_kinds', migrator);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expectSameRows('ru_user_game', await place.rows('ru_user_game'), written.ru_user_game, 'migration 0021');
      expectSameRows('ru_fair_user', await place.rows('ru_fair_user'), written.ru_fair_user, 'migration 0021');
      expectSameRows('ru_fair_hg', await place.rows('ru_fair_hg'), written.ru_fair_hg, 'migration 0023');
    } finally {
      await db.destroy();
      await place.close();
    }
  });
});
