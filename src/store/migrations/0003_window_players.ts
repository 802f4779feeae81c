import type { Kysely } from 'kysely';

/**
 * Windowed distinct players without the per-day per-player rollup. Every window of the API is
 * open towards now (docs/spec.md §2 `startTime`: time ≥ startTime; docs/design.md §4 /platforms: now − days×24 h),
 * so a player played in the window iff the all-time ru_user_ctp row's `last_ms` ≥ the window
 * start. These covering indexes make `count(distinct player) … where last_ms >= ?` (per creator,
 * or for one creator) read only the rows of players active in the window.
 */
export function migration0003() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('ru_user_ctp_last').on('ru_user_ctp').columns(['last_ms', 'creator', 'player']).execute();
      await db.schema.createIndex('ru_user_ctp_creator_last').on('ru_user_ctp').columns(['creator', 'last_ms', 'player']).execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
