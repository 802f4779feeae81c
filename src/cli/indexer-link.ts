import { AppError, type Common } from '../core/index.js';
import { createIndexerEvents, type CommittedWrite, type IndexerEventHub, type SyncController, type SyncState, type SyncTrigger } from '../ingest/controller.js';
import type { Store } from '../store/index.js';

/**
 * The IPC link between the indexer process and the processes that answer HTTP
 * (docs/architecture.md "Process topology"). The indexer child pushes its sync state (on change
 * and at least every second) and a `committed` message after each committed write; the API side
 * mirrors the state, re-emits the commits as indexer events, and sends triggers (POST /sync) and
 * metrics requests, answered by id. With `serve --workers N` the primary relays the same
 * messages between the child and its workers (src/cli/cluster.ts).
 */

/** Indexer → API side. */
export type IndexerUpdate =
  | { type: 'indexer.state'; state: SyncState }
  | { type: 'indexer.committed'; write: CommittedWrite }
  | { type: 'indexer.triggered'; id: number; trigger?: SyncTrigger; error?: string }
  | { type: 'indexer.metrics'; id: number; metrics: object[] };

/** API side → indexer. */
export type IndexerRequest = { type: 'indexer.trigger'; id: number } | { type: 'indexer.metrics?'; id: number };

/** Whether an IPC message is an IndexerUpdate (checks the `type` only). */
export function isIndexerUpdate(m: unknown): m is IndexerUpdate {
  const t = (m as { type?: unknown } | null)?.type;
  return t === 'indexer.state' || t === 'indexer.committed' || t === 'indexer.triggered' || t === 'indexer.metrics';
}

/** Whether an IPC message is an IndexerRequest (its `type` and a numeric `id`). */
export function isIndexerRequest(m: unknown): m is IndexerRequest {
  const t = (m as { type?: unknown } | null)?.type;
  return (t === 'indexer.trigger' || t === 'indexer.metrics?') && typeof (m as { id?: unknown }).id === 'number';
}

// ───────────────────────────── indexer side ─────────────────────────────

/** How often the indexer re-sends an unchanged state, ms (the API's view is at most this old). */
export const STATE_PUSH_MS = 1000;
/** How often the indexer looks for a changed state, ms. */
const STATE_SAMPLE_MS = 200;

/**
 * In the indexer child: pushes `controller.state()` (when it changed, and every STATE_PUSH_MS),
 * answers triggers and metrics requests from the parent. `send` is `process.send`. Registers its
 * stop step with common.shutdown.
 */
export function exposeIndexer(o: { common: Common; controller: SyncController; send: (m: IndexerUpdate) => void; onRequest: (fn: (m: unknown) => void) => void }): void {
  const { common, controller, send } = o;
  let last = '';
  let lastAt = 0;
  const push = () => {
    const state = controller.state();
    const text = JSON.stringify(state);
    const now = Date.now();
    if (text === last && now - lastAt < STATE_PUSH_MS) return;
    last = text;
    lastAt = now;
    send({ type: 'indexer.state', state });
  };
  const timer = setInterval(push, STATE_SAMPLE_MS);
  timer.unref();
  push();
  o.onRequest((m) => {
    if (!isIndexerRequest(m)) return;
    if (m.type === 'indexer.trigger') {
      controller.trigger().then(
        (trigger) => {
          send({ type: 'indexer.triggered', id: m.id, trigger });
          push(); // `syncing` likely changed
        },
        (err: unknown) => send({ type: 'indexer.triggered', id: m.id, error: (err as Error).message }),
      );
    } else {
      common.metrics.registry.getMetricsAsJSON().then(
        (metrics) => send({ type: 'indexer.metrics', id: m.id, metrics }),
        () => send({ type: 'indexer.metrics', id: m.id, metrics: [] }),
      );
    }
  });
  common.shutdown.register('indexer-link', () => clearInterval(timer));
}

/**
 * The store the indexer child writes through: the same store, announcing each committed write
 * (events batch or re-pricing) to `onCommitted` once its transaction has committed.
 */
