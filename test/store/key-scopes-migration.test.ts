/**
 * Migration 0009_key_scopes (docs/design.md §4 "Scopes and publishable keys"): a key stored
 * before it keeps every scope, stays a secret key and has no origins — the upgrade changes no
 * key's behaviour. SQLite (the migration is plain schema calls, the same on PostgreSQL).
 */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { expect, test } from 'vitest';
import { sqliteAdapter } from '../../src/store/dialect.js';
import { createApiKeyStore } from '../../src/store/keys.js';
import { createMigrator } from '../../src/store/migrate.js';

test('a key stored before 0009 holds read, sync, stream and export after it, not publishable', async () => {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
  try {
    const migrator = createMigrator(db, sqliteAdapter);
    const before = await migrator.migrateTo('0006_pools');
    expect(before.error).toBeUndefined();
    await db
      .insertInto('api_keys')
      .values({ id: 'key_old', name: 'old', tier: 'standard', rpm: 100, burst: 200, key_hash: 'c'.repeat(64), created_at: 1, expires_at: null, revoked_at: null })
      .execute();
    const after = await migrator.migrateToLatest();
    expect(after.error).toBeUndefined();
    expect(after.results?.map((r) => r.migrationName)).toContain('0009_key_scopes');
    const record = await createApiKeyStore(db).findByHash('c'.repeat(64));
    expect(record).toMatchObject({ id: 'key_old', scopes: ['read', 'sync', 'stream', 'export'], publishable: false, origins: [] });
  } finally {
    await db.destroy();
  }
});
