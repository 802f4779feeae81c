/**
 * Exports (docs/design.md §11): `Accept: text/csv` / `application/x-ndjson` or `format=csv|ndjson`
 * answer every matching row, streamed through keyset pages. Checked against the brute-force oracle
 * over a fixture of ~20k games loaded through the write path: row count, exact token sums, USD sums,
 * every row; NDJSON and CSV parse; a cursor starts the export after its row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import { POOL_CHANGE_COLUMNS, SETTLED_GAME_COLUMNS } from '../../src/api/routes/events.js';
import { createOracle, type Oracle } from '../helpers/bruteforce.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { expectJson, usdClose } from '../helpers/compare.js';
import { fetchText as fetchTextOn, parseCsv } from '../helpers/export-text.js';
import { generateFixture, loadFixture, type Fixture } from '../helpers/fixture.js';
import { setupStore } from '../helpers/store.js';

let fixture: Fixture;
let oracle: Oracle;
let app: TestApp;

beforeAll(async () => {
  fixture = generateFixture({ seed: 424242, games: 20_000, poolChanges: 2_000 });
  oracle = createOracle(fixture);
  const store = await setupStore();
  await loadFixture(store, fixture);
  app = await buildTestApp({ store, clock: new ManualClock(fixture.nowMs) });
}, 300_000);
afterAll(async () => {
  await app?.close();
});

const fetchText = (path: string, query: Record<string, string | number | undefined>, accept?: string) => fetchTextOn(app.baseUrl, app.key, path, query, accept);


/** CSV rows → objects; numeric columns back to numbers (token amounts stay strings: exact). */
function csvObjects(text: string, columns: readonly string[], numeric: readonly string[]): Record<string, unknown>[] {
  const [header, ...rows] = parseCsv(text);
  expect(header).toEqual([...columns]);
  return rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, numeric.includes(c) ? Number(r[i]) : r[i]])));
}

const ndjson = (text: string): Record<string, any>[] => text.split('\n').filter((l, i, all) => l !== '' || i !== all.length - 1).map((l) => JSON.parse(l));

/** Count, Σ wager (exact), Σ usd_wager and each row equal to the oracle's. */
function expectGames(actual: Record<string, any>[], expected: Record<string, any>[], what: string): void {
  expect(actual.length, `${what}: rows`).toBe(expected.length);
  const sum = (xs: Record<string, any>[], k: string) => xs.reduce((s, x) => s + BigInt(x[k]), 0n);
  expect(sum(actual, 'wager'), `${what}: Σ wager`).toBe(sum(expected, 'wager'));
  expect(sum(actual, 'profit'), `${what}: Σ profit`).toBe(sum(expected, 'profit'));
  expect(usdClose(actual.reduce((s, x) => s + x.usd_wager, 0), expected.reduce((s, x) => s + x.usd_wager, 0)), `${what}: Σ usd_wager`).toBe(true);
  expectJson(actual, expected.map((g) => Object.fromEntries(SETTLED_GAME_COLUMNS.map((c) => [c, g[c]]))), what);
}

