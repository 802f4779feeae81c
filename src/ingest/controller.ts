/**
 * What the API sees of the indexer (docs/design.md §5): the sync controller behind `/status`,
 * `/sync/status`, `/ready` and `POST /sync`, and the indexer events (commits) the response
 * cache and later live streams listen to. This file imports nothing: a process that only serves
 * HTTP loads it without loading the indexer (docs/architecture.md "Process topology"). The
 * indexer implements the controller; the HTTP process mirrors a child process's one
 * (src/cli/indexer-link.ts); processes without an indexer use the idle one.
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

/** The answer to one trigger (docs/design.md §5 "POST /sync"). */
export interface SyncTrigger {
  /** The pass this trigger started or joined; every trigger coalesced into one pass gets the same id. */
  passId: string;
  /** true when this call joined a pass already running (never two at once). */
  alreadyRunning: boolean;
  /**
   * true when the pass has not started yet: the previous triggered pass started less than
   * SYNC_MIN_INTERVAL_MS ago, so this one starts at `startedAt` (in the future).
   */
  scheduled: boolean;
  /** When the pass started, or (scheduled) will start, Unix ms. */
  startedAt: number;
}

/** The indexer as the API drives it: its state, and catch-up triggers (docs/design.md §5). */
export interface SyncController {
  state(): SyncState;
  /**
   * Starts one catch-up pass (tail to the chain head), joins the running one, or joins/schedules
   * the next allowed one (see SyncTrigger). Rejects with AppError SERVICE_UNAVAILABLE when the
   * indexer lives in another process that cannot be reached right now.
   */
  trigger(): Promise<SyncTrigger>;
}

/** For processes that run no indexer: never syncing; a trigger is acknowledged and does nothing here. `clock`: the injected clock (Common.clock), Unix ms. */
export function createIdleSyncController(clock: { now(): number }): SyncController {
  let n = 0;
  return {
    state: () => ({ syncing: false, lastSync: null, lagSlots: null, lagSeconds: null }),
    trigger: async () => ({ passId: `idle_${++n}`, alreadyRunning: false, scheduled: false, startedAt: clock.now() }),
  };
}

// ───────────────────────────── indexer events ─────────────────────────────

/** One committed write of the indexer: an events batch, or a re-pricing. */
export interface CommittedWrite {
  /** Settled games newly stored by this commit (0 for a re-pricing). */
  games: number;
  /** Pool changes newly stored by this commit. */
  poolChanges: number;
  /** Games re-priced by this commit (docs/design.md §6); 0 for an events batch. */
  repricedGames: number;
  /** Newest slot among the events of the commit; null when it had none. */
  newestSlot: number | null;
  /** Newest block time among the events of the commit, Unix **ms**; null when it had none. */
  newestTimeMs: number | null;
}

/** The events an indexer announces, by name. */
export interface IndexerEventMap {
  /** After each committed write (the store transaction has committed). */
  committed: CommittedWrite;
}

/** Subscribe side: in-process listeners (the response cache; later a live stream of new games). */
export interface IndexerEvents {
  /** Adds a listener; returns the function that removes it. */
  on<K extends keyof IndexerEventMap>(name: K, listener: (event: IndexerEventMap[K]) => void): () => void;
}

/** The hub the process plumbing feeds (from the indexer itself or from its child process). */
export interface IndexerEventHub extends IndexerEvents {
  /** Calls every listener of `name` in order; a listener that throws is reported to `onListenerError` and the others still run. */
  emit<K extends keyof IndexerEventMap>(name: K, event: IndexerEventMap[K]): void;
}

/** An in-process hub of indexer events; a listener that throws goes to `onListenerError` (default: ignored) and the others still run. */
export function createIndexerEvents(onListenerError: (err: unknown) => void = () => undefined): IndexerEventHub {
  const listeners = new Map<keyof IndexerEventMap, Set<(event: never) => void>>();
  return {
    on(name, listener) {
      let set = listeners.get(name);
      if (!set) listeners.set(name, (set = new Set()));
      const fn = listener as (event: never) => void;
      set.add(fn);
      return () => void set.delete(fn);
    },
    emit(name, event) {
      for (const fn of [...(listeners.get(name) ?? [])]) {
        try {
          (fn as (e: typeof event) => void)(event);
        } catch (err) {
          onListenerError(err);
        }
      }
    },
  };
}
