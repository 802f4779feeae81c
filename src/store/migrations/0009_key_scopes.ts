import type { Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * Scopes and publishable keys on `api_keys` (docs/design.md §4 "Scopes and publishable keys"):
 * - `scopes`: the operations a key may call, comma-separated (`read`, `sync`, `stream`,
 *   `export`). Existing keys keep every scope (the column's default), so an upgrade changes
 *   no key's behaviour.
 * - `publishable`: 1 for a browser key (read scope only, accepted only from its origins), else 0.
 * - `origins`: a publishable key's allowed origins, space-separated (`https://casino.example`);
 *   null for secret keys.
 * Plain schema calls only: a migration imports nothing from live code (docs/architecture.md convention 12).
 */
export function migration0009(a: DialectAdapter) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('api_keys').addColumn('scopes', a.text, (c) => c.notNull().defaultTo('read,sync,stream,export')).execute();
      await db.schema.alterTable('api_keys').addColumn('publishable', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('api_keys').addColumn('origins', a.text).execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