describe('export /events/settledGames', () => {
  it('NDJSON by Accept: every game, newest first, equal to the oracle', async () => {
    const expected = oracle.settledGamesAll({ orderBy: 'time', sorting: 'DESC' });
    expect(expected.length).toBeGreaterThan(19_000);
    const r = await fetchText('/events/settledGames', {}, 'application/x-ndjson');
    expect(r.status).toBe(200);
    expect(r.type).toContain('application/x-ndjson');
    expectGames(ndjson(r.text), expected as any, 'ndjson all');
  });

  it('CSV by format= over filters × orderings (format wins over Accept)', async () => {
    const cases = [
      { orderBy: 'usd_profit', sorting: 'ASC' },
      { orderBy: 'multiplier', sorting: 'DESC', creator: fixture.creators[0] },
      { orderBy: 'time', sorting: 'ASC', token: fixture.tokens.BONK },
      { orderBy: 'time', sorting: 'DESC', pool: fixture.pools.SOL_B, onlyJackpots: 'true' },
      { orderBy: 'time', sorting: 'DESC', user: oracle.games[0]!.user },
    ] as const;
    for (const q of cases) {
      const expected = oracle.settledGamesAll({ ...q, onlyJackpots: 'onlyJackpots' in q } as any);
      const r = await fetchText('/events/settledGames', { ...q, format: 'csv' }, 'application/json');
      expect(r.status).toBe(200);
      expect(r.type).toContain('text/csv');
      const rows = csvObjects(r.text, SETTLED_GAME_COLUMNS, ['time', 'multiplier', 'usd_wager', 'usd_profit']);
      expectGames(rows, expected as any, `csv ${JSON.stringify(q)}`);
    }
  });

  it('starts after a cursor; page and itemsPerPage do not cut it', async () => {
    const expected = oracle.settledGamesAll({ orderBy: 'time', sorting: 'DESC' });
    const first = await fetch(`${app.baseUrl}/events/settledGames?itemsPerPage=50`, { headers: { 'X-API-Key': app.key } }).then((r) => r.json() as Promise<any>);
    const r = await fetchText('/events/settledGames', { cursor: first.nextCursor, format: 'ndjson', itemsPerPage: 5 });
    expectGames(ndjson(r.text), expected.slice(50) as any, 'after cursor');
  });

  it('an unknown format is a 400 naming format; a JSON Accept keeps the JSON page', async () => {
    const bad = await fetchText('/events/settledGames', { format: 'xml' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toContain("'format'");
    const json = await fetchText('/events/settledGames', {}, 'application/json, text/csv;q=0.5');
    expect(json.type).toContain('application/json');
    expect(JSON.parse(json.text).results).toHaveLength(10);
  });
});

describe('export /events/poolChanges', () => {
  it('CSV and NDJSON of each pool equal the oracle', async () => {
    let rows = 0;
    for (const pool of Object.values(fixture.pools)) {
      const expected = oracle.poolChangesAll(pool).map((c: any) => Object.fromEntries(POOL_CHANGE_COLUMNS.map((k) => [k, c[k]])));
      const csv = csvObjects((await fetchText('/events/poolChanges', { pool }, 'text/csv')).text, POOL_CHANGE_COLUMNS, ['time', 'usd_amount']);
      expectJson(csv, expected, `poolChanges csv ${pool}`);
      const nd = ndjson((await fetchText('/events/poolChanges', { pool, format: 'ndjson' })).text);
      expectJson(nd, expected, `poolChanges ndjson ${pool}`);
      expect(nd.reduce((s, c) => s + BigInt(c.amount), 0n)).toBe(expected.reduce((s, c: any) => s + BigInt(c.amount), 0n));
      rows += nd.length;
    }
    expect(rows).toBeGreaterThan(1500);
  });
});

/** NDJSON of `path` with `query`, each line parsed. */
async function ndjsonOf(path: string, query: Record<string, string | number | undefined> = {}): Promise<Record<string, any>[]> {
  const r = await fetchText(path, { ...query, format: 'ndjson' });
  expect(r.status, `${path} ${r.text.slice(0, 200)}`).toBe(200);
  return ndjson(r.text);
}

describe('export of the other lists and series', () => {
  it('/players: every matching player (limit does not apply), token sums exact', async () => {
    const cases = [
      { sortBy: 'usd_profit' },
      { sortBy: 'usd_volume', creator: fixture.creators[0] },
      { sortBy: 'token_volume', token: fixture.tokens.BONK },
      { sortBy: 'token_profit', pool: fixture.pools.SOL_A, startTime: fixture.nowMs - 60 * 86_400_000 + 5 },
    ] as const;
    for (const q of cases) {
      const expected = oracle.leaderboard(q as any);
      expect(expected.length).toBeGreaterThan(5);
      expectJson(await ndjsonOf('/players', { ...q, limit: 3 }), expected, `/players export ${JSON.stringify(q)}`);
    }
    const csv = csvObjects((await fetchText('/players', { sortBy: 'token_volume', token: fixture.tokens.BONK }, 'text/csv')).text,
      ['user', 'total_plays', 'usd_volume', 'usd_profit', 'token_volume', 'token_profit', 'biggest_win_usd', 'last_play'],
      ['total_plays', 'usd_volume', 'usd_profit', 'biggest_win_usd', 'last_play']);
    expectJson(csv, oracle.leaderboard({ sortBy: 'token_volume', token: fixture.tokens.BONK }), '/players csv');
  });

  it('/platforms, /platforms-by-pool, /tokens, /pools', async () => {
    expectJson(await ndjsonOf('/platforms', { days: 365, limit: 1 }), oracle.platforms({ days: 365, sortBy: 'usd_volume', limit: 100 }), '/platforms export');
    expectJson(await ndjsonOf('/tokens', { limit: 1 }), oracle.tokens(), '/tokens export');
    for (const pool of Object.values(fixture.pools)) expectJson(await ndjsonOf('/platforms-by-pool', { pool }), oracle.platformsByPool(pool), `/platforms-by-pool ${pool}`);
    expectJson(await ndjsonOf('/pools', { sortBy: 'usd_volume', limit: 1 }), oracle.poolsAll({ sortBy: 'usd_volume' }), '/pools export');
  });

  it('series: /ratio, /daily, /chart/*', async () => {
    const pool = fixture.pools.SOL_A;
    expectJson(await ndjsonOf('/ratio', { pool }), oracle.ratio(pool), '/ratio export');
    expectJson(await ndjsonOf('/daily', { pool, days: 90 }), oracle.daily({ pool, days: 90 }), '/daily export');
    expectJson(await ndjsonOf('/chart/plays', { days: 30 }), oracle.chartPlays({ days: 30 }), '/chart/plays export');
    expectJson(await ndjsonOf('/chart/daily-usd', { days: 30, creator: fixture.creators[1] }), oracle.chartDailyUsd({ days: 30, creator: fixture.creators[1] }), '/chart/daily-usd export');
    expectJson(await ndjsonOf('/chart/dao-usd', {}), oracle.chartDaoUsd({ days: 300 }), '/chart/dao-usd export');
    const daily = csvObjects((await fetchText('/daily', { pool, days: 3, format: 'csv' })).text, ['date', 'time', 'volume', 'volume_usd', 'plays'], ['time', 'volume_usd', 'plays']);
    expectJson(daily, oracle.daily({ pool, days: 3 }), '/daily csv');
  });
});

describe('an export does not hold up other requests', () => {
  it('a client that stops reading holds no store slot: other requests are answered meanwhile; the export then completes', async () => {
    const { request } = await import('node:http');
    const expected = oracle.settledGamesAll({ orderBy: 'time', sorting: 'DESC' }).length;
    let received = '';
    let paused: (() => void) | undefined;
    const done = new Promise<void>((resolve, reject) => {
      const req = request(`${app.baseUrl}/events/settledGames?format=ndjson`, { headers: { 'X-API-Key': app.key } }, (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding('utf8');
        res.once('data', (c: string) => {
          received += c;
          res.pause(); // the client stops reading: the server's writes back up
          paused = () => {
            res.on('data', (more: string) => (received += more));
            res.resume();
          };
        });
        res.on('end', resolve);
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const until = Date.now() + 10_000;
    while (paused === undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(paused).toBeDefined();
    await new Promise((r) => setTimeout(r, 300));
    const other = await app.createKey({ tier: 'enterprise', rpm: 100_000, burst: 100_000 });
    const started = Date.now();
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${app.baseUrl}/events/settledGames?itemsPerPage=50&page=${i}`, { headers: { 'X-API-Key': i % 2 ? other : app.key } });
      expect(r.status).toBe(200);
      await r.arrayBuffer();
    }
    expect(Date.now() - started).toBeLessThan(5000);
    paused!();
    await done;
    expect(received.split('\n').filter(Boolean)).toHaveLength(expected);
  });
});
