/**
 * Distinct players of closed windows from migration 0016's tables (docs/design.md §7 "Distinct
 * players of a closed window"), on both backends:
 * - the fixture is written in an order the indexer produces (the backfill's batches newest first,
 *   then shuffled batches, then the newest events again as a replayed tail), so new active days
 *   land before, between and after known ones; ru_active_day / ru_return_day / ru_return_block
 *   must then equal a rebuild from raw games, row for row;
 * - /stats `players` (every game and each creator) and /platforms `unique_players` over random
 *   windows with cut edges must equal distinct players counted over the raw events.
 */
import { describe, expect, it } from 'vitest';
import { MS_PER_DAY, MS_PER_HOUR } from '../../src/core/index.js';
import { createCommon } from '../../src/core/index.js';
import { createStore } from '../../src/store/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { derivedRows, expectSameRows, openPlace } from '../helpers/derived.js';
import { generateFixture, Rng, type Fixture } from '../helpers/fixture.js';
import { testDialects } from '../helpers/store.js';

const TABLES = ['ru_active_day', 'ru_return_day', 'ru_return_block'] as const;

/** Transaction-aligned batches of about `size` events, in chain order. */
function batches(f: Fixture, size: number): LocatedEvent[][] {
  const out: LocatedEvent[][] = [];
  let cur: LocatedEvent[] = [];
  f.events.forEach((e, i) => {
    cur.push(e);
    const next = f.events[i + 1];
    if (cur.length >= size && (!next || next.signature !== e.signature)) {
      out.push(cur);
      cur = [];
    }
  });
  if (cur.length) out.push(cur);
  return out;
}

/** Distinct players of the fixture's games with start ≤ time < end, per creator and overall (''). */
function bruteForce(f: Fixture, start: number, end: number): Map<string, number> {
  const sets = new Map<string, Set<string>>([['', new Set()]]);
  for (const e of f.events) {
    if (e.name !== 'GameSettled') continue;
    const t = e.blockTime * 1000;
    if (t < start || t >= end) continue;
    sets.get('')!.add(e.data.user);
    if (!sets.has(e.data.creator)) sets.set(e.data.creator, new Set());
    sets.get(e.data.creator)!.add(e.data.user);
  }
  return new Map([...sets].map(([k, s]) => [k, s.size]));
}

/**
 * ru_active_day as the raw events make it, in its key order: per group ('' and each creator),
 * player and UTC day, the day's first and last game (ms) and the previous (-1: none) and next
 * (null: none) active day, as `creator player day first last prev next` lines.
 */
function activeDays(f: Fixture): string[] {
  const days = new Map<string, Map<number, [number, number]>>();
  for (const e of f.events) {
    if (e.name !== 'GameSettled') continue;
    const t = e.blockTime * 1000;
    const day = Math.floor(t / MS_PER_DAY);
    for (const group of ['', e.data.creator]) {
      const k = `${group} ${e.data.user}`;
      if (!days.has(k)) days.set(k, new Map());
      const span = days.get(k)!.get(day);
      days.get(k)!.set(day, span ? [Math.min(span[0], t), Math.max(span[1], t)] : [t, t]);
    }
  }
  const lines: [string, string, number, string][] = [];
  for (const [k, m] of days) {
    const [group, player] = k.split(' ') as [string, string];
    const sorted = [...m.keys()].sort((x, y) => x - y);
    sorted.forEach((day, i) => {
      const [first, last] = m.get(day)!;
      lines.push([group, player, day, `${group} ${player} ${day} ${first} ${last} ${sorted[i - 1] ?? -1} ${sorted[i + 1] ?? null}`]);
    });
  }
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return lines.sort((x, y) => cmp(x[0], y[0]) || cmp(x[1], y[1]) || x[2] - y[2]).map((l) => l[3]);
}

