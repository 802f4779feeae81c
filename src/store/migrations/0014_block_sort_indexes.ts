import type { Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * Sort indexes for the early-stopping top-N of windowed leaderboards (docs/design.md §7 "Top-N
 * over a window's parts"): a window's whole 32-day blocks (ru_block_user) and its edge days
 * (ru_day_user) are each read as a list of players sorted by USD volume, best first, with a
 * keyset position (usd_wager, player) to continue from — (block, usd_wager desc, player) and
 * (day, usd_wager desc, player). Random access per candidate uses the primary keys (block,
 * player) / (day, player) of migration 0004.
 */
export function migration0014(_a: DialectAdapter) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('ru_block_user_volume').on('ru_block_user').columns(['block', 'usd_wager desc', 'player']).execute();
      await db.schema.createIndex('ru_day_user_volume').on('ru_day_user').columns(['day', 'usd_wager desc', 'player']).execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
