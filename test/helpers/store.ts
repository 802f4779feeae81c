import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createStore, type Store } from '../../src/store/index.js';

/**
 * Dialects the store tests run on: SQLite always; PostgreSQL when TEST_DATABASE_URL is set
 * (CI sets it). `TEST_DIALECTS=sqlite` narrows the list (STYLE habit 7).
 */
export function testDialects(): ('sqlite' | 'postgres')[] {
  const all: ('sqlite' | 'postgres')[] = ['sqlite'];
  if (process.env.TEST_DATABASE_URL) all.push('postgres');
  const only = process.env.TEST_DIALECTS?.split(',').map((s) => s.trim());
  return only ? all.filter((d) => only.includes(d)) : all;
}

/**
 * A fresh, migrated store in its own temp SQLite file (or its own PostgreSQL schema),
 * closed and deleted after the test file.
 */
export async function setupStore(dialect: 'sqlite' | 'postgres' = 'sqlite'): Promise<Store> {
  const common = createCommon();
  let store: Store;
  let cleanup: () => Promise<void>;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gamba-store-'));
    store = await createStore({ common, config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
    cleanup = async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error('TEST_DATABASE_URL is required for PostgreSQL store tests');
    const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    store = await createStore({ common, config: { kind: 'postgres', url }, schema });
    cleanup = async () => {
      await store.close();
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists "${schema}" cascade`);
      await c.end();
    };
  }
  registerCleanup(cleanup);
  return store;
}

/** Runs `fn` after the current test when called inside one, else after the file's tests. */
export function registerCleanup(fn: () => Promise<void>): void {
  try {
    onTestFinished(fn);
  } catch {
    afterAll(fn);
  }
}