export function announceCommits(store: Store, onCommitted: (w: CommittedWrite) => void): Store {
  return {
    ...store,
    async writeBatch(batch) {
      const r = await store.writeBatch(batch);
      let newestSlot: number | null = null;
      let newestTimeMs: number | null = null;
      for (const e of batch.events) {
        if (newestSlot === null || e.slot > newestSlot) newestSlot = e.slot;
        if (newestTimeMs === null || e.blockTime * 1000 > newestTimeMs) newestTimeMs = e.blockTime * 1000;
      }
      onCommitted({ games: r.gamesInserted, poolChanges: r.poolChangesInserted, repricedGames: 0, newestSlot, newestTimeMs });
      return r;
    },
    async putPrices(prices) {
      const repriced = await store.putPrices(prices);
      if (repriced > 0) onCommitted({ games: 0, poolChanges: 0, repricedGames: repriced, newestSlot: null, newestTimeMs: null });
      return repriced;
    },
  };
}

// ───────────────────────────── API side ─────────────────────────────

/** How long a trigger or metrics request waits for the indexer's answer, ms. */
const REQUEST_TIMEOUT_MS = 5000;

/** What an API process (or the primary) knows of the indexer: its mirrored controller and events. */
export interface IndexerMirror {
  /** The controller the routes use: the last state pushed; triggers forwarded. */
  sync: SyncController;
  /** `committed` of every write the indexer announced. */
  events: IndexerEventHub;
  /** Feeds one message from the indexer (or the primary's relay). */
  receive(message: IndexerUpdate): void;
  /** The indexer went away (exited, restarting): pending requests fail, the state says so. */
  down(): void;
  /** Asks the indexer for its metrics (prom-client JSON); [] when it cannot answer in time. */
  metrics(): Promise<object[]>;
  /** Sends one request and resolves with the indexer's answer (the primary relays workers' requests this way). */
  request(kind: IndexerRequest['type']): Promise<IndexerUpdate>;
}

/** 503 SERVICE_UNAVAILABLE for the routes (src/api/errors.ts). */
const unavailable = (message: string) => new AppError('SERVICE_UNAVAILABLE', message);

const NO_STATE: SyncState = { syncing: false, lastSync: null, lagSlots: null, lagSeconds: null };

/**
 * The API side of the link. `send` delivers a request (to the child, or to the primary from a
 * worker) and says whether it could. A trigger the indexer cannot take (not running, no answer
 * in 5 s) rejects with 503 SERVICE_UNAVAILABLE.
 */
export function createIndexerMirror(o: { common: Common; send: (m: IndexerRequest) => boolean }): IndexerMirror {
  const { logger } = o.common;
  const events = createIndexerEvents((err) => logger.error({ err }, 'indexer event listener failed'));
  let state: SyncState = NO_STATE;
  let up = false;
  let nextId = 0;
  const pending = new Map<number, { resolve: (m: IndexerUpdate) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }>();

  const request = (type: IndexerRequest['type']): Promise<IndexerUpdate> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      if (!o.send({ type, id })) return reject(unavailable('The indexer is not running right now (restarting); try again shortly'));
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(unavailable('The indexer did not answer in time; try again shortly'));
      }, REQUEST_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
    });

  return {
    events,
    request,
    sync: {
      // Between a crash and the restarted child's first push: the last state, not syncing, saying why.
      state: () => (up || state === NO_STATE ? state : { ...state, syncing: false, lastError: 'indexer process not running (restarting)' }),
      async trigger() {
        const answer = await request('indexer.trigger');
        if (answer.type !== 'indexer.triggered' || !answer.trigger) throw unavailable('The indexer could not start a sync; try again shortly');
        return answer.trigger;
      },
    },
    receive(m) {
      switch (m.type) {
        case 'indexer.state':
          state = m.state;
          up = true;
          return;
        case 'indexer.committed':
          events.emit('committed', m.write);
          return;
        default: {
          const p = pending.get(m.id);
          if (!p) return;
          pending.delete(m.id);
          clearTimeout(p.timer);
          p.resolve(m);
        }
      }
    },
    down() {
      up = false;
      for (const [id, p] of pending) {
        clearTimeout(p.timer);
        p.reject(unavailable('The indexer stopped before answering; try again shortly'));
        pending.delete(id);
      }
    },
    async metrics() {
      try {
        const answer = await request('indexer.metrics?');
        return answer.type === 'indexer.metrics' ? answer.metrics : [];
      } catch {
        return [];
      }
    },
  };
}
