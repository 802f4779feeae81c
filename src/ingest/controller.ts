/**
 * The sync controller: what the API sees of the indexer (`/status`, `/sync/status`,
 * `POST /sync`; docs/design.md §5). The indexer implements it; processes without an indexer use
 * the idle one.
 */
export interface SyncState {
  /** true while a backfill or a triggered sync runs (docs/spec.md §3). */
  syncing: boolean;
  /** End of the last completed pass, Unix ms; null before the first one. */
  lastSync: number | null;
  /** Chain head slot minus last indexed slot; null when unknown or no indexer here. */
  lagSlots: number | null;
  /** Wall clock minus last indexed blockTime, seconds; null when unknown. */
  lagSeconds: number | null;
  /** Additive (indexer): whether the backfill has reached BACKFILL_DAYS; undefined without an indexer. */
  backfillDone?: boolean;
  /** Additive (indexer): message of the last failed pass, null after a successful one. */
  lastError?: string | null;
}

export interface SyncTrigger {
  /** true when a pass was already running and this call joined it (never two at once). */
  alreadyRunning: boolean;
  /** When the (joined) pass started, Unix ms. */
  startedAt: number;
}

export interface SyncController {
  state(): SyncState;
  /** Starts one catch-up pass (tail to the chain head) now, or joins the running one. */
  trigger(): SyncTrigger;
}

/** For processes that run no indexer: never syncing; a trigger is acknowledged and does nothing here. */
export function createIdleSyncController(clock: { now(): number } = { now: () => Date.now() }): SyncController {
  return {
    state: () => ({ syncing: false, lastSync: null, lagSlots: null, lagSeconds: null }),
    trigger: () => ({ alreadyRunning: false, startedAt: clock.now() }),
  };
}
