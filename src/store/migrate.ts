import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider, type TableMetadata } from 'kysely';
import { AppError } from '../core/index.js';
import type { DialectAdapter } from './dialect.js';
import { migration0001 } from './migrations/0001_initial.js';
import { migration0002 } from './migrations/0002_bounded_reads.js';
import { migration0003 } from './migrations/0003_window_players.js';
import { migration0004 } from './migrations/0004_leaderboards.js';
import { migration0005 } from './migrations/0005_write_path.js';
import { migration0006 } from './migrations/0006_pools.js';
import { migration0008 } from './migrations/0008_house_edge.js';
import { migration0009 } from './migrations/0009_key_scopes.js';
import { migration0010 } from './migrations/0010_hour_rollups.js';
import { migration0011 } from './migrations/0011_fairness.js';
import { migration0012 } from './migrations/0012_coverage.js';
import { migration0013 } from './migrations/0013_block_rollups.js';
import { migration0014 } from './migrations/0014_block_sort_indexes.js';
import { migration0015 } from './migrations/0015_fairness_day_groups.js';
import { migration0016 } from './migrations/0016_return_days.js';
import { migration0017 } from './migrations/0017_creator_window_players.js';
import { migration0018 } from './migrations/0018_time_players.js';
import { migration0019 } from './migrations/0019_day_user_token.js';
import { migration0020 } from './migrations/0020_quarter_rollups.js';
import { migration0021 } from './migrations/0021_player_game_kinds.js';
import { migration0022 } from './migrations/0022_game_kind_token.js';
import { migration0023 } from './migrations/0023_fairness_hours.js';
import { migration0024 } from './migrations/0024_closed_window_counts.js';
import { migration0025 } from './migrations/0025_clustered_rollups.js';
import { migration0026 } from './migrations/0026_segment_rollups.js';
import { migration0027 } from './migrations/0027_hour_user_rollups.js';
import { migration0028 } from './migrations/0028_fairness_blocks.js';
import { migration0029 } from './migrations/0029_day_revisions.js';
import { migration0030 } from './migrations/0030_hour_user_hour_index.js';
import { migration0031 } from './migrations/0031_player_time_creator.js';

/** Ordered, append-only list of migrations; names sort in application order. */
function migrationsFor(a: DialectAdapter): Record<string, Migration> {
  return {
    '0001_initial': migration0001(a),
    '0002_bounded_reads': migration0002(a),
    '0003_window_players': migration0003(),
    '0004_leaderboards': migration0004(a),
    '0005_write_path': migration0005(),
    '0006_pools': migration0006(a),
    '0008_house_edge': migration0008(a),
    '0009_key_scopes': migration0009(a),
    '0010_hour_rollups': migration0010(a),
    '0011_fairness': migration0011(a),
    '0012_coverage': migration0012(a),
    '0013_block_rollups': migration0013(a),
    '0014_block_sort_indexes': migration0014(a),
    '0015_fairness_day_groups': migration0015(a),
    '0016_return_days': migration0016(a),
    '0017_creator_window_players': migration0017(a),
    '0018_time_players': migration0018(a),
    '0019_day_user_token': migration0019(a),
    '0020_quarter_rollups': migration0020(a),
    '0021_player_game_kinds': migration0021(a),
    '0022_game_kind_token': migration0022(a),
    '0023_fairness_hours': migration0023(a),
    '0024_closed_window_counts': migration0024(a),
    '0025_clustered_rollups': migration0025(a),
    '0026_segment_rollups': migration0026(a),
    '0027_hour_user_rollups': migration0027(a),
    '0028_fairness_blocks': migration0028(a),
    '0029_day_revisions': migration0029(a),
    '0030_hour_user_hour_index': migration0030(),
    '0031_player_time_creator': migration0031(),
  };
}

/**
 * The migrator of the store's migrations (bookkeeping in `schema_migrations`, in `schema` on
 * PostgreSQL). Tests use it to stop at an earlier migration (`migrateTo(name)`).
 */
export function createMigrator(db: Kysely<any>, a: DialectAdapter, schema?: string): Migrator {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(a) };
  return new Migrator({ db: a.kind === 'postgres' ? withCatalogTables(db) : db, provider, migrationTableName: 'schema_migrations', migrationLockTableName: 'schema_migrations_lock', ...(schema ? { migrationTableSchema: schema } : {}) });
}

/** Applies every pending migration. Throws AppError STORE_MIGRATION_FAILED. */
export async function migrateToLatest(db: Kysely<any>, a: DialectAdapter, schema?: string): Promise<void> {
  const { error, results } = await createMigrator(db, a, schema).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new AppError('STORE_MIGRATION_FAILED', `migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * `db` whose `introspection.getTables()` reads only pg_catalog's names: the migrator asks it
 * whether its bookkeeping tables exist. Kysely's own PostgreSQL introspector also resolves every
 * table of every schema by name (`pg_get_serial_sequence`), which fails with "schema … does not
 * exist" when another schema of the same database is dropped meanwhile (several stores, or test
 * runs, sharing one database: docs/deployment.md). Columns are left empty: the migrator uses
 * names and schemas only.
 */
function withCatalogTables(db: Kysely<any>): Kysely<any> {
  const getTables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ schema: string; name: string; kind: string }>`
      select n.nspname as schema, c.relname as name, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'v', 'p') and n.nspname !~ '^pg_' and n.nspname <> 'information_schema'`.execute(db);
    return rows.map((r) => ({ schema: r.schema, name: r.name, isView: r.kind === 'v', columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
