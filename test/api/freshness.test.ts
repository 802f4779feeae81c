/**
 * Freshness headers (docs/design.md §5 "Freshness headers"): every operation's answer carries
 * `X-Indexed-Slot` and `X-Indexed-Time` = the slot and block time of the store's newest event
 * (game or pool change, chain order), computed here from the fixture's events; a cached answer
 * carries the headers it was computed with, and the same write generation that moves its ETag
 * moves them; an empty store sends neither. They are in the OpenAPI document and exposed by CORS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommon, ManualClock } from '../../src/core/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { generateFixture, type Fixture } from '../helpers/fixture.js';
import { loadFixture, queryString } from '../helpers/contract-world.js';

const TTL = 5000;
let dir: string;
let store: Store;
let fixture: Fixture;
let clock: ManualClock;
let cached: TestApp;
let plain: TestApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gamba-fresh-'));
  fixture = generateFixture({ seed: 7, games: 400, poolChanges: 40 });
  store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
  await loadFixture(store, fixture);
  clock = new ManualClock(fixture.nowMs);
  cached = await buildTestApp({ store, clock, options: { cache: { ttlMs: TTL } } });
  plain = await buildTestApp({ store, clock });
});
afterAll(async () => {
  await cached?.close();
  await plain?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The newest of `events` in chain order (slot, signature, event index): games and pool changes only. */
function newest(events: readonly LocatedEvent[]): { slot: number; time: string } {
  const data = events.filter((e) => e.name === 'GameSettled' || e.name === 'PoolChange');
  const last = data.reduce((a, e) => (e.slot > a.slot || (e.slot === a.slot && (e.signature > a.signature || (e.signature === a.signature && e.eventIndex > a.eventIndex))) ? e : a));
  return { slot: last.slot, time: new Date(last.blockTime * 1000).toISOString() };
}

async function get(app: TestApp, url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${app.baseUrl}${url}`, { ...init, headers: { 'X-API-Key': app.key, ...(init.headers as Record<string, string> | undefined) } });
}

/** One GET per operation (docs/spec.md §4 and the extensions). */
function operations(f: Fixture): string[] {
  return [
    '/status', '/sync/status', '/stats', `/stats${queryString({ creator: f.creators[0], startTime: f.nowMs - 86_400_000, endTime: f.nowMs })}`,
    `/player${queryString({ user: f.users[0] })}`, '/players', '/events/settledGames', `/events/poolChanges${queryString({ pool: f.pools.SOL_A })}`,
    '/platforms', `/platforms-by-pool${queryString({ pool: f.pools.SOL_A })}`, '/tokens', `/ratio${queryString({ pool: f.pools.SOL_A })}`,
    `/total${queryString({ pool: f.pools.SOL_A })}`, `/daily${queryString({ pool: f.pools.SOL_A, tz: 'Europe/Berlin' })}`, '/chart/plays',
    `/chart/daily-usd${queryString({ interval: 'week' })}`, '/chart/dao-usd', '/pools', `/pool${queryString({ pool: f.pools.SOL_A })}`,
  ];
}

describe('freshness headers', () => {
  it('equal the newest indexed event on every operation, cached and uncached', async () => {
    const want = newest(fixture.events);
    for (const app of [plain, cached]) {
      for (let round = 0; round < 2; round++) {
        for (const url of operations(fixture)) {
          const r = await get(app, url);
          expect(r.status, url).toBe(200);
          expect(r.headers.get('x-indexed-slot'), `${url} round ${round}`).toBe(String(want.slot));
          expect(r.headers.get('x-indexed-time'), `${url} round ${round}`).toBe(want.time);
        }
      }
    }
    // A 304 revalidation of a cached answer carries them too.
    const first = await get(cached, '/tokens');
    const again = await get(cached, '/tokens', { headers: { 'If-None-Match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('x-indexed-slot')).toBe(String(want.slot));
  });

  it('move with a write, together with the cached answer and its ETag', async () => {
    const before = await get(cached, '/stats');
    const etag = before.headers.get('etag');
    const template = fixture.events.find((e) => e.name === 'GameSettled')!;
    const slot = newest(fixture.events).slot + 1000;
    // Slots grow with block time: the new event is newer in both.
    const blockTime = fixture.nowMs / 1000 + 5;
    const g = { ...template, signature: template.signature.slice(0, -4) + 'zzzz', slot, blockTime, eventIndex: 0 } as LocatedEvent;
    await store.writeBatch({ events: [g], signatures: [{ signature: g.signature, slot, blockTime, failed: false }] });
    for (const app of [cached, plain]) {
      const r = await get(app, '/stats');
      expect(r.headers.get('x-indexed-slot')).toBe(String(slot));
      expect(r.headers.get('x-indexed-time')).toBe(new Date(blockTime * 1000).toISOString());
    }
    const after = await get(cached, '/stats');
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(after.headers.get('x-indexed-slot')).toBe(String(slot));
  });

  it('an empty store sends neither header', async () => {
    const empty = await buildTestApp({ clock: new ManualClock(fixture.nowMs), options: { cache: { ttlMs: TTL } } });
    try {
      for (const url of ['/stats', '/chart/plays', '/status']) {
        const r = await get(empty, url);
        expect(r.status).toBe(200);
        expect(r.headers.has('x-indexed-slot')).toBe(false);
        expect(r.headers.has('x-indexed-time')).toBe(false);
      }
    } finally {
      await empty.close();
    }
  });

  it('are documented on every protected operation and exposed to browsers', async () => {
    const doc = (await (await fetch(`${plain.baseUrl}/openapi.json`)).json()) as any;
    let n = 0;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        if (['/health', '/ready'].includes(path)) continue;
        const ok = op.responses['200'] ?? op.responses['202'];
        expect(Object.keys(ok.headers ?? {}), `${method} ${path}`).toEqual(expect.arrayContaining(['X-Indexed-Slot', 'X-Indexed-Time']));
        n++;
      }
    }
    expect(n).toBeGreaterThan(15);
    const pre = await fetch(`${plain.baseUrl}/stats`, { headers: { 'X-API-Key': plain.key, Origin: 'https://example.com' } });
    expect(pre.headers.get('access-control-expose-headers')).toMatch(/X-Indexed-Slot/i);
  });
});
