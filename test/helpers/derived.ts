/**
 * Derived tables (rollups and counters) read row by row from a store's database, and their
 * comparison (rebuild == incremental, migrations from raw == incremental): integers (plays,
 * hi/lo token sums, times, counters, order keys) must be identical; USD doubles may differ only
 * by summation order (1e-9 relative).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect, type Migrator } from 'kysely';
import pg from 'pg';
import { expect } from 'vitest';
import { DERIVED_KEYS, DERIVED_TABLES, USD_COLUMNS, type DerivedTable } from '../../src/store/rollups/definitions.js';
import { createCommon } from '../../src/core/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { loadFixture } from './contract-world.js';
import { generateFixture, type Fixture } from './fixture.js';
import { testDatabaseUrl } from './store.js';

export type Row = Record<string, unknown>;
export type { DerivedTable };

/** Row order of each derived table: its key (src/store/rollups/definitions.ts). */
export const KEYS: Record<DerivedTable, readonly string[]> = DERIVED_KEYS;

/** USD (double) columns of the derived tables (src/store/rollups/definitions.ts). */
export const DOUBLES = new Set(USD_COLUMNS);

/** A place for a database: a temp SQLite file or a fresh PostgreSQL schema, with a reader of its rows. */
export interface RawPlace {
  dialect: 'sqlite' | 'postgres';
  /** SQLite file path, or PostgreSQL schema name. */
  name: string;
  config: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema: string };
  /** Every row of a derived table ordered by its key (byte-wise text order on both engines). */
  rows(table: DerivedTable): Promise<Row[]>;
  /** Runs raw SQL on the place (schema search path set on PostgreSQL). */
  exec(sqlText: string): Promise<void>;
  close(): Promise<void>;
}

