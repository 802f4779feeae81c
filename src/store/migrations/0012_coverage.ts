import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * Coverage and reconciliation (docs/design.md "Coverage and reconciliation"):
 * - `signatures` gains `day` (UTC day number of its block time: block_time div 86,400) and
 *   `kind` (0 = no event, 1 = stored events, 2 = failed), written by the write path in the same
 *   transaction as the batch; the index `signatures_day (day, kind)` lists and counts one day's
 *   processed signatures, which is what `gamba-analytics verify` compares with the chain.
 *   Existing rows are filled here from the raw events (a signature with a stored game, pool
 *   change or pool creation has events), so coverage of an upgraded store starts with its history.
 * - `coverage_runs`: one row per verification (when, the range, the days verified, how far
 *   coverage is complete, gap and surplus counts).
 * - `coverage_days` and `coverage_diffs`: the latest verification's per-day counts (chain vs
 *   store) and its listed gaps (on chain, not in the store) and surpluses (in the store, not on
 *   chain), replaced by each verification.
 * Plain schema calls and SQL only: a migration imports nothing from live code (docs/architecture.md convention 12).
 */
export function migration0012(a: DialectAdapter) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('signatures').addColumn('day', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('signatures').addColumn('kind', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      // Integer division on both engines (block_time is an integer column); block times are never negative.
      await sql`update signatures set day = block_time / 86400, kind = case
          when failed = 1 then 2
          when exists (select 1 from games g where g.signature = signatures.signature)
            or exists (select 1 from pool_changes p where p.signature = signatures.signature)
            or exists (select 1 from pools c where c.created_signature = signatures.signature) then 1
          else 0 end`.execute(db);
      await db.schema.createIndex('signatures_day').on('signatures').columns(['day', 'kind']).execute();
      await db.schema
        .createTable('coverage_runs')
        .addColumn('verified_at_ms', a.bigint, (c) => c.primaryKey())
        .addColumn('since_day', 'integer', (c) => c.notNull())
        .addColumn('until_day', 'integer', (c) => c.notNull())
        .addColumn('from_slot', a.bigint, (c) => c.notNull())
        .addColumn('to_slot', a.bigint, (c) => c.notNull())
        .addColumn('days_verified', 'integer', (c) => c.notNull())
        .addColumn('complete_since_day', 'integer')
        .addColumn('complete_through_day', 'integer')
        .addColumn('chain_signatures', a.bigint, (c) => c.notNull())
        .addColumn('store_signatures', a.bigint, (c) => c.notNull())
        .addColumn('gaps', a.bigint, (c) => c.notNull())
        .addColumn('surpluses', a.bigint, (c) => c.notNull())
        .addColumn('listed', a.bigint, (c) => c.notNull())
        .addColumn('duration_ms', a.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('coverage_days')
        .addColumn('day', 'integer', (c) => c.primaryKey())
        .addColumn('chain_total', a.bigint, (c) => c.notNull())
        .addColumn('chain_failed', a.bigint, (c) => c.notNull())
        .addColumn('store_events', a.bigint, (c) => c.notNull())
        .addColumn('store_empty', a.bigint, (c) => c.notNull())
        .addColumn('store_failed', a.bigint, (c) => c.notNull())
        .addColumn('gaps', a.bigint, (c) => c.notNull())
        .addColumn('surpluses', a.bigint, (c) => c.notNull())
        .addColumn('failed_mismatches', a.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('coverage_diffs')
        .addColumn('day', 'integer', (c) => c.notNull())
        .addColumn('signature', a.text, (c) => c.notNull())
        .addColumn('slot', a.bigint, (c) => c.notNull())
        .addColumn('side', a.text, (c) => c.notNull())
        .addColumn('failed', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('coverage_diffs_pk', ['day', 'signature'])
        .execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
