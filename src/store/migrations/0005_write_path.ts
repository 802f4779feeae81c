import type { Kysely } from 'kysely';

/**
 * Indexes no read uses, dropped to lighten the write path (docs/benchmarks.md "Ingest"): every
 * index entry is one more B-tree insert per row written, and an index keyed by player touches a
 * page of its own for almost every game. `test/perf/plans.test.ts` proves that each index left
 * is used by some read or is the conflict target of a write.
 * - `ru_daily_player` (player, day): windowed leaderboards read ru_daily by day (with a creator
 *   filter), by (pool, day) or by (token, day); no query filters ru_daily by player.
 * - `signatures_slot` (slot): signatures are only looked up by signature (their primary key).
 * Plain schema calls only: a migration imports nothing from live code (docs/architecture.md convention 12).
 */
export function migration0005() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.dropIndex('ru_daily_player').execute();
      await db.schema.dropIndex('signatures_slot').execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
