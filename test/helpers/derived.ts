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
import pg from 'pg';
import { expect } from 'vitest';
import { DERIVED_KEYS, DERIVED_TABLES, USD_COLUMNS, type DerivedTable } from '../../src/store/rollups/definitions.js';
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

export function expectSameRows(table: DerivedTable, after: Row[], before: Row[], what = ''): void {
  expect(after.length, `${what} ${table} row count`).toBe(before.length);
  for (let i = 0; i < before.length; i++) {
    const a = after[i]!;
    const b = before[i]!;
    expect(Object.keys(a).sort(), `${what} ${table}`).toEqual(Object.keys(b).sort());
    for (const k of Object.keys(b)) {
      const label = `${what} ${table} row ${i} (${KEYS[table].map((c) => String(b[c])).join(' ')}) column ${k}`;
      if (DOUBLES.has(k)) {
        const x = Number(a[k]);
        const y = Number(b[k]);
        expect(Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) + 1e-9, `${label}: ${x} vs ${y}`).toBe(true);
      } else {
        expect(a[k] === null ? null : String(a[k]), label).toBe(b[k] === null ? null : String(b[k]));
      }
    }
  }
}

/** Compares every derived table of `after` with `before`. */
export function expectSameDerived(after: Map<DerivedTable, Row[]>, before: Map<DerivedTable, Row[]>, what = ''): void {
  for (const t of DERIVED_TABLES) expectSameRows(t, after.get(t)!, before.get(t)!, what);
}
