/**
 * Time source, injectable so tests drive time (rate-limit refill, active_players window)
 * without sleeps. `now()` is Unix time in **milliseconds**.
 */
export interface Clock {
  now(): number;
}

/** The wall clock (Date.now, Unix ms): the production Clock. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/** A clock that only moves when told; for tests. */
export class ManualClock implements Clock {
  private t: number;
  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.t = startMs;
  }
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    this.t = ms;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
