/**
 * Triggered passes (docs/design.md §5 "POST /sync"): one in flight, triggers join it, and a
 * trigger within SYNC_MIN_INTERVAL_MS of the previous start joins or schedules the next allowed
 * pass. The pass here is a real promise the test resolves; the clock is the wall clock.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/index.js';
import { createTriggeredPasses } from '../../src/ingest/index.js';

/** A pass the test finishes by hand; `started` counts calls of run(). */
function controllablePasses(minIntervalMs: number) {
  const ends: (() => void)[] = [];
  let started = 0;
  const passes = createTriggeredPasses({
    clock: systemClock,
    minIntervalMs,
    run: () =>
      new Promise<void>((resolve) => {
        started++;
        ends.push(resolve);
      }),
  });
  return { passes, started: () => started, finish: () => ends.shift()?.() };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('triggered passes', () => {
  it('a burst of triggers while a pass runs joins it: one pass, one id', async () => {
    const { passes, started, finish } = controllablePasses(60_000);
    const first = passes.trigger();
    expect(first).toMatchObject({ alreadyRunning: false, scheduled: false });
    expect(first.passId).toMatch(/^pass_[0-9a-f]{16}$/);
    const rest = Array.from({ length: 300 }, () => passes.trigger());
    expect(started()).toBe(1);
    expect(passes.running()).toBe(true);
    for (const t of rest) expect(t).toEqual({ passId: first.passId, alreadyRunning: true, scheduled: false, startedAt: first.startedAt });
    finish();
    await tick();
    expect(passes.running()).toBe(false);
    passes.stop();
  });

  it('within the minimum interval after a start: later triggers share one scheduled pass, which starts on time', async () => {
    const interval = 300;
    const { passes, started, finish } = controllablePasses(interval);
    const first = passes.trigger();
    finish();
    await tick();
    const scheduled = passes.trigger();
    expect(scheduled).toMatchObject({ alreadyRunning: false, scheduled: true, startedAt: first.startedAt + interval });
    expect(scheduled.passId).not.toBe(first.passId);
    expect(passes.trigger()).toEqual(scheduled);
    expect(started()).toBe(1);
    expect(passes.running()).toBe(false);
    // It starts at startedAt (timer precision aside), not before.
    await new Promise((r) => setTimeout(r, Math.max(0, scheduled.startedAt - Date.now() + 100)));
    expect(started()).toBe(2);
    expect(passes.running()).toBe(true);
    const joined = passes.trigger();
    expect(joined).toMatchObject({ passId: scheduled.passId, alreadyRunning: true, scheduled: false });
    expect(joined.startedAt).toBeGreaterThanOrEqual(scheduled.startedAt);
    finish();
    await tick();
    passes.stop();
  });

  it('a trigger once the interval has passed starts a pass at once', async () => {
    const { passes, started, finish } = controllablePasses(50);
    passes.trigger();
    finish();
    await new Promise((r) => setTimeout(r, 80));
    const t = passes.trigger();
    expect(t).toMatchObject({ alreadyRunning: false, scheduled: false });
    expect(started()).toBe(2);
    finish();
    passes.stop();
  });

  it('runNow joins a running pass, starts a scheduled one early, and does not delay the next trigger', async () => {
    const { passes, started, finish } = controllablePasses(60_000);
    // runNow while nothing ran: its pass does not count for the interval.
    const internal = passes.runNow();
    expect(started()).toBe(1);
    const joined = passes.runNow();
    finish();
    await Promise.all([internal, joined]);
    expect(started()).toBe(1);
    const t = passes.trigger();
    expect(t.scheduled).toBe(false);
    expect(started()).toBe(2);
    finish();
    await tick();
    const scheduled = passes.trigger();
    expect(scheduled.scheduled).toBe(true);
    const early = passes.runNow();
    expect(started()).toBe(3);
    expect(passes.trigger()).toMatchObject({ passId: scheduled.passId, alreadyRunning: true });
    finish();
    await early;
    passes.stop();
  });

  it('stop cancels a scheduled pass', async () => {
    const { passes, started, finish } = controllablePasses(100);
    passes.trigger();
    finish();
    await tick();
    expect(passes.trigger().scheduled).toBe(true);
    passes.stop();
    await new Promise((r) => setTimeout(r, 200));
    expect(started()).toBe(1);
  });
});
