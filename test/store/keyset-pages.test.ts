/**
 * Keyset pages of /events/settledGames on PostgreSQL (docs/architecture.md "Bounded reads"):
 * with at most one filter, a page is a walk of an index in the key's order that stops after the
 * page — never a bitmap scan of every matching game with a sort to keep the page, which the
 * planner picks when it underestimates the matching rows (as here: a fresh schema has no
 * statistics) and which makes a page cost the rest of the listing.
 */
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { SettledGamesOrderBy, SortDirection } from '../../src/store/types.js';
import { postgresAdapter, type DialectAdapter } from '../../src/store/dialect.js';
import { openPostgres } from '../../src/store/postgres.js';
import { settledGames } from '../../src/store/queries/events.js';
import { generateFixture, loadFixture } from '../helpers/fixture.js';
import { registerCleanup, setupTestDatabase, testDialects } from '../helpers/store.js';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe.skipIf(!testDialects().includes('postgres'))('settledGames keyset pages on PostgreSQL', () => {
  it('walk an index in the key order (no bitmap scan, no full sort) for every ordering, with and without a position; rows unchanged', async () => {
    const fixture = generateFixture({ seed: 77, games: 1500, poolChanges: 10 });
    const { store, db: place } = await setupTestDatabase('postgres');
    await loadFixture(store, fixture);
    if (place.config.kind !== 'postgres') throw new Error('postgres expected');
    const db = openPostgres({ url: place.config.url, schema: place.config.schema });
    registerCleanup(() => db.destroy());

    // The adapter as the store has it, except that each page is also explained under the same settings.
    const plans: PlanNode[] = [];
    const explaining: DialectAdapter = {
      ...postgresAdapter,
      async orderedPage<R>(d: Parameters<DialectAdapter['orderedPage']>[0], query: Compilable<R>): Promise<R[]> {
        const c = query.compile();
        const explain: Compilable<{ 'QUERY PLAN': [{ Plan: PlanNode }] }> = { compile: () => CompiledQuery.raw(`explain (format json) ${c.sql}`, [...c.parameters]) as never };
        const [row] = await postgresAdapter.orderedPage(d, explain);
        plans.push(row!['QUERY PLAN'][0].Plan);
        return postgresAdapter.orderedPage(d, query);
      },
    };

    const counts = await sql<{ player: string; n: string }>`select player, count(*) as n from games group by player order by count(*) desc, player limit 1`.execute(db);
    const user = counts.rows[0]!.player;
    expect(Number(counts.rows[0]!.n)).toBeGreaterThan(40);

    for (const orderBy of ['time', 'multiplier', 'usd_profit'] as SettledGamesOrderBy[]) {
      for (const sorting of ['DESC', 'ASC'] as SortDirection[]) {
        const q = { user, orderBy, sorting, onlyJackpots: false, page: 0, itemsPerPage: 10 };
        plans.length = 0;
        const first = await settledGames(db, explaining, q);
        const second = await settledGames(db, explaining, { ...q, after: first.next! });
        expect(first.next).not.toBeNull();
        expect(plans).toHaveLength(2);
        for (const plan of plans) {
          const types = nodes(plan).map((n) => n['Node Type']);
          expect(types, `${orderBy} ${sorting}`).not.toContain('Bitmap Heap Scan');
          expect(types, `${orderBy} ${sorting}`).not.toContain('Sort');
          expect(types, `${orderBy} ${sorting}`).not.toContain('Seq Scan');
          expect(types.some((t) => t === 'Index Scan' || t === 'Index Only Scan'), `${orderBy} ${sorting}`).toBe(true);
        }
        // Same rows as the store's own reads.
        expect(first.results).toEqual((await store.queries.settledGames(q)).results);
        expect(second.results).toEqual((await store.queries.settledGames({ ...q, after: first.next! })).results);
      }
    }

    // The settings last for the page's statement only.
    const after = await sql<{ b: string; s: string }>`select current_setting('enable_bitmapscan') as b, current_setting('enable_sort') as s`.execute(db);
    expect(after.rows[0]).toEqual({ b: 'on', s: 'on' });
  });
});
