import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../schema.js';
import type { CoverageDay, CoverageDiff, CoverageReport, CoverageReportQuery, CoverageRun, CoverageSignaturesQuery, SignatureKind, StoredSignature } from '../types-coverage.js';
import { keysetKinds, positionValues } from './keyset.js';
import { num } from './common.js';

/** `signatures.kind` (migration 0012) → its name. */
const KIND_NAMES: Record<number, SignatureKind> = { 0: 'empty', 1: 'events', 2: 'failed' };

/**
 * One UTC day's processed signatures inside the verified range (docs/design.md "Coverage and
 * reconciliation"): the `signatures_day (day, kind)` index, then the bounds on slot and block time.
 */
export async function coverageSignatures(db: Kysely<Database>, q: CoverageSignaturesQuery): Promise<StoredSignature[]> {
  const rows = await db
    .selectFrom('signatures')
    .select(['signature', 'slot', 'block_time', 'kind'])
    .where('day', '=', q.day)
    .where('slot', '>=', q.fromSlot)
    .where('slot', '<=', q.toSlot)
    .where('block_time', '>=', q.minBlockTime)
    .execute();
  return rows.map((r) => ({ signature: r.signature, slot: num(r.slot), blockTime: num(r.block_time), kind: KIND_NAMES[num(r.kind)] ?? 'empty' }));
}

function runOf(r: Selectable<Database['coverage_runs']>): CoverageRun {
  return {
    verifiedAtMs: num(r.verified_at_ms),
    sinceDay: num(r.since_day),
    untilDay: num(r.until_day),
    fromSlot: num(r.from_slot),
    toSlot: num(r.to_slot),
    daysVerified: num(r.days_verified),
    completeSinceDay: r.complete_since_day === null ? null : num(r.complete_since_day),
    completeThroughDay: r.complete_through_day === null ? null : num(r.complete_through_day),
    chainSignatures: num(r.chain_signatures),
    storeSignatures: num(r.store_signatures),
    gaps: num(r.gaps),
    surpluses: num(r.surpluses),
    listed: num(r.listed),
    durationMs: num(r.duration_ms),
  };
}

/** The latest verification run (the newest coverage_runs row, one seek of its primary key); null before the first. */
export async function coverageSummary(db: Kysely<Database>): Promise<CoverageRun | null> {
  const r = await db.selectFrom('coverage_runs').selectAll().orderBy('verified_at_ms', 'desc').limit(1).executeTakeFirst();
  return r ? runOf(r) : null;
}

/**
 * GET /audit/coverage: the latest run, its days (newest first) and one page of its differences
 * ordered by (day, signature) descending — the primary key read backwards, `limit + 1` rows from the
 * keyset position. Throws AppError INVALID_KEYSET when `after` does not match keysetKinds('coverageDiffs').
 */
export async function coverageReport(db: Kysely<Database>, q: CoverageReportQuery): Promise<CoverageReport | null> {
  const run = await coverageSummary(db);
  if (!run) return null;
  const dayRows = await db.selectFrom('coverage_days').selectAll().orderBy('day', 'desc').execute();
  const days: CoverageDay[] = dayRows.map((d) => ({
    day: num(d.day),
    chainTotal: num(d.chain_total),
    chainFailed: num(d.chain_failed),
    storeEvents: num(d.store_events),
    storeEmpty: num(d.store_empty),
    storeFailed: num(d.store_failed),
    gaps: num(d.gaps),
    surpluses: num(d.surpluses),
    failedMismatches: num(d.failed_mismatches),
  }));
  let list = db.selectFrom('coverage_diffs').selectAll();
  if (q.side !== undefined) list = list.where('side', '=', q.side);
  if (q.after) {
    const [day, signature] = positionValues(q.after, keysetKinds('coverageDiffs')) as [number, string];
    list = list.where((eb) => eb.or([eb('day', '<', day), eb.and([eb('day', '=', day), eb('signature', '<', signature)])]));
  }
  const rows = await list.orderBy('day', 'desc').orderBy('signature', 'desc').limit(q.limit + 1).execute();
  const diffs: CoverageDiff[] = rows.slice(0, q.limit).map((r) => ({ day: num(r.day), signature: r.signature, slot: num(r.slot), side: r.side === 'surplus' ? 'surplus' : 'gap', failed: num(r.failed) === 1 }));
  const last = diffs[diffs.length - 1];
  return { run, days, diffs, next: rows.length > q.limit && last ? { values: [last.day, last.signature] } : null };
}
