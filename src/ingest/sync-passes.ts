import { randomBytes } from 'node:crypto';
import type { SyncTrigger } from './controller.js';

/**
 * Triggered catch-up passes (docs/design.md §5 "POST /sync"): at most one in flight; triggers
 * while one runs join it; a trigger less than `minIntervalMs` after the previous triggered pass
 * started joins — or schedules — the next allowed pass, which starts `minIntervalMs` after the
 * previous start. So a burst of POST /sync (from any number of API processes) costs at most one
 * pass per interval of RPC calls, each answer naming the pass it got.
 */
export interface TriggeredPasses {
  /** The API's trigger (see SyncTrigger). */
  trigger(): SyncTrigger;
  /**
   * Internal callers (`syncNow`): joins the running pass or starts one now (a scheduled one
   * starts early); resolves when it is done. Such a pass does not delay the next trigger.
   */
  runNow(): Promise<void>;
  /** true while a triggered pass runs (not while one is only scheduled). */
  running(): boolean;
  /** Cancels a scheduled pass (shutdown). */
  stop(): void;
}

/** What createTriggeredPasses takes: the injected clock, the minimum interval, the pass to run. */
export interface TriggeredPassesOptions {
  clock: { now(): number };
  /** Minimum time between the starts of two triggered passes, ms (SYNC_MIN_INTERVAL_MS). */
  minIntervalMs: number;
  /** Runs one pass; rejections are the caller's to log (they end the pass). */
  run: () => Promise<void>;
}

/** Triggered passes as described on TriggeredPasses; pass ids are `pass_` + 16 random hex digits; the timer of a scheduled pass is real time. */
export function createTriggeredPasses(o: TriggeredPassesOptions): TriggeredPasses {
  let current: { id: string; startedAt: number; done: Promise<void> } | undefined;
  let next: { id: string; startsAt: number; timer: ReturnType<typeof setTimeout> } | undefined;
  let lastStartedAt = Number.NEGATIVE_INFINITY;
  let stopped = false;
  const newId = () => `pass_${randomBytes(8).toString('hex')}`;

  /** `paced`: counts as a triggered start for the minimum interval (internal runNow passes do not). */
  function start(id: string, paced = true): NonNullable<typeof current> {
    if (next?.id === id) {
      clearTimeout(next.timer);
      next = undefined;
    }
    const startedAt = o.clock.now();
    if (paced) lastStartedAt = startedAt;
    const pass = { id, startedAt, done: Promise.resolve() };
    current = pass;
    pass.done = o.run().finally(() => {
      if (current === pass) current = undefined;
    });
    pass.done.catch(() => undefined); // a trigger does not wait for its pass; runNow callers see the rejection
    return pass;
  }

  return {
    trigger() {
      if (current) return { passId: current.id, alreadyRunning: true, scheduled: false, startedAt: current.startedAt };
      if (next) return { passId: next.id, alreadyRunning: false, scheduled: true, startedAt: next.startsAt };
      const now = o.clock.now();
      if (stopped || now - lastStartedAt >= o.minIntervalMs) {
        const pass = start(newId());
        return { passId: pass.id, alreadyRunning: false, scheduled: false, startedAt: pass.startedAt };
      }
      const id = newId();
      const startsAt = lastStartedAt + o.minIntervalMs;
      // Node's timers run on a monotonic clock and may fire a millisecond before the injected
      // clock reaches `startsAt`: re-arm for the rest, so the pass never starts before it said.
      const fire = (): void => {
        if (stopped || next?.id !== id) return;
        const left = startsAt - o.clock.now();
        if (left > 0) next.timer = setTimeout(fire, left);
        else start(id);
      };
      next = { id, startsAt, timer: setTimeout(fire, startsAt - now) };
      return { passId: id, alreadyRunning: false, scheduled: true, startedAt: startsAt };
    },
    runNow() {
      if (current) return current.done;
      return start(next?.id ?? newId(), next !== undefined).done;
    },
    running: () => current !== undefined,
    stop() {
      stopped = true;
      if (next) clearTimeout(next.timer);
      next = undefined;
    },
  };
}
