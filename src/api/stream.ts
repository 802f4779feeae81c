import type { Logger } from '../core/index.js';
import type { IndexerEvents } from '../ingest/index.js';
import type { Store } from '../store/index.js';

/**
 * Live streams' shared side (docs/design.md §11 "Live streams"): which open streams each key
 * holds (the per-key cap), and when they should look at the store again. Each stream reads the
 * store after its last delivered position whenever it is woken, so what it delivers is what the
 * store holds, in keyset order, with no gap and no duplicate, however it was woken:
 * - the indexer's commits heard in this process (`IndexerEvents`: the indexer child of `serve`,
 *   relayed to `serve --workers`' workers), at once;
 * - otherwise (an API process without an indexer on its host: `serve --no-indexer`, scaled out)
 *   a poll of the store's counters every `pollMs` while a stream is open; a change wakes them.
 */

/** Live stream settings (ApiOptions.stream); every field has a default (DEFAULT_STREAM_OPTIONS). */
export interface StreamOptions {
  /** Comment line sent after this long without an event, ms (keeps proxies from closing idle streams). Default 15 000. */
  heartbeatMs: number;
  /** Open streams one API key may hold in this process; one more → 429 TOO_MANY_STREAMS. Default 5. */
  maxPerKey: number;
  /** Store poll interval without in-process indexer events, ms. Default 1000. */
  pollMs: number;
  /**
   * Longest hold of the store's newest block second, ms: its games may reach the store in two
   * commits (the tail's poll ended inside the second), and one sorting before an event already
   * sent would be skipped by the keyset. A later game in the store releases it at once (the tail
   * commits in chain order); this bound only matters on a quiet chain. Longer than the tail's
   * poll interval (POLL_INTERVAL_MS, 2 s). Default 5000.
   */
  settleMs: number;
}

/** Defaults of StreamOptions (docs/design.md §11). */
export const DEFAULT_STREAM_OPTIONS: StreamOptions = { heartbeatMs: 15_000, maxPerKey: 5, pollMs: 1000, settleMs: 5000 };

/** One open stream as the hub knows it: wake it (read the store again), end it (shutdown). */
export interface StreamHandle {
  wake(): void;
  end(): void;
}

/** The registry of open streams (createStreamHub). */
export interface StreamHub {
  readonly options: StreamOptions;
  /** Registers a stream of `key`; its release function, or undefined when the key already holds `maxPerKey`. */
  open(key: string, handle: StreamHandle): (() => void) | undefined;
  /** Open streams, all keys. */
  readonly size: number;
  /** Ends every open stream and stops polling (the app's preClose: shutdown never waits on a stream). */
  closeAll(): void;
}

/** The hub of one API process: wakes on `events` commits, or polls `store` when there are none. */
export function createStreamHub(deps: { store: Store; events?: IndexerEvents; options?: Partial<StreamOptions>; logger?: Logger }): StreamHub {
  const options: StreamOptions = { ...DEFAULT_STREAM_OPTIONS, ...deps.options };
  const byKey = new Map<string, Set<StreamHandle>>();
  const all = new Set<StreamHandle>();
  let poll: NodeJS.Timeout | undefined;
  let lastSeen: string | undefined;
  let polling = false;
  let closed = false;

  const wakeAll = (): void => {
    for (const h of [...all]) h.wake();
  };
  deps.events?.on('committed', (w) => {
    if (w.games > 0 || w.poolChanges > 0) wakeAll();
  });

  /** Without in-process events: the store's counters, compared with the previous poll's. */
  const pollOnce = async (): Promise<void> => {
    if (polling) return;
    polling = true;
    try {
      const c = await deps.store.queries.counts();
      const seen = JSON.stringify(c);
      if (lastSeen !== undefined && seen !== lastSeen) wakeAll();
      lastSeen = seen;
    } catch (err) {
      deps.logger?.warn({ msg: 'stream poll failed', err: String(err) });
    } finally {
      polling = false;
    }
  };
  const startPolling = (): void => {
    if (deps.events !== undefined || poll !== undefined || closed) return;
    void pollOnce();
    poll = setInterval(() => void pollOnce(), options.pollMs);
    poll.unref();
  };
  const stopPolling = (): void => {
    if (poll !== undefined && all.size === 0) {
      clearInterval(poll);
      poll = undefined;
      lastSeen = undefined;
    }
  };

  return {
    options,
    get size() {
      return all.size;
    },
    open(key, handle) {
      if (closed) return undefined;
      let set = byKey.get(key);
      if ((set?.size ?? 0) >= options.maxPerKey) return undefined;
      if (!set) byKey.set(key, (set = new Set()));
      set.add(handle);
      all.add(handle);
      startPolling();
      return () => {
        set.delete(handle);
        if (set.size === 0) byKey.delete(key);
        all.delete(handle);
        stopPolling();
      };
    },
    closeAll() {
      closed = true;
      for (const h of [...all]) h.end();
      if (poll !== undefined) clearInterval(poll);
      poll = undefined;
    },
  };
}
