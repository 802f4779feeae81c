import type { Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * `g_time` becomes (time_ms, creator, player): the players of a time range — the cut first and
 * last days of a closed window (docs/design.md §7 "Distinct players of a closed window"), the
 * first players of a /house-edge page's cut days, the active players of the last hour — are read
 * from the index alone, in time order, instead of one table row per game (a `games` row carries
 * the whole event, so rows of one day lie on as many pages as games). Every read of g_time by
 * time_ms alone reads the same prefix.
 */
export function migration0018(_a: DialectAdapter) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('g_time').execute();
      await db.schema.createIndex('g_time').on('games').columns(['time_ms', 'creator', 'player']).execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