export async function openPlace(dialect: 'sqlite' | 'postgres', label: string): Promise<RawPlace> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `gamba-${label}-`));
    const path = join(dir, 'gamba.db');
    let raw: BetterSqlite3.Database | undefined;
    const conn = () => {
      if (!raw) {
        raw = new BetterSqlite3(path);
        raw.defaultSafeIntegers(true);
      }
      return raw;
    };
    return {
      dialect, name: path, config: { kind: 'sqlite', path },
      rows: async (t) => conn().prepare(`select * from ${t} order by ${KEYS[t].join(', ')}`).all() as Row[],
      exec: async (s) => void conn().exec(s),
      async close() {
        raw?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = testDatabaseUrl();
  const schema = `${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`create schema if not exists ${schema}`);
  await client.query(`set search_path = ${schema}`);
  return {
    dialect, name: schema, config: { kind: 'postgres', url, schema },
    rows: async (t) => (await client.query(`select * from ${t} order by ${KEYS[t].join(', ')}`)).rows as Row[],
    exec: async (s) => void (await client.query(s)),
    async close() {
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

/** Every derived table's rows, by table. */
export async function derivedRows(place: RawPlace): Promise<Map<DerivedTable, Row[]>> {
  const out = new Map<DerivedTable, Row[]>();
  for (const t of DERIVED_TABLES) out.set(t, await place.rows(t));
  return out;
}

/**
 * Fails on the first difference between two tables' rows (same order): the row count, a row's
 * columns, a value (doubles within 1e-9 relative, the rest as text). The comparison runs in plain
 * JavaScript and calls `expect` only on a difference, which it names by row key and column: an
 * `expect` per cell made this helper most of the CPU time of the suites that compare whole stores.
 */
export function expectSameRows(table: DerivedTable, after: Row[], before: Row[], what = ''): void {
  expect(after.length, `${what} ${table} row count`).toBe(before.length);
  for (let i = 0; i < before.length; i++) {
    const a = after[i]!;
    const b = before[i]!;
    const columns = Object.keys(b);
    const mine = Object.keys(a).sort();
    const theirs = [...columns].sort();
    if (mine.join() !== theirs.join()) expect(mine, `${what} ${table}`).toEqual(theirs);
    for (const k of columns) {
      const label = () => `${what} ${table} row ${i} (${KEYS[table].map((c) => String(b[c])).join(' ')}) column ${k}`;
      if (DOUBLES.has(k)) {
        const x = Number(a[k]);
        const y = Number(b[k]);
        if (!(Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) + 1e-9)) expect.fail(`${label()}: ${x} vs ${y}`);
      } else {
        const x = a[k] === null ? null : String(a[k]);
        const y = b[k] === null ? null : String(b[k]);
        if (x !== y) expect(x, label()).toBe(y);
      }
    }
  }
}

/** Compares every derived table of `after` with `before`. */
export function expectSameDerived(after: Map<DerivedTable, Row[]>, before: Map<DerivedTable, Row[]>, what = ''): void {
  for (const t of DERIVED_TABLES) expectSameRows(t, after.get(t)!, before.get(t)!, what);
}

/** A stored game as read back (the columns the rollups are made of). */
export type Game = Record<string, unknown>;

const INT_SUMS = ['wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo', 'expected_hi', 'expected_lo'] as const;
const USD_SUMS = ['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net'] as const;

/**
 * Brute force of a game rollup: the stored games grouped by `keyOf`, each group's columns computed
 * from its games alone, in key order (numbers numerically, addresses byte-wise). With `poolSums`,
 * also the pool sums (pool fee halves, USD pool fee, USD house P&L) from each game's stored price.
 */
export function groupGames(games: Game[], keyCols: string[], keyOf: (g: Game) => (string | number)[], poolSums = false): Row[] {
  const groups = new Map<string, { key: (string | number)[]; games: Game[] }>();
  for (const g of games) {
    const key = keyOf(g);
    const id = JSON.stringify(key);
    const e = groups.get(id) ?? { key, games: [] };
    e.games.push(g);
    groups.set(id, e);
  }
  const rows = [...groups.values()].map(({ key, games: gs }) => {
    const r: Row = {};
    keyCols.forEach((c, i) => (r[c] = String(key[i])));
    r.plays = String(gs.length);
    r.jackpots = String(gs.filter((g) => Number(g.is_jackpot) === 1).length);
    for (const c of INT_SUMS) r[c] = String(gs.reduce((s, g) => s + BigInt(g[c] as string), 0n));
    r.wins = String(gs.filter((g) => BigInt(g.payout as string) > BigInt(g.wager as string)).length);
    for (const c of USD_SUMS) r[c] = gs.reduce((s, g) => s + Number(g[c] ?? 0), 0);
    r.max_usd_profit = Math.max(0, ...gs.map((g) => Number(g.usd_profit ?? 0)));
    r.min_usd_profit = Math.min(0, ...gs.map((g) => Number(g.usd_profit ?? 0)));
    r.first_ms = String(Math.min(...gs.map((g) => Number(g.time_ms))));
    r.last_ms = String(Math.max(...gs.map((g) => Number(g.time_ms))));
    if (poolSums) {
      // Each game's fee split into 32-bit halves, the halves summed (as every u64 sum of the rollups).
      r.pool_fee_hi = String(gs.reduce((s, g) => s + (BigInt(g.pool_fee as string) >> 32n), 0n));
      r.pool_fee_lo = String(gs.reduce((s, g) => s + (BigInt(g.pool_fee as string) & 0xffffffffn), 0n));
      const price = (g: Game) => (g.usd_per_unit === null || g.usd_per_unit === undefined ? 0 : Number(g.usd_per_unit));
      r.usd_pool_fee = gs.reduce((s, g) => s + Number(g.pool_fee) * price(g), 0);
      r.usd_house_pnl = gs.reduce((s, g) => s + Number(BigInt(g.wager as string) - BigInt(g.payout as string)) * price(g), 0);
    }
    return { sort: key, r };
  });
  // Key order as the tables are read (block numerically, addresses byte-wise).
  rows.sort((x, y) => {
    for (let i = 0; i < x.sort.length; i++) {
      const a = x.sort[i]!, b = y.sort[i]!;
      if (a !== b) return a < b ? -1 : 1;
    }
    return 0;
  });
  return rows.map((x) => x.r);
}

/** A u64 sum of a brute-force row (groupGames) from its `<name>_hi` / `<name>_lo` halves, as the API writes it: a decimal string. */
export function u64Of(row: Row, name: string): string {
  return String(BigInt(row[`${name}_hi`] as string) * 2n ** 32n + BigInt(row[`${name}_lo`] as string));
}

/**
 * The columns of a place's own table `table`, in order, read through `db` (a handle on that place).
 * Not a catalog-wide introspection: on PostgreSQL that also reads the schemas of tests running
 * alongside, and fails when one of them is dropped meanwhile.
 */
export async function tableColumns(place: RawPlace, db: Kysely<any>, table: string): Promise<string[]> {
  const rows =
    place.dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows
      : (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = ${place.name} and table_name = ${table} order by ordinal_position`.execute(db)).rows;
  return rows.map((r) => r.name);
}

/**
 * A fresh place with a generated fixture (1,500 games over many months; `seed`, `poolChanges`)
 * written through the store in split batches: the place, its open store, a Kysely handle on it,
 * the fixture and the stored games as read back. The caller closes the store (before migrating
 * the place again), then `db` and the place.
 */
