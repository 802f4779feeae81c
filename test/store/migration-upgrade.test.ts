/**
 * Migrations from zero (docs/architecture.md convention 12: append-only, no live code): on a fresh
 * database every migration runs; a database holding raw events at migration 0003 (before the
 * per-filter rollups) is upgraded to the latest schema, whose migrations fill every derived
 * table from the raw events with their own SQL — and the result equals, row for row, what the
 * write path kept incrementally for the same events. Then `rollups rebuild` gives the same again.
 */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/index.js';
import { loadFixture } from '../helpers/contract-world.js';
import { generateFixture } from '../helpers/fixture.js';
import { testDialects } from '../helpers/store.js';
import { derivedRows, expectSameDerived, openPlace, tableColumns, type DerivedTable, type RawPlace, type Row } from '../helpers/derived.js';

/** Raw tables: the truth the migrations roll up (plus the reference data pricing needs). */
const RAW = ['games', 'pool_changes', 'pools', 'signatures', 'mints', 'prices'];
/** The last migration before the rollups that migration 0004 and later fill from raw events. */
const BEFORE_ROLLUPS = '0003_window_players';

function kyselyOn(place: RawPlace): Kysely<any> {
  if (place.config.kind === 'sqlite') return new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(place.config.path) }) });
  const pool = new pg.Pool({ connectionString: place.config.url, max: 2, options: `-c search_path=${place.config.schema}` });
  return new Kysely({ dialect: new PostgresDialect({ pool }) });
}

/**
 * Copies the raw tables into a database at an earlier migration: only the columns it has there
 * (later migrations add columns to games, e.g. 0008's house-edge facts, and fill them from raw).
 */
async function copyRaw(from: RawPlace, to: RawPlace, db: Kysely<any>): Promise<void> {
  const columns = new Map<string, string>();
  for (const t of RAW) columns.set(t, (await tableColumns(to, db, t)).join(', '));
  const columnsOf = (t: string) => columns.get(t)!;
  if (to.dialect === 'sqlite') {
    await to.exec(`attach database '${from.name}' as src`);
    for (const t of RAW) await to.exec(`insert into main.${t} (${columnsOf(t)}) select ${columnsOf(t)} from src.${t}`);
    await to.exec('detach database src');
  } else {
    for (const t of RAW) await to.exec(`insert into ${to.name}.${t} (${columnsOf(t)}) select ${columnsOf(t)} from ${from.name}.${t}`);
  }
}

describe.each(testDialects())('migrations from zero (%s)', (dialect) => {
  it('upgrading raw events from 0003 fills every derived table as the write path does; rebuild gives the same', async () => {
    const common = createCommon();
    const written = await openPlace(dialect, 'mig_w');
    const upgraded = await openPlace(dialect, 'mig_u');
    const adapter = dialect === 'sqlite' ? sqliteAdapter : postgresAdapter;
    const schema = upgraded.config.kind === 'postgres' ? upgraded.config.schema : undefined;
    const db = kyselyOn(upgraded);
    try {
      // The incremental side: a fresh database migrated from zero, the fixture through the write path.
      const store = await createStore({ common, config: written.config });
      const f = generateFixture({ seed: 404, games: 1200, poolChanges: 120 });
      await loadFixture(store, f, 'split');
      // Processed signatures without events: a failed one and an event-less one (migration 0012 tells them apart).
      const t = Math.floor(f.nowMs / 1000) - 7200;
      await store.writeBatch({ events: [], signatures: [{ signature: 'Fai1ed'.padEnd(88, '1'), slot: 5, blockTime: t, failed: true }, { signature: 'Empty'.padEnd(88, '1'), slot: 6, blockTime: t - 86_400, failed: false }] });
      const incremental = await derivedRows(written);
      await store.close();
      expect(incremental.get('ru_daily')!.length).toBeGreaterThan(400);

      // The upgraded side: migrations up to 0003, the same raw events, then every later migration.
      const migrator = createMigrator(db, adapter, schema);
      const early = await migrator.migrateTo(BEFORE_ROLLUPS);
      expect(early.error).toBeUndefined();
      expect(early.results?.map((r) => r.migrationName).at(-1)).toBe(BEFORE_ROLLUPS);
      await copyRaw(written, upgraded, db);
      const late = await migrator.migrateToLatest();
      expect(late.error).toBeUndefined();
      expect(late.results!.length).toBeGreaterThan(0);
      const filled = await derivedRows(upgraded);
      // Migration 0011 cannot run the fairness audit's HMAC in SQL: it counts every earlier game
      // as unverifiable / not_audited, and the rebuild below audits them (docs/design.md §14).
      const games = f.events.filter((e) => e.name === 'GameSettled').length;
      for (const t of ['ru_fair_day', 'ru_fair_dg', 'ru_fair_bg', 'ru_fair_hg', 'ru_fair_user', 'ru_fair'] as const) {
        const rows = filled.get(t)!;
        expect(rows.every((r) => r.fairness === 'unverifiable' && r.rule === 'not_audited'), t).toBe(true);
        expect(rows.reduce((n, r) => n + Number(r.games), 0), t).toBe(games);
      }
      const unaudited = ['ru_fair_day', 'ru_fair_dg', 'ru_fair_bg', 'ru_fair_hg', 'ru_fair_user', 'ru_fair'].map((t) => [t, []] as [DerivedTable, Row[]]);
      expectSameDerived(new Map([...filled, ...unaudited]), new Map([...incremental, ...unaudited]), 'migrated from raw');
      // Migration 0012 fills each processed signature's UTC day and kind (0 no event, 1 events, 2 failed) as the write path records them.
      const w = kyselyOn(written);
      const sigRows = async (k: Kysely<any>) =>
        (await k.selectFrom('signatures').select(['signature', 'day', 'kind']).orderBy('signature').execute()).map((r) => `${r.signature} ${Number(r.day)} ${Number(r.kind)}`);
      const writtenSigs = await sigRows(w);
      await w.destroy();
      expect(new Set(writtenSigs.map((r) => r.split(' ')[2]))).toEqual(new Set(['0', '1', '2']));
      expect(await sigRows(db)).toEqual(writtenSigs);

      // rebuild == incremental on the upgraded database too.
      const again = await createStore({ common, config: upgraded.config });
      await again.rebuildRollups();
      await again.close();
      expectSameDerived(await derivedRows(upgraded), incremental, 'rebuilt');
    } finally {
      await db.destroy();
      await written.close();
      await upgraded.close();
    }
  });
});
