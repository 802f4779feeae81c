/**
 * Every migration from zero on a fresh database (docs/architecture.md convention 12), on the
 * project's dialect: each file in src/store/migrations is applied once, in name order, and the
 * resulting schema is exactly the one the store's Kysely types describe (src/store/schema.ts
 * `Database`: tables, columns, nullability). Reopening applies nothing and changes nothing. In the
 * postgres project, SQLite and PostgreSQL must also end with the same tables, columns and indexes.
 * Generic on purpose: a new migration keeps it green as long as schema.ts tells the truth.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createStore } from '../../src/store/index.js';
import { createTestDatabase, registerCleanup, testStore, type TestDatabase } from '../helpers/store.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/store/migrations/', import.meta.url));
const SCHEMA_TS = fileURLToPath(new URL('../../src/store/schema.ts', import.meta.url));
/** Kysely's own bookkeeping tables (src/store/migrate.ts), not part of the store's types. */
const BOOKKEEPING = new Set(['schema_migrations', 'schema_migrations_lock']);

/** column name → nullable */
type Columns = Record<string, boolean>;
interface Schema {
  migrations: string[];
  tables: Record<string, Columns>;
  /** Indexes the migrations created (not those backing primary keys or unique constraints). */
  indexes: string[];
}

/** The migrations that exist, by file name (`0001_initial.ts` → `0001_initial`), sorted. */
function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_\w+\.ts$/.test(f))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();
}

