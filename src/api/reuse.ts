import type { Clock } from '../core/index.js';

/**
 * A store read reused for up to `ttlMs` (0 = every call reads) and never across a write this
 * process made or heard of (`generation`, Store.generation), so a burst of polls costs one read
 * while the value stays at most `ttlMs` behind another process's writes (docs/design.md §5
 * "Freshness headers"). Concurrent calls share one read; a failed read is not kept, so the next
 * call reads again. Used for the status counters, the latest coverage run of `/status` and the
 * freshness headers.
 */
export function reusedRead<T>(read: () => Promise<T>, clock: Clock, ttlMs: number, generation: () => number): () => Promise<T> {
  if (ttlMs <= 0) return read;
  let last: { at: number; generation: number; value: Promise<T> } | undefined;
  return () => {
    const now = clock.now();
    const gen = generation();
    if (last !== undefined && last.generation === gen && now >= last.at && now - last.at < ttlMs) return last.value;
    const entry = { at: now, generation: gen, value: read() };
    last = entry;
    entry.value.catch(() => {
      if (last === entry) last = undefined;
    });
    return entry.value;
  };
}
