/**
 * `createStore({ access: 'readonly' })` (docs/architecture.md "Process topology"): the store the
 * API process serves from. It reads what a read-write store wrote (also writes made after it
 * opened), refuses every write with STORE_READ_ONLY, applies no migrations and never creates a
 * SQLite file.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCommon, isAppError } from '../../src/core/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { generateFixture, loadFixture } from '../helpers/fixture.js';
import { registerCleanup, setupTestDatabase, testDialects } from '../helpers/store.js';

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return isAppError(err) ? err.code : `not an AppError: ${String(err)}`;
  }
  return 'resolved';
}

describe.each(testDialects())('read-only store (%s)', (dialect) => {
  it('reads what the writer commits, before and after it opened; every write method rejects', async () => {
    const fixture = generateFixture({ seed: 31, games: 300, poolChanges: 30 });
    const { store: writer, db } = await setupTestDatabase(dialect);
    const half = { ...fixture, events: fixture.events.slice(0, 200), signatures: fixture.signatures.filter((s) => fixture.events.slice(0, 200).some((e) => e.signature === s.signature)) };
    await loadFixture(writer, half);
    const reader: Store = await createStore({ common: createCommon(), config: db.config, access: 'readonly' });
    registerCleanup(() => reader.close());

    expect(await reader.queries.counts()).toEqual(await writer.queries.counts());
    // A commit after the reader opened is visible to its next query.
    await loadFixture(writer, fixture);
    const after = await reader.queries.counts();
    expect(after).toEqual(await writer.queries.counts());
    expect(after.totalGames).toBe(fixture.events.filter((e) => e.name === 'GameSettled').length);
    expect(await reader.getState('anything')).toBeUndefined();
    await reader.ping();

    const g = fixture.events[0]!;
    expect(await refusal(reader.writeBatch({ events: [g] }))).toBe('STORE_READ_ONLY');
    expect(await refusal(reader.setState({ k: 'v' }))).toBe('STORE_READ_ONLY');
    expect(await refusal(reader.upsertMints(fixture.mints))).toBe('STORE_READ_ONLY');
    expect(await refusal(reader.putPrices(fixture.prices.slice(0, 1)))).toBe('STORE_READ_ONLY');
    expect(await refusal(reader.rebuildRollups())).toBe('STORE_READ_ONLY');
    expect(await refusal(reader.migrate())).toBe('STORE_READ_ONLY');
    expect(await refusal(reader.keys.revoke('key_0', 1))).toBe('STORE_READ_ONLY');
    // Nothing the refusals touched changed in the store.
    expect(await writer.queries.counts()).toEqual(after);
    expect(await writer.getState('k')).toBeUndefined();
  });
});

describe('read-only store (sqlite file)', () => {
  it('refuses to open a missing file instead of creating an empty database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gamba-ro-'));
    try {
      const path = join(dir, 'missing.db');
      expect(await refusal(createStore({ common: createCommon(), config: { kind: 'sqlite', path }, access: 'readonly' }))).toBe('STORE_UNAVAILABLE');
      expect(existsSync(path)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('applies no migrations: an empty file stays without tables (reads fail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gamba-ro-'));
    try {
      const path = join(dir, 'empty.db');
      // An existing, never-migrated database file.
      const Database = (await import('better-sqlite3')).default;
      new Database(path).close();
      const opened = createStore({ common: createCommon(), config: { kind: 'sqlite', path }, access: 'readonly' });
      expect(await refusal(opened)).toBe('STORE_UNAVAILABLE');
      const raw = new Database(path, { readonly: true });
      try {
        expect(raw.prepare("select count(*) as n from sqlite_master where type = 'table'").get()).toEqual({ n: 0 });
      } finally {
        raw.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
