/**
 * Bulk load (docs/benchmarks.md "Building a dataset"): a store loaded with `bulkLoad` and its
 * read indexes deferred (Store.deferReadIndexes) ends up the same as one loaded the normal way:
 * the same index definitions, the same derived tables row for row, the same games with the same
 * fairness verdicts, and the same settled-game pages.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { DERIVED_TABLES } from '../../src/store/rollups/index.js';
import { loadFixture } from '../helpers/contract-world.js';
import { derivedRows, expectSameDerived, openPlace, type RawPlace } from '../helpers/derived.js';
import { generateFixture } from '../helpers/fixture.js';
import { testDatabaseUrl, testDialects } from '../helpers/store.js';

/** Tables whose indexes a bulk load may defer: `games` and every derived table. */
const TABLES = ['games', ...DERIVED_TABLES];

/** Name and definition of every index of `games` and the derived tables, as the database stores them. */
async function loadIndexes(place: RawPlace): Promise<{ name: string; sql: string }[]> {
  if (place.config.kind === 'sqlite') {
    const db = new BetterSqlite3(place.config.path, { readonly: true });
    try {
      return db
        .prepare(`select name, coalesce(sql, '') as sql from sqlite_master where type = 'index' and tbl_name in (${TABLES.map(() => '?').join(', ')}) order by name`)
        .all(...TABLES) as { name: string; sql: string }[];
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: testDatabaseUrl() });
  await c.connect();
  try {
    const r = await c.query(`select indexname as name, indexdef as sql from pg_indexes where schemaname = $1 and tablename = any($2) order by indexname`, [place.config.schema, TABLES]);
    // indexdef names the schema: compare definitions across schemas without it.
    return (r.rows as { name: string; sql: string }[]).map((i) => ({ name: i.name, sql: i.sql.replaceAll(`${place.config.kind === 'postgres' ? place.config.schema : ''}.`, '') }));
  } finally {
    await c.end();
  }
}

/** Every game's identity and verdict, in key order. */
async function gameVerdicts(store: Store): Promise<string[]> {
  const out: string[] = [];
  let after;
  for (;;) {
    const page = await store.queries.settledGames({ onlyJackpots: false, orderBy: 'time', sorting: 'ASC', itemsPerPage: 500, page: 0, ...(after ? { after } : {}) });
    for (const g of page.results) out.push(`${g.signature} ${g.fairness} ${g.fairness_rule}`);
    if (!page.next) break;
    after = page.next;
  }
  return out;
}

describe.each(testDialects())('bulk load (%s)', (dialect) => {
  it('deferring the read indexes and building them at the end gives the normally loaded store', async () => {
    const f = generateFixture({ seed: 31, games: 1200, poolChanges: 100 });
    const normal = await openPlace(dialect, 'bulk_normal');
    const bulk = await openPlace(dialect, 'bulk_load');
    const a = await createStore({ common: createCommon(), config: normal.config });
    const b = await createStore({ common: createCommon(), config: bulk.config, bulkLoad: true });
    try {
      await loadFixture(a, f, 'split');
      const before = await loadIndexes(bulk);
      expect(before.map((i) => i.name)).toEqual(expect.arrayContaining(['g_player_order', 'g_unpriced', 'g_creator_time', 'g_pool_profit']));

      const restore = await b.deferReadIndexes();
      const during = await loadIndexes(bulk);
      const names = during.map((i) => i.name);
      // Only what the write path reads, the unique indexes (primary keys, upsert targets) and the
      // partial indexes of violating games stay while loading.
      expect(names.filter((n) => n.startsWith('g_')).sort()).toEqual(['g_player_order', 'g_unpriced']);
      expect(names).not.toEqual(expect.arrayContaining(['ru_user_by_volume']));
      expect(names).not.toEqual(expect.arrayContaining(['ru_user_ctp_cp_usd_profit']));
      for (const i of during.filter((i) => /^ru_/.test(i.name))) expect(i.sql === '' || /^create unique/i.test(i.sql), i.name).toBe(true);
      expect(during.length).toBeLessThan(before.length - 50);
      // 'split' writes half the prices late, so re-pricing (which reads g_unpriced) runs mid-load.
      await loadFixture(b, f, 'split');
      await restore();
      await restore(); // a second call changes nothing

      expect(await loadIndexes(bulk)).toEqual(before);
      expect(await loadIndexes(bulk)).toEqual(await loadIndexes(normal));
      expectSameDerived(await derivedRows(bulk), await derivedRows(normal), 'bulk load');
      const verdicts = await gameVerdicts(b);
      expect(verdicts.length).toBe(f.events.filter((e) => e.name === 'GameSettled').length);
      expect(verdicts).toEqual(await gameVerdicts(a));
      const creator = f.events.find((e) => e.name === 'GameSettled')!.data.creator;
      for (const orderBy of ['usd_profit', 'multiplier'] as const) {
        const q = { onlyJackpots: false, creator, orderBy, sorting: 'DESC' as const, itemsPerPage: 50, page: 1 };
        expect(await b.queries.settledGames(q)).toEqual(await a.queries.settledGames(q));
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    if (dialect === 'sqlite' && bulk.config.kind === 'sqlite') {
      // The bulk connection kept its journal in memory; the next normal open puts the file in WAL mode.
      const peek = () => {
        const db = new BetterSqlite3((bulk.config as { path: string }).path, { readonly: true });
        try {
          return db.pragma('journal_mode', { simple: true });
        } finally {
          db.close();
        }
      };
      expect(peek()).toBe('delete');
      await (await createStore({ common: createCommon(), config: bulk.config })).close();
      expect(peek()).toBe('wal');
    }
    await Promise.all([normal.close(), bulk.close()]);
  });

  it('a read-only store refuses to defer indexes', async () => {
    const place = await openPlace(dialect, 'bulk_ro');
    const w = await createStore({ common: createCommon(), config: place.config });
    const r = await createStore({ common: createCommon(), config: place.config, access: 'readonly' });
    try {
      await expect(r.deferReadIndexes()).rejects.toMatchObject({ code: 'STORE_READ_ONLY' });
    } finally {
      await Promise.all([r.close(), w.close()]);
      await place.close();
    }
  });
});
