/**
 * The fairness counts per 32-day block of migration 0028 (docs/design.md "Fairness audit"):
 * ru_fair_bg equals a brute-force count of the stored games per block × creator × token × pool ×
 * verdict × rule; migration 0028's fill from ru_fair_dg gives the same rows as the write path; and
 * /audit/fairness counts over random windows without a player — open and closed, overall and by
 * creator or pool, with and without a creator filter — which read whole blocks, edge days (or a
 * block minus its other days), whole hours and raw edges, equal the brute force over the games'
 * stored verdicts. Rebuild == incremental for the table is test/store/rebuild.test.ts (every derived table).
 */
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY } from '../../src/core/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import type { FairnessCounts } from '../../src/store/index.js';
import { expectSameRows, loadedPlace, undoMigrationsFrom, type Game } from '../helpers/derived.js';
import { testDialects } from '../helpers/store.js';

const blockOfGame = (g: Game) => Math.floor(Math.floor(Number(g.time_ms) / MS_PER_DAY) / 32);

/** Counts of games per verdict, rule and reason, computed here from the games' own columns. */
function countsOf(games: Game[]): FairnessCounts {
  const c: FairnessCounts = {
    games: 0,
    verified: 0,
    unverifiable: 0,
    violation: 0,
    violations: { commitment: 0, result_index: 0, multiplier: 0, payout: 0 },
    unverifiableReasons: { first_seen: 0, no_bet: 0, not_audited: 0 },
  };
  for (const g of games) {
    c.games++;
    const rule = String(g.fairness_rule ?? '');
    if (g.fairness === 'verified') c.verified++;
    else if (g.fairness === 'violation') {
      c.violation++;
      (c.violations as Record<string, number>)[rule]!++;
    } else {
      c.unverifiable++;
      (c.unverifiableReasons as Record<string, number>)[rule]!++;
    }
  }
  return c;
}

describe.each(testDialects())('fairness block counts (%s)', (dialect) => {
  it('ru_fair_bg equals the brute force; migration 0028 fills the same rows; /audit/fairness over random windows equals the brute force', async () => {
    const { place, store, db, games } = await loadedPlace(dialect, 'fair_blocks', { seed: 47, poolChanges: 40 });
    try {
      // The fixture spans many blocks, so whole blocks, edge days and complements are all read.
      expect(new Set(games.map(blockOfGame)).size).toBeGreaterThan(8);
      expect(new Set(games.map((g) => g.fairness)).size).toBeGreaterThan(1);

      const want = new Map<string, number>();
      for (const g of games) {
        const k = JSON.stringify([blockOfGame(g), g.creator, g.token, g.pool, g.fairness, g.fairness_rule ?? '']);
        want.set(k, (want.get(k) ?? 0) + 1);
      }
      const written = await place.rows('ru_fair_bg');
      const got = new Map(written.map((r) => [JSON.stringify([Number(r.block), r.creator, r.token, r.pool, r.fairness, r.rule]), Number(r.games)]));
      expect(got).toEqual(want);

      const t0 = Math.min(...games.map((g) => Number(g.time_ms)));
      const t1 = Math.max(...games.map((g) => Number(g.time_ms)));
      let seed = 11;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
      const windows: [number | undefined, number | undefined][] = [
        // Open windows holding most of the history (all time minus the blocks and days before) and little of it.
        [t0 + MS_PER_DAY * 3 + 1_234, undefined],
        [t1 - MS_PER_DAY * 40 - 5_000, undefined],
        [undefined, t1 - MS_PER_DAY * 50 + 777],
      ];
      // Edges covering most of their block (read as the block minus its other days): a window open
      // from late in an early block (all time minus the blocks and days before, the older edge so
      // read), and a closed window from early in one block to late in another.
      const b0 = Math.floor(t0 / MS_PER_DAY / 32) + 1;
      windows.push([(b0 * 32 + 28) * MS_PER_DAY + 3_333_000, undefined]);
      windows.push([(b0 * 32 + 2) * MS_PER_DAY + 999, ((b0 + 3) * 32 + 29) * MS_PER_DAY + 4_444_000]);
      for (let i = 0; i < 14; i++) {
        const a = Math.floor(t0 + rand() * (t1 - t0));
        windows.push(i % 3 === 0 ? [a, undefined] : [a, Math.floor(a + rand() * (t1 - a + MS_PER_DAY))]);
      }
      const creator = games[7]!.creator as string;
      for (const [start, end] of windows) {
        const inWindow = games.filter((g) => (start === undefined || Number(g.time_ms) >= start) && (end === undefined || Number(g.time_ms) < end));
        for (const [groupBy, filter] of [[undefined, {}], ['creator', {}], ['pool', {}], [undefined, { creator }], ['pool', { creator }]] as const) {
          const label = `${groupBy} ${JSON.stringify(filter)} [${start}, ${end})`;
          const rows = 'creator' in filter ? inWindow.filter((g) => g.creator === filter.creator) : inWindow;
          const r = await store.queries.fairnessAudit({ groupBy, ...filter, startTime: start, endTime: end, limit: 1 });
          expect(r.counts, label).toEqual(countsOf(rows));
          if (groupBy === undefined) continue;
          const byKey = new Map<string, Game[]>();
          for (const g of rows) byKey.set(String(g[groupBy]), [...(byKey.get(String(g[groupBy])) ?? []), g]);
          expect(r.groupsTotal, label).toBe(byKey.size);
          expect(new Map(r.groups!.map((x) => [x.key, x.counts])), label).toEqual(new Map([...byKey].map(([k, gs]) => [k, countsOf(gs)])));
        }
      }
      await store.close();

      // Migration 0028 on a database that predates it: the same rows, filled from ru_fair_dg.
      const migrator = createMigrator(db, dialect === 'sqlite' ? sqliteAdapter : postgresAdapter, place.config.kind === 'postgres' ? place.config.schema : undefined);
      await undoMigrationsFrom(place, '0028_fairness_blocks', migrator);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expectSameRows('ru_fair_bg', await place.rows('ru_fair_bg'), written, 'migration 0028');
    } finally {
      await db.destroy();
      await place.close();
    }
  });
});
