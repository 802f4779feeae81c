import type { Kysely } from 'kysely';

/**
 * `ru_hour_user_hour` on ru_hour_user_t (day, hour_ms, player, token, usd_profit) (docs/design.md §7
 * "Part vectors"): a window's cut day read as every player's whole hours between two hours of the
 * day searches this narrow index for just those hours, instead of every row of the day through the
 * primary key (day, player, token, hour_ms), whose rows carry every rollup column. The top-N's
 * random access keeps the primary key (one search per player). The index holds every key column, so
 * the table stays stored in key order (`WITHOUT ROWID` on SQLite, docs/architecture.md "Clustered
 * rollups").
 */
export function migration0030() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('ru_hour_user_hour').on('ru_hour_user_t').columns(['day', 'hour_ms', 'player', 'token', 'usd_profit']).execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