/** The tables and columns src/store/schema.ts's `Database` interface declares, read with the TypeScript checker. */
function declaredTables(): Record<string, Columns> {
  // noLib: schema.ts uses only primitives and interfaces, and parsing TypeScript's lib files takes seconds.
  const options: ts.CompilerOptions = { strict: true, noEmit: true, noLib: true, types: [], module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
  const program = ts.createProgram([SCHEMA_TS], options);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(SCHEMA_TS)!;
  const database = file.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Database');
  if (!database) throw new Error('src/store/schema.ts has no `interface Database`');
  const isNullable = (t: ts.Type) => (t.isUnion() ? t.types : [t]).some((m) => (m.flags & ts.TypeFlags.Null) !== 0);
  const tables: Record<string, Columns> = {};
  for (const table of checker.getPropertiesOfType(checker.getTypeAtLocation(database))) {
    const row = checker.getTypeOfSymbolAtLocation(table, database);
    const cols: Columns = {};
    for (const col of checker.getPropertiesOfType(row)) cols[col.name] = isNullable(checker.getTypeOfSymbolAtLocation(col, database));
    tables[table.name] = cols;
  }
  return tables;
}

/** What the database holds, read with the driver, not through the store. */
async function readSchema(db: TestDatabase): Promise<Schema> {
  if (db.config.kind === 'sqlite') {
    const raw = new BetterSqlite3(db.config.path, { readonly: true });
    try {
      const names = (raw.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`).all() as { name: string }[]).map((r) => r.name);
      const tables: Record<string, Columns> = {};
      for (const t of names) {
        const cols = raw.prepare(`pragma table_info("${t}")`).all() as { name: string; notnull: number; pk: number }[];
        tables[t] = Object.fromEntries(cols.map((c) => [c.name, c.notnull === 0 && c.pk === 0]));
      }
      // Indexes SQLite makes for PRIMARY KEY / UNIQUE constraints have no SQL text.
      const indexes = (raw.prepare(`select name from sqlite_master where type = 'index' and sql is not null order by name`).all() as { name: string }[]).map((r) => r.name);
      const migrations = (raw.prepare('select name from schema_migrations order by name').all() as { name: string }[]).map((r) => r.name);
      return { migrations, tables, indexes };
    } finally {
      raw.close();
    }
  }
  const schema = db.config.schema!;
  const client = new pg.Client({ connectionString: db.config.url });
  await client.connect();
  try {
    const cols = await client.query<{ table_name: string; column_name: string; is_nullable: string }>(
      `select c.table_name, c.column_name, c.is_nullable from information_schema.columns c
         join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
        where c.table_schema = $1`,
      [schema],
    );
    const tables: Record<string, Columns> = {};
    for (const r of cols.rows) (tables[r.table_name] ??= {})[r.column_name] = r.is_nullable === 'YES';
    const idx = await client.query<{ name: string }>(
      `select i.relname as name from pg_index x
         join pg_class i on i.oid = x.indexrelid
         join pg_namespace n on n.oid = i.relnamespace
        where n.nspname = $1 and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)
        order by 1`,
      [schema],
    );
    const mig = await client.query<{ name: string }>(`select name from "${schema}".schema_migrations order by name`);
    return { migrations: mig.rows.map((r) => r.name), tables, indexes: idx.rows.map((r) => r.name) };
  } finally {
    await client.end();
  }
}

/** A fresh database migrated from zero by opening the store on it (then closing the store). */
async function migratedFromZero(dialect: TestDatabase['dialect']): Promise<TestDatabase> {
  const db = createTestDatabase(dialect);
  registerCleanup(() => db.drop());
  const store = await createStore({ common: createCommon(), config: db.config });
  await store.close();
  return db;
}

function withoutBookkeeping(tables: Record<string, Columns>): Record<string, Columns> {
  return Object.fromEntries(Object.entries(tables).filter(([t]) => !BOOKKEEPING.has(t)));
}

const dialect = testStore();

describe(`migrations from zero (${dialect})`, () => {
  test('a fresh database gets every migration once, in order, and exactly the schema the store types declare', async () => {
    const db = await migratedFromZero(dialect);
    const schema = await readSchema(db);
    const files = migrationFiles();
    expect(files.length).toBeGreaterThan(0);
    expect(schema.migrations).toEqual(files);

    const declared = declaredTables();
    const actual = withoutBookkeeping(schema.tables);
    expect(Object.keys(actual).sort(), 'tables').toEqual(Object.keys(declared).sort());
    for (const [table, cols] of Object.entries(declared)) {
      expect(actual[table], `columns of ${table} (column → nullable)`).toEqual(cols);
    }
    expect(schema.indexes.length, 'indexes').toBeGreaterThan(0);
  });

  test('opening the store again applies nothing and changes nothing', async () => {
    const db = await migratedFromZero(dialect);
    const before = await readSchema(db);
    const store = await createStore({ common: createCommon(), config: db.config });
    await store.close();
    expect(await readSchema(db)).toEqual(before);
  });
});

// Migration 0025's rule (docs/architecture.md "Clustered rollups"), read from the database: a
// rollup table with a composite key is stored in key order exactly when every one of its
// secondary indexes already holds all the key's columns (its entries would otherwise grow by them).
test.runIf(dialect === 'sqlite')('rollup tables are stored in key order exactly where no index entry grows by it', async () => {
  const db = await migratedFromZero('sqlite');
  if (db.config.kind !== 'sqlite') throw new Error('sqlite expected');
  const raw = new BetterSqlite3(db.config.path, { readonly: true });
  try {
    const tables = raw.prepare(`select name, sql from sqlite_master where type = 'table' and name like 'ru_%'`).all() as { name: string; sql: string }[];
    const clustered: string[] = [];
    const expected: string[] = [];
    for (const t of tables) {
      const key = (raw.prepare('select name from pragma_table_info(?) where pk > 0').all(t.name) as { name: string }[]).map((c) => c.name);
      if (key.length < 2) continue;
      const indexes = (raw.prepare(`select name from sqlite_master where type = 'index' and tbl_name = ? and sql is not null`).all(t.name) as { name: string }[]).map((i) => i.name);
      const holdsKey = indexes.every((i) => {
        const cols = new Set((raw.prepare('select name from pragma_index_info(?)').all(i) as { name: string | null }[]).map((c) => c.name));
        return key.every((k) => cols.has(k));
      });
      if (holdsKey) expected.push(t.name);
      if (/\bWITHOUT ROWID\s*$/i.test(t.sql)) clustered.push(t.name);
    }
    expect(expected.length).toBeGreaterThan(20);
    expect(clustered.sort()).toEqual(expected.sort());
    // The per-player index of the cut days holds their USD values.
    const cols = (raw.prepare('select name from pragma_index_info(?) order by seqno').all('g_player_time') as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(['player', 'time_ms', 'usd_wager', 'usd_profit', 'creator']);
  } finally {
    raw.close();
  }
});

// Comparing the two dialects needs PostgreSQL, which only the postgres project has.
test.runIf(dialect === 'postgres')('SQLite and PostgreSQL end with the same tables, columns and indexes', async () => {
  const [lite, postgres] = await Promise.all([migratedFromZero('sqlite'), migratedFromZero('postgres')]);
  const [a, b] = await Promise.all([readSchema(lite), readSchema(postgres)]);
  expect(b.migrations).toEqual(a.migrations);
  expect(b.tables).toEqual(a.tables);
  expect(b.indexes).toEqual(a.indexes);
});
