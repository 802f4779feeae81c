import type { KeysetPosition } from './types.js';

/**
 * Coverage and reconciliation (docs/design.md "Coverage and reconciliation"): what the store
 * processed per UTC day, compared with the program's signatures on chain by `gamba-analytics
 * verify`. Days are UTC day numbers (days since 1970-01-01, src/core `dayOf`); slots are Solana
 * slots; times are Unix ms unless the field says seconds.
 */

/** A processed signature's kind (`signatures.kind`, migration 0012): no event, stored events, failed (meta.err set). */
export type SignatureKind = 'empty' | 'events' | 'failed';

/** One processed signature of a day as the store recorded it (coverageSignatures). `blockTime` Unix seconds. */
export interface StoredSignature {
  signature: string;
  slot: number;
  blockTime: number;
  kind: SignatureKind;
}

/**
 * The store's signatures of one UTC day inside the verified range: slot in [fromSlot, toSlot] and
 * block time (Unix s) ≥ minBlockTime (the backfill cutoff), the same bounds the chain side uses.
 */
export interface CoverageSignaturesQuery {
  day: number;
  fromSlot: number;
  toSlot: number;
  minBlockTime: number;
}

/** Where a listed signature is: on chain but not in the store (`gap`), or in the store but not on chain (`surplus`). */
export type CoverageSide = 'gap' | 'surplus';

/** One day of a verification: the chain's signature counts (all, failed) and the store's by kind, and the differences. */
export interface CoverageDay {
  /** UTC day number. */
  day: number;
  chainTotal: number;
  chainFailed: number;
  storeEvents: number;
  storeEmpty: number;
  storeFailed: number;
  /** Signatures on chain the store never processed. */
  gaps: number;
  /** Signatures in the store the chain does not list. */
  surpluses: number;
  /** Signatures on both sides whose failed flag differs (chain `err` vs store kind). */
  failedMismatches: number;
}

/** One listed gap or surplus. `failed`: the chain's `err` for a gap, the store's kind for a surplus. */
export interface CoverageDiff {
  /** UTC day number of its block time. */
  day: number;
  signature: string;
  slot: number;
  side: CoverageSide;
  failed: boolean;
}

/**
 * One verification run (coverage_runs). `completeSinceDay`: the oldest day from which every day
 * up to `untilDay` is complete (no gap, surplus or failed mismatch), null when `untilDay` is not;
 * `completeThroughDay`: the newest day up to which every day from `sinceDay` is complete, null when
 * `sinceDay` is not. `listed` ≤ gaps + surpluses: differences stored for listing (capped).
 */
export interface CoverageRun {
  /** Unix ms the run finished. */
  verifiedAtMs: number;
  sinceDay: number;
  untilDay: number;
  /** The verified slot range, inclusive (the indexed range: docs/design.md "Coverage and reconciliation"). */
  fromSlot: number;
  toSlot: number;
  /** UTC days compared (untilDay − sinceDay + 1); days without a signature on either side are not recorded in `days`. */
  daysVerified: number;
  completeSinceDay: number | null;
  completeThroughDay: number | null;
  chainSignatures: number;
  storeSignatures: number;
  gaps: number;
  surpluses: number;
  listed: number;
  durationMs: number;
}

/** What `Store.putCoverage` stores: the run, its days, its listed differences. */
export interface CoverageResult {
  run: CoverageRun;
  days: CoverageDay[];
  diffs: CoverageDiff[];
}

/** GET /audit/coverage: a page of the latest run's differences (newest day first, then signature), optionally one side. */
export interface CoverageReportQuery {
  limit: number;
  side?: CoverageSide | undefined;
  /** Keyset position [day, signature] of the last difference served (keyset.ts `keysetKinds('coverageDiffs')`). */
  after?: KeysetPosition | undefined;
}

/** The latest verification (null before the first): the run, every verified day (newest first), one page of differences. */
export interface CoverageReport {
  run: CoverageRun;
  days: CoverageDay[];
  diffs: CoverageDiff[];
  /** Key of the page's last difference when more follow; null at the end. */
  next: KeysetPosition | null;
}
