import type { FastifyInstance } from 'fastify';
import { dayToDate, isoMs } from '../../core/index.js';
import { keysetKinds, type CoverageDay, type CoverageRun } from '../../store/index.js';
import { decodeCursor, nextCursor } from '../cursor.js';
import { PARAMS, queryOf } from '../params.js';
import { count, dateString, obj, protectedErrors } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const coverageQuery = queryOf({ side: PARAMS.coverageSide, limit: PARAMS.coverageLimit, cursor: PARAMS.coverageCursor });

const nullableDate = (description: string) => ({ ...dateString, type: ['string', 'null'], description }) as const;

const daySchema = obj({
  date: dateString,
  chain: obj({ total: count('Signatures of the program on chain that day'), failed: count('Of which failed (getSignaturesForAddress `err` set)') }),
  store: obj({
    events: count('Processed signatures with stored events'),
    empty: count('Processed signatures without events (e.g. the play transaction of a game; its settle carries GameSettled)'),
    failed: count('Processed failed signatures'),
  }),
  gaps: count('Signatures on chain the store never processed'),
  surpluses: count('Signatures in the store the chain does not list'),
  failedMismatches: count('Signatures on both sides whose failed flag differs'),
  complete: { type: 'boolean', description: 'No gap, surplus or failed mismatch that day' },
});

const diffSchema = obj({
  signature: { type: 'string', description: 'Transaction signature' },
  slot: count('Slot'),
  date: dateString,
  side: { type: 'string', enum: ['gap', 'surplus'], description: 'gap: on chain, not in the store; surplus: in the store, not on chain' },
  failed: { type: 'boolean', description: "The chain's `err` for a gap; the store's record for a surplus" },
});

const coverageSchema = obj(
  {
    verifiedAt: { type: ['string', 'null'], format: 'date-time', description: 'When the latest `gamba-analytics verify` run finished, ISO 8601 UTC ms; null before the first run' },
    since: nullableDate('First UTC day verified'),
    until: nullableDate('Last UTC day verified'),
    fromSlot: { type: ['integer', 'null'], minimum: 0, description: 'Oldest slot of the verified (indexed) range' },
    toSlot: { type: ['integer', 'null'], minimum: 0, description: 'Newest slot of the verified range: the tail checkpoint at the run' },
    daysVerified: count('UTC days compared, since through until (days without a signature on either side are complete and not listed in `days`)'),
    completeSince: nullableDate('Oldest day from which every day up to `until` is complete; null when `until` itself is not'),
    completeThrough: nullableDate('Newest day up to which every day from `since` is complete; null when `since` itself is not'),
    chainSignatures: count('Signatures on chain in the verified range'),
    storeSignatures: count('Processed signatures in the store in the verified range'),
    gaps: count('Gaps found (on chain, not in the store)'),
    surpluses: count('Surpluses found (in the store, not on chain)'),
    listed: count('Differences stored for listing (all of them up to 100,000)'),
    durationMs: count('How long the run took, ms'),
    days: { type: 'array', items: daySchema, description: 'Every verified day with a signature on chain or in the store, newest first' },
    diffs: { type: 'array', items: diffSchema, description: 'One page of differences, newest day first (then signature, descending)' },
    nextCursor: { type: ['string', 'null'], description: 'Cursor of the next page of differences (pass as `cursor`, same side); null at the end' },
  },
  'Coverage of the indexed history (docs/design.md "Coverage and reconciliation")',
);

const isComplete = (d: CoverageDay) => d.gaps === 0 && d.surpluses === 0 && d.failedMismatches === 0;
const dateOrNull = (day: number | null) => (day === null ? null : dayToDate(day));

function emptyReport() {
  return {
    verifiedAt: null,
    since: null,
    until: null,
    fromSlot: null,
    toSlot: null,
    daysVerified: 0,
    completeSince: null,
    completeThrough: null,
    chainSignatures: 0,
    storeSignatures: 0,
    gaps: 0,
    surpluses: 0,
    listed: 0,
    durationMs: 0,
    days: [],
    diffs: [],
    nextCursor: null,
  };
}

/** `/status`'s `coverage` object (additive): the latest run's time, how far back coverage is complete, its gap count; nulls before the first run. */
export function coverageStatus(run: CoverageRun | null): { lastVerifiedAt: string | null; completeSince: string | null; gaps: number | null } {
  if (!run) return { lastVerifiedAt: null, completeSince: null, gaps: null };
  return { lastVerifiedAt: isoMs(run.verifiedAtMs), completeSince: dateOrNull(run.completeSinceDay), gaps: run.gaps };
}

/** The JSON schema of `/status`'s `coverage` (docs/design.md "Coverage and reconciliation"). */
export const coverageStatusSchema = obj(
  {
    lastVerifiedAt: { type: ['string', 'null'], format: 'date-time', description: 'When the latest `gamba-analytics verify` run finished; null before the first' },
    completeSince: nullableDate('Oldest UTC day from which the indexed history was complete at that run; null when its newest day was not (or before the first run)'),
    gaps: { type: ['integer', 'null'], minimum: 0, description: 'Gaps (on chain, not in the store) that run found; null before the first run' },
  },
  'Coverage of the indexed history at the latest verification (additive; GET /audit/coverage has the details)',
);

/**
 * GET /audit/coverage (docs/design.md "Coverage and reconciliation", docs/spec.md): the latest
 * stored verification — per UTC day chain vs store signature counts by kind, how far back
 * coverage is complete, when it ran — and its gaps and surpluses by signature, keyset-paged.
 * Answers from the store only (the run is `gamba-analytics verify`); 200 with nulls before the first run.
 */
export function registerAuditCoverageRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store } = deps;
  scope.get('/audit/coverage', {
    schema: {
      tags: ['status'],
      summary: 'Coverage of the indexed history: per-day chain vs store signature counts, gaps and surpluses by signature (latest `verify` run)',
      querystring: coverageQuery.schema,
      response: { 200: coverageSchema, ...protectedErrors },
    },
  }, async (request) => {
    const q = coverageQuery.parse(request.query);
    const side = q.side === 'all' ? undefined : q.side;
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, q.side, 'DESC', keysetKinds('coverageDiffs'));
    const report = await store.queries.coverageReport({ limit: q.limit, side, after });
    if (!report) return emptyReport();
    const { run } = report;
    return {
      verifiedAt: isoMs(run.verifiedAtMs),
      since: dayToDate(run.sinceDay),
      until: dayToDate(run.untilDay),
      fromSlot: run.fromSlot,
      toSlot: run.toSlot,
      daysVerified: run.daysVerified,
      completeSince: dateOrNull(run.completeSinceDay),
      completeThrough: dateOrNull(run.completeThroughDay),
      chainSignatures: run.chainSignatures,
      storeSignatures: run.storeSignatures,
      gaps: run.gaps,
      surpluses: run.surpluses,
      listed: run.listed,
      durationMs: run.durationMs,
      days: report.days.map((d) => ({
        date: dayToDate(d.day),
        chain: { total: d.chainTotal, failed: d.chainFailed },
        store: { events: d.storeEvents, empty: d.storeEmpty, failed: d.storeFailed },
        gaps: d.gaps,
        surpluses: d.surpluses,
        failedMismatches: d.failedMismatches,
        complete: isComplete(d),
      })),
      diffs: report.diffs.map((d) => ({ signature: d.signature, slot: d.slot, date: dayToDate(d.day), side: d.side, failed: d.failed })),
      nextCursor: nextCursor(q.side, 'DESC', report.next),
    };
  });
}