describe.each(testDialects())('distinct players of closed windows (%s)', (dialect) => {
  it('equal a rebuild whatever the write order, and the raw events over random windows', async () => {
    const place = await openPlace(dialect, 'returns');
    const store = await createStore({ common: createCommon(), config: place.config });
    try {
      const f = generateFixture({ seed: 1616, games: 1500, poolChanges: 100 });
      await store.upsertMints(f.mints);
      await store.putPrices(f.prices);
      const bySig = new Map(f.signatures.map((s) => [s.signature, s]));
      const write = (events: LocatedEvent[]) => store.writeBatch({ events, signatures: [...new Set(events.map((e) => e.signature))].map((s) => bySig.get(s)!) });
      const all = batches(f, 60);
      const rng = new Rng(7);
      const rand = () => rng.float();
      // The newest third as a backfill (newest batch first), the middle shuffled, the oldest in order, then the newest again (replayed).
      const third = Math.floor(all.length / 3);
      const newest = all.slice(all.length - third).reverse();
      const middle = all.slice(third, all.length - third).sort(() => rand() - 0.5);
      for (const b of [...newest, ...middle, ...all.slice(0, third), ...newest.slice(0, 3)]) await write(b);

      const incremental = await derivedRows(place);
      expect(incremental.get('ru_return_day')!.some((r) => Number(r.prev_day) >= 0)).toBe(true);
      // Each active day's first and last game and its links to the player's neighbouring days (migration 0024).
      const stored = incremental.get('ru_active_day')!.map((r) => [r.creator, r.player, r.day, r.first_ms, r.last_ms, r.prev_day, r.next_day].map(String).join(' '));
      expect(stored).toEqual(activeDays(f));
      await store.rebuildRollups();
      const rebuilt = await derivedRows(place);
      for (const t of TABLES) expectSameRows(t, rebuilt.get(t)!, incremental.get(t)!, 'rebuild');

      const times = f.events.map((e) => e.blockTime * 1000);
      const first = Math.min(...times);
      const last = Math.max(...times);
      const creators = [...new Set(f.events.flatMap((e) => (e.name === 'GameSettled' ? [e.data.creator] : [])))];
      const windows: [number, number][] = [
        [first, last + 1],
        [first - MS_PER_DAY, first + 1],
        [Math.floor(last / MS_PER_DAY) * MS_PER_DAY, last + 1],
        [Math.floor(first / MS_PER_DAY + 40) * MS_PER_DAY, Math.floor(first / MS_PER_DAY + 120) * MS_PER_DAY],
      ];
      for (let i = 0; i < 40; i++) {
        const a = first + rand() * (last - first);
        // Lengths from minutes to the whole history; starts and ends anywhere in a day.
        const len = [MS_PER_HOUR / 6, MS_PER_HOUR * 5, MS_PER_DAY * 1.5, MS_PER_DAY * 40, MS_PER_DAY * 200][i % 5]! * (0.5 + rand());
        windows.push([Math.floor(a), Math.floor(a + len)]);
      }
      for (const [startTime, endTime] of windows) {
        const expected = bruteForce(f, startTime, endTime);
        const all = await store.queries.stats({ startTime, endTime, now: last });
        expect(all.players, `/stats [${startTime}, ${endTime})`).toBe(expected.get('') ?? 0);
        for (const creator of creators) {
          const one = await store.queries.stats({ creator, startTime, endTime, now: last });
          expect(one.players, `/stats creator ${creator} [${startTime}, ${endTime})`).toBe(expected.get(creator) ?? 0);
        }
        const page = await store.queries.platforms({ startTime, endTime, days: 1, limit: 100, sortBy: 'usd_volume', now: last });
        expect(new Set(page.map((r) => r.creator))).toEqual(new Set(creators.filter((c) => (expected.get(c) ?? 0) > 0)));
        for (const r of page) expect(r.unique_players, `/platforms ${r.creator} [${startTime}, ${endTime})`).toBe(expected.get(r.creator));
      }
    } finally {
      await store.close();
      await place.close();
    }
  });

  it('stay exact when batches are written side by side (each write transaction reads what the earlier ones committed)', async () => {
    const place = await openPlace(dialect, 'returns_side');
    const store = await createStore({ common: createCommon(), config: place.config });
    try {
      const f = generateFixture({ seed: 1617, games: 600, poolChanges: 20 });
      await store.upsertMints(f.mints);
      await store.putPrices(f.prices);
      const bySig = new Map(f.signatures.map((s) => [s.signature, s]));
      // Small batches in a shuffled order, four in flight at a time (as a backfill and a tail
      // beside it, and more): on PostgreSQL they run on several pool connections, and a player's
      // days arrive between each other.
      const rng = new Rng(11);
      const queue = batches(f, 8).sort(() => rng.float() - 0.5);
      const worker = async () => {
        for (let events = queue.pop(); events; events = queue.pop()) await store.writeBatch({ events, signatures: [...new Set(events.map((e) => e.signature))].map((s) => bySig.get(s)!) });
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      const incremental = await derivedRows(place);
      await store.rebuildRollups();
      const rebuilt = await derivedRows(place);
      for (const t of [...TABLES, 'ru_fair_day'] as const) expectSameRows(t, rebuilt.get(t)!, incremental.get(t)!, 'concurrent writes');
    } finally {
      await store.close();
      await place.close();
    }
  });
});
