/**
 * The response cache (docs/benchmarks.md; docs/design.md §5) over the contract fixture on a real socket:
 * - a cached answer is the query's own answer (equals the oracle and the uncached app), for
 *   many distinct queries interleaved, and parameter order / explicit defaults share an entry;
 * - no answer is older than the TTL: a write by ANOTHER process (a second Store on the same
 *   SQLite file, which the API's store cannot see) shows up exactly when the TTL elapses on
 *   the ManualClock, and an in-process write shows up at once (write generation), as does
 *   another process's write once the indexer announces its commit (indexer events);
 * - ETag / If-None-Match → 304, Cache-Control max-age counts down;
 * - auth and the rate limit still run on hits; /status is never cached.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommon, ManualClock } from '../../src/core/index.js';
import { createIndexerEvents } from '../../src/ingest/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createOracle, type Oracle } from '../helpers/bruteforce.js';
import { generateFixture, type Fixture } from '../helpers/fixture.js';
import { expectJson, withoutCursor } from '../helpers/compare.js';
import { loadFixture, queryString } from '../helpers/contract-world.js';

const TTL = 5000;
let dir: string;
let store: Store;
let fixture: Fixture;
let oracle: Oracle;
let clock: ManualClock;
let cached: TestApp;
let plain: TestApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gamba-cache-'));
  fixture = generateFixture({ seed: 5, games: 600, poolChanges: 60 });
  oracle = createOracle(fixture);
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

async function get(app: TestApp, url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${app.baseUrl}${url}`, { headers: { 'X-API-Key': app.key, ...headers } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** A settled game by a brand-new player, 10 s before the fixture's now. */
function newGame(n: number, user = fixture.edgeOutUser, creator?: string): LocatedEvent {
  const template = fixture.events.find((e) => e.name === 'GameSettled')!;
  if (template.name !== 'GameSettled') throw new Error('unreachable');
  const sig = template.signature.slice(0, -6) + String(100000 + n).slice(-6).replace(/0/g, 'z');
  return { ...template, signature: sig, slot: template.slot + 10_000_000 + n, blockTime: fixture.nowMs / 1000 - 10, eventIndex: 0, data: { ...template.data, user, creator: creator ?? template.data.creator } };
}

