import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { CoverageResult } from '../types-coverage.js';

/** Rows per multi-row insert: 9 columns × 256 rows stays under both engines' bound-parameter limits. */
const CHUNK = 256;

/**
 * Stores one verification (docs/design.md "Coverage and reconciliation") in one transaction:
 * appends the run to coverage_runs (the history of runs) and replaces coverage_days and
 * coverage_diffs with this run's days and listed differences, so readers see the previous run or
 * this one, never a mix.
 */
export async function putCoverage(db: Kysely<Database>, r: CoverageResult): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const run = r.run;
    await trx
      .insertInto('coverage_runs')
      .values({
        verified_at_ms: run.verifiedAtMs,
        since_day: run.sinceDay,
        until_day: run.untilDay,
        from_slot: run.fromSlot,
        to_slot: run.toSlot,
        days_verified: run.daysVerified,
        complete_since_day: run.completeSinceDay,
        complete_through_day: run.completeThroughDay,
        chain_signatures: run.chainSignatures,
        store_signatures: run.storeSignatures,
        gaps: run.gaps,
        surpluses: run.surpluses,
        listed: run.listed,
        duration_ms: run.durationMs,
      })
      // Two runs finishing in the same ms: the later one's figures win.
      .onConflict((oc) =>
        oc.column('verified_at_ms').doUpdateSet((eb) => ({
          since_day: eb.ref('excluded.since_day'),
          until_day: eb.ref('excluded.until_day'),
          from_slot: eb.ref('excluded.from_slot'),
          to_slot: eb.ref('excluded.to_slot'),
          days_verified: eb.ref('excluded.days_verified'),
          complete_since_day: eb.ref('excluded.complete_since_day'),
          complete_through_day: eb.ref('excluded.complete_through_day'),
          chain_signatures: eb.ref('excluded.chain_signatures'),
          store_signatures: eb.ref('excluded.store_signatures'),
          gaps: eb.ref('excluded.gaps'),
          surpluses: eb.ref('excluded.surpluses'),
          listed: eb.ref('excluded.listed'),
          duration_ms: eb.ref('excluded.duration_ms'),
        })),
      )
      .execute();
    await trx.deleteFrom('coverage_days').execute();
    await trx.deleteFrom('coverage_diffs').execute();
    for (let i = 0; i < r.days.length; i += CHUNK) {
      await trx
        .insertInto('coverage_days')
        .values(
          r.days.slice(i, i + CHUNK).map((d) => ({
            day: d.day,
            chain_total: d.chainTotal,
            chain_failed: d.chainFailed,
            store_events: d.storeEvents,
            store_empty: d.storeEmpty,
            store_failed: d.storeFailed,
            gaps: d.gaps,
            surpluses: d.surpluses,
            failed_mismatches: d.failedMismatches,
          })),
        )
        .execute();
    }
    for (let i = 0; i < r.diffs.length; i += CHUNK) {
      await trx
        .insertInto('coverage_diffs')
        .values(r.diffs.slice(i, i + CHUNK).map((d) => ({ day: d.day, signature: d.signature, slot: d.slot, side: d.side, failed: d.failed ? 1 : 0 })))
        .onConflict((oc) => oc.columns(['day', 'signature']).doNothing())
        .execute();
    }
  });
}