export async function loadedPlace(
  dialect: 'sqlite' | 'postgres',
  label: string,
  fixture: { seed: number; poolChanges: number },
): Promise<{ place: RawPlace; store: Store; db: Kysely<any>; f: Fixture; games: Game[] }> {
  const place = await openPlace(dialect, label);
  const store = await createStore({ common: createCommon(), config: place.config });
  const db = kyselyOn(place);
  const f = generateFixture({ seed: fixture.seed, games: 1500, poolChanges: fixture.poolChanges });
  await loadFixture(store, f, 'split');
  const games = (await db.selectFrom('games').selectAll().execute()) as Game[];
  return { place, store, db, f, games };
}

/** A Kysely handle on a place's database (SQLite file, or the PostgreSQL schema on its search path), for raw reads and migrations in tests. */
export function kyselyOn(place: RawPlace): Kysely<any> {
  if (place.config.kind === 'sqlite') return new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(place.config.path) }) });
  const p = new pg.Pool({ connectionString: place.config.url, max: 2, options: `-c search_path=${place.config.schema}` });
  return new Kysely({ dialect: new PostgresDialect({ pool: p }) });
}

/**
 * What each migration from 0013 on creates (tables, and indexes on tables an earlier migration
 * made), in order, so a test can take a database back to before one migration — that one and
 * every later one, since applied names must stay in order — and migrate it again.
 */
const CREATED_BY: readonly [name: string, made: { tables?: string[]; indexes?: string[] }][] = [
  ['0013_block_rollups', { tables: ['ru_block_daily', 'ru_block_game', 'ru_block_user_t'] }],
  ['0014_block_sort_indexes', { indexes: ['ru_block_user_volume', 'ru_day_user_volume', 'ru_block_user_profit', 'ru_day_user_profit'] }],
  ['0015_fairness_day_groups', { tables: ['ru_fair_dg'] }],
  ['0016_return_days', { tables: ['ru_active_day', 'ru_return_day', 'ru_return_block'] }],
  ['0017_creator_window_players', { tables: ['ru_day_user_c', 'ru_block_user_c'] }],
  // 0018 only rebuilds g_time: migrating again rebuilds it again.
  ['0018_time_players', {}],
  ['0019_day_user_token', { tables: ['ru_day_user_t'] }],
  ['0020_quarter_rollups', { tables: ['ru_quarter', 'ru_quarter_c', 'ru_quarter_p'] }],
  ['0021_player_game_kinds', { tables: ['ru_user_game', 'ru_fair_user'], indexes: ['gv_player', 'gv_creator', 'gv_pool', 'gv_token'] }],
  ['0022_game_kind_token', { tables: ['ru_block_game_t', 'ru_day_game_t', 'ru_hour_game_t'] }],
  ['0023_fairness_hours', { tables: ['ru_fair_hg'] }],
  // 0024 rebuilds 0016's tables in a new shape (and their indexes): migrating again rebuilds them again.
  ['0024_closed_window_counts', {}],
  // 0025 rebuilds tables in place (WITHOUT ROWID on SQLite) and g_player_time: migrating again
  // clusters the tables the undone migrations recreate and rebuilds g_player_time again.
  ['0025_clustered_rollups', {}],
  ['0026_segment_rollups', { tables: ['ru_seg_user', 'ru_seg_user_c', 'ru_seg_user_t'] }],
  ['0027_hour_user_rollups', { tables: ['ru_hour_user_t'] }],
  ['0028_fairness_blocks', { tables: ['ru_fair_bg'] }],
  ['0029_day_revisions', { tables: ['ru_day_rev'] }],
  ['0030_hour_user_hour_index', { indexes: ['ru_hour_user_hour'] }],
  // 0031 only rebuilds g_player_time: migrating again rebuilds it again.
  ['0031_player_time_creator', {}],
];

/**
 * Takes a place's database back to before migration `first`: drops what it and every later
 * migration made and forgets them in `schema_migrations`. Throws when `first` is not listed, or
 * when the migrator knows a migration this list does not (a new migration must be added here).
 */
export async function undoMigrationsFrom(place: RawPlace, first: string, migrator: Migrator): Promise<void> {
  const known = (await migrator.getMigrations()).map((m) => m.name);
  const at = CREATED_BY.findIndex(([name]) => name === first);
  if (at < 0) throw new Error(`undoMigrationsFrom: ${first} is not listed`);
  const missing = known.filter((n) => n >= CREATED_BY[0]![0] && !CREATED_BY.some(([name]) => name === n));
  if (missing.length) throw new Error(`undoMigrationsFrom: list what ${missing.join(', ')} create(s)`);
  const undone = CREATED_BY.slice(at);
  for (const [, made] of [...undone].reverse()) {
    for (const i of made.indexes ?? []) await place.exec(`drop index ${i}`);
    for (const t of made.tables ?? []) await place.exec(`drop table ${t}`);
  }
  await place.exec(`delete from schema_migrations where name in (${undone.map(([name]) => `'${name}'`).join(', ')})`);
}