describe('response cache', () => {
  it('serves each query its own answer, equal to the uncached app and the oracle', async () => {
    const f = fixture;
    const urls: [string, unknown][] = [
      [`/players${queryString({ sortBy: 'usd_volume', limit: 5 })}`, oracle.players({ sortBy: 'usd_volume', limit: 5, offset: 0 })],
      [`/players${queryString({ sortBy: 'usd_volume', limit: 5, offset: 5 })}`, oracle.players({ sortBy: 'usd_volume', limit: 5, offset: 5 })],
      [`/players${queryString({ sortBy: 'usd_profit', limit: 5 })}`, oracle.players({ sortBy: 'usd_profit', limit: 5, offset: 0 })],
      [`/players${queryString({ creator: f.creators[0], limit: 5 })}`, oracle.players({ creator: f.creators[0], sortBy: 'usd_profit', limit: 5, offset: 0 })],
      [`/players${queryString({ creator: f.creators[1], limit: 5 })}`, oracle.players({ creator: f.creators[1], sortBy: 'usd_profit', limit: 5, offset: 0 })],
      [`/stats`, oracle.stats()],
      [`/stats${queryString({ creator: f.creators[0] })}`, oracle.stats({ creator: f.creators[0] })],
      [`/tokens`, oracle.tokens()],
      [`/total${queryString({ pool: f.pools.SOL_A })}`, oracle.total(f.pools.SOL_A)],
      [`/total${queryString({ pool: f.pools.BONK })}`, oracle.total(f.pools.BONK)],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [url, expected] of urls) {
        const r = await get(cached, url);
        expect(r.status, url).toBe(200);
        const p = await get(plain, url);
        expect(r.text, `${url} round ${round}`).toBe(p.text);
        const body = JSON.parse(r.text);
        expectJson(url.startsWith('/tokens') ? body.results : withoutCursor(body), expected, `${url} round ${round}`);
        expect(r.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
      }
    }
    // Distinct queries, distinct bodies and tags (no query got another's answer).
    const tags = await Promise.all(urls.map(async ([url]) => (await get(cached, url)).headers.get('etag')));
    expect(new Set(tags).size).toBe(urls.length);
  });

  it('folds parameter order and defaults into one entry', async () => {
    const a = await get(cached, `/players?sortBy=usd_volume&limit=7&creator=${fixture.creators[0]}`);
    const b = await get(cached, `/players?creator=${fixture.creators[0]}&limit=7&sortBy=usd_volume&offset=0`);
    expect(b.text).toBe(a.text);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    const other = await get(cached, `/players?creator=${fixture.creators[0]}&limit=7&sortBy=usd_volume&offset=1`);
    expect(other.text).not.toBe(a.text);
  });

  it('never serves an answer older than the TTL, even for writes it cannot see', async () => {
    const url = `/events/settledGames?user=${fixture.edgeOutUser}`;
    clock.set(fixture.nowMs);
    const before = await get(cached, url);
    const n0 = JSON.parse(before.text).total as number;
    // Another process writes (its own Store object: the API's write generation does not move).
    const other = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
    const g = newGame(1);
    await other.writeBatch({ events: [g], signatures: [{ signature: g.signature, slot: g.slot, blockTime: g.blockTime, failed: false }] });
    await other.close();
    expect(JSON.parse((await get(plain, url)).text).total).toBe(n0 + 1);
    clock.set(fixture.nowMs + TTL - 1);
    expect(JSON.parse((await get(cached, url)).text).total, 'within the TTL').toBe(n0);
    clock.set(fixture.nowMs + TTL);
    expect(JSON.parse((await get(cached, url)).text).total, 'at the TTL').toBe(n0 + 1);
  });

  it('is bounded in bytes: answers past maxBytes are evicted, least recently used first', async () => {
    // Two answers above 4 KiB (kept as bytes only, no pre-serialised text) and a bound that holds
    // one of them with its compressed form, key and overhead, but not both.
    const urlA = `/events/settledGames?creator=${fixture.creators[0]}&itemsPerPage=60`;
    const urlB = `/events/settledGames?creator=${fixture.creators[1]}&itemsPerPage=60`;
    const sizeA = Buffer.byteLength((await get(plain, urlA)).text);
    const sizeB = Buffer.byteLength((await get(plain, urlB)).text);
    expect(Math.min(sizeA, sizeB)).toBeGreaterThan(4200);
    const bound = Math.ceil(1.5 * Math.max(sizeA, sizeB)) + 1024;
    expect(bound).toBeLessThan(sizeA + sizeB);
    const small = await buildTestApp({ store, clock, options: { cache: { ttlMs: TTL, maxBytes: bound } } });
    const roomy = await buildTestApp({ store, clock, options: { cache: { ttlMs: TTL } } });
    try {
      clock.set(fixture.nowMs);
      const n0 = JSON.parse((await get(small, urlA)).text).total as number;
      expect(JSON.parse((await get(roomy, urlA)).text).total).toBe(n0);
      // Another process writes (invisible to the write generation): only an evicted answer shows it before the TTL.
      const other = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
      const g = newGame(7, fixture.edgeOutUser, fixture.creators[0]);
      await other.writeBatch({ events: [g], signatures: [{ signature: g.signature, slot: g.slot, blockTime: g.blockTime, failed: false }] });
      await other.close();
      // Still cached in both (A alone fits the bound).
      expect(JSON.parse((await get(small, urlA)).text).total).toBe(n0);
      // B is stored in the small cache: A, least recently used, must go.
      await get(small, urlB);
      await get(roomy, urlB);
      expect(JSON.parse((await get(small, urlA)).text).total, 'evicted: computed again').toBe(n0 + 1);
      expect(JSON.parse((await get(roomy, urlA)).text).total, 'kept within the default bound').toBe(n0);
    } finally {
      await small.close();
      await roomy.close();
    }
  });

  it('shows an in-process write at once', async () => {
    const url = `/players?sortBy=usd_volume&limit=1000&creator=${fixture.creators[0]}`;
    const before = JSON.parse((await get(cached, url)).text).total as number;
    const g = newGame(2, 'NewP1ayer1111111111111111111111111111111111', fixture.creators[0]!);
    await store.writeBatch({ events: [g] });
    const after = JSON.parse((await get(cached, url)).text).total as number;
    expect(after).toBe(before + 1);
  });

  it('shows another process’s write as soon as its commit is announced (indexer events)', async () => {
    // The API process's view: a read-only store of its own and the indexer's announcements.
    const events = createIndexerEvents();
    const readonly = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') }, access: 'readonly' });
    // Keys are minted by the operator's read-write store (as `keys create` does); the API reads them.
    const announced = await buildTestApp({ store: { ...readonly, keys: { ...readonly.keys, insert: store.keys.insert } }, clock, events, options: { cache: { ttlMs: TTL } } });
    try {
      clock.set(fixture.nowMs + 50_000);
      const url = `/events/settledGames?user=${fixture.edgeOutUser}&itemsPerPage=3`;
      const n0 = JSON.parse((await get(announced, url)).text).total as number;
      const g = newGame(3);
      const other = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
      await other.writeBatch({ events: [g], signatures: [{ signature: g.signature, slot: g.slot, blockTime: g.blockTime, failed: false }] });
      await other.close();
      // Not announced yet: the cached answer stands (within the TTL).
      expect(JSON.parse((await get(announced, url)).text).total).toBe(n0);
      events.emit('committed', { games: 1, poolChanges: 0, repricedGames: 0, newestSlot: g.slot, newestTimeMs: g.blockTime * 1000 });
      expect(JSON.parse((await get(announced, url)).text).total).toBe(n0 + 1);
      // /status counters (reused ≤ 1 s) follow the announcement too.
      const status = JSON.parse((await get(announced, '/sync/status')).text).data.totalGames as number;
      const g2 = newGame(4);
      const again = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
      await again.writeBatch({ events: [g2] });
      await again.close();
      events.emit('committed', { games: 1, poolChanges: 0, repricedGames: 0, newestSlot: g2.slot, newestTimeMs: g2.blockTime * 1000 });
      expect(JSON.parse((await get(announced, '/sync/status')).text).data.totalGames).toBe(status + 1);
    } finally {
      await announced.close();
      await readonly.close();
    }
  });

  it('ETag and If-None-Match → 304; Cache-Control max-age counts down', async () => {
    clock.set(fixture.nowMs + 100_000);
    const url = `/tokens?creator=${fixture.creators[2]}`;
    const first = await get(cached, url);
    expect(first.headers.get('cache-control')).toBe('private, max-age=5');
    const etag = first.headers.get('etag')!;
    const nm = await get(cached, url, { 'if-none-match': etag });
    expect(nm.status).toBe(304);
    expect(nm.text).toBe('');
    expect(nm.headers.get('etag')).toBe(etag);
    expect((await get(cached, url, { 'if-none-match': `"nope", W/${etag}` })).status).toBe(304);
    expect((await get(cached, url, { 'if-none-match': '"nope"' })).status).toBe(200);
    clock.set(fixture.nowMs + 100_000 + 2_500);
    expect((await get(cached, url)).headers.get('cache-control')).toBe('private, max-age=2');
    // A fresh (uncached) answer also honours If-None-Match.
    clock.set(fixture.nowMs + 200_000);
    const fresh = await get(cached, url, { 'if-none-match': etag });
    expect(fresh.status).toBe(304);
  });

  it('auth and rate limit still run on cached answers; /status is not cached', async () => {
    const url = '/tokens';
    expect((await get(cached, url)).status).toBe(200);
    const anon = await fetch(`${cached.baseUrl}${url}`);
    expect(anon.status).toBe(401);
    const key = await cached.createKey({ tier: 'enterprise', rpm: 1, burst: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${cached.baseUrl}${url}`, { headers: { 'X-API-Key': key } })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const status = await get(cached, '/status');
    expect(status.headers.get('etag')).toBeNull();
  });
});
