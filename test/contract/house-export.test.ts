/**
 * Exports of the house-edge and LP operations (docs/design.md §11): `/house-edge` (every group,
 * through the keyset; a `cursor` starts after its row), `/house-edge/wins` (the ranking's top
 * `limit` rows) and `/pool/lp-price` (the series) as CSV and NDJSON, by `format=` and by `Accept`.
 * Each export is parsed by a parser written here and compared with the brute force over the raw
 * events (test/helpers/house-oracle.ts) and with the JSON answer: same rows, same order, token
 * amounts exact integer strings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_PAGE_ROWS } from '../../src/api/export.js';
import { MS_PER_DAY, ManualClock } from '../../src/core/index.js';
import { HOUSE_EDGE_COLUMNS, LP_PRICE_COLUMNS, WIN_COLUMNS } from '../../src/api/routes/house.js';
import { expectJson } from '../helpers/compare.js';
import { buildTestApp } from '../helpers/app.js';
import { createOracle } from '../helpers/bruteforce.js';
import { httpGetter, type Contract } from '../helpers/contract-world.js';
import { fetchText as fetchTextOn, parseCsv } from '../helpers/export-text.js';
import { generateFixture, loadFixture } from '../helpers/fixture.js';
import { setupStore } from '../helpers/store.js';
import { biggestWins, houseEdgeAll, lpSeries, type HouseWorld } from '../helpers/house-oracle.js';

let c: Contract;
let w: HouseWorld;
beforeAll(async () => {
  // Large enough that groupBy=player has more groups (player × token) than one export page holds
  // (EXPORT_PAGE_ROWS): the export then follows the keyset across store reads.
  const fixture = generateFixture({ seed: 424242, games: 20_000, poolChanges: 2_000 });
  const oracle = createOracle(fixture);
  const store = await setupStore();
  await loadFixture(store, fixture);
  const app = await buildTestApp({ store, clock: new ManualClock(fixture.nowMs) });
  c = { fixture, oracle, store, app, clock: app.clock, get: httpGetter(app.baseUrl, app.key), close: () => app.close() };
  w = { events: c.fixture.events, oracle: c.oracle };
}, 300_000);
afterAll(async () => {
  await c?.close();
});

const fetchText = (path: string, query: Record<string, string | number | undefined>, accept?: string) => fetchTextOn(c.app.baseUrl, c.app.key, path, query, accept);


/**
 * CSV text → objects shaped like the JSON rows: `numeric` columns to numbers (an empty field is
 * null), the rest (addresses, token amounts as integer strings) kept as text.
 */
function csvObjects(text: string, columns: readonly string[], numeric: readonly string[]): Record<string, unknown>[] {
  const [header, ...rows] = parseCsv(text);
  expect(header).toEqual([...columns]);
  return rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, numeric.includes(c) ? (r[i] === '' ? null : Number(r[i])) : r[i]])));
}

const ndjson = (text: string): Record<string, unknown>[] => text.split('\n').slice(0, -1).map((l) => JSON.parse(l));
const pick = (rows: Record<string, unknown>[], columns: readonly string[]) => rows.map((r) => Object.fromEntries(columns.map((k) => [k, r[k]])));
const sum = (rows: Record<string, unknown>[], k: string) => rows.reduce((s, r) => s + BigInt(r[k] as string), 0n);

const EDGE_NUMERIC = ['plays', 'wins', 'win_rate', 'rtp', 'expected_rtp', 'edge', 'expected_edge', 'edge_diff', 'jackpots', 'usd_wager', 'usd_profit'];
const WIN_NUMERIC = ['time', 'multiplier', 'usd_wager', 'usd_profit'];
const LP_NUMERIC = ['time', 'lp_price'];

describe('export /house-edge', () => {
  it('NDJSON and CSV, by format= and by Accept: every group of each groupBy, equal to the brute force and exact', async () => {
    for (const groupBy of ['creator', 'pool', 'token', 'player', 'game'] as const) {
      const win = { startTime: c.fixture.nowMs - 60 * MS_PER_DAY };
      const expected = houseEdgeAll(w, groupBy, win);
      expect(expected.length).toBeGreaterThan(0);
      // limit=1 does not apply to an export: every group.
      const nd = await fetchText('/house-edge', { groupBy, ...win, limit: 1, format: 'ndjson' });
      expect(nd.status, nd.text).toBe(200);
      expect(nd.type).toBe('application/x-ndjson; charset=utf-8');
      const ndRows = ndjson(nd.text);
      expectJson(ndRows, pick(expected, HOUSE_EDGE_COLUMNS), `ndjson groupBy=${groupBy}`);
      expect(sum(ndRows, 'wager')).toBe(sum(expected, 'wager'));
      const csv = await fetchText('/house-edge', { groupBy, ...win }, 'text/csv');
      expect(csv.status, csv.text).toBe(200);
      expect(csv.type).toBe('text/csv; charset=utf-8');
      const csvRows = csvObjects(csv.text, HOUSE_EDGE_COLUMNS, EDGE_NUMERIC);
      expectJson(csvRows, pick(expected, HOUSE_EDGE_COLUMNS), `csv groupBy=${groupBy}`);
      expect(sum(csvRows, 'payout')).toBe(sum(expected, 'payout'));
      expect(sum(csvRows, 'jackpot')).toBe(sum(expected, 'jackpot'));
    }
  });

  it('more groups than one export page: every group once, in order, across the store reads', async () => {
    const expected = houseEdgeAll(w, 'player', {});
    expect(expected.length).toBeGreaterThan(EXPORT_PAGE_ROWS);
    const nd = await fetchText('/house-edge', { groupBy: 'player' }, 'application/x-ndjson');
    expect(nd.status).toBe(200);
    const rows = ndjson(nd.text);
    expectJson(rows, pick(expected, HOUSE_EDGE_COLUMNS), 'ndjson groupBy=player, all time');
    expect(new Set(rows.map((r) => `${r.key}/${r.token}`)).size).toBe(rows.length);
    expect(sum(rows, 'wager')).toBe(sum(expected, 'wager'));
  });

  it('a cursor starts the export after its row; the NDJSON rows are the JSON pages\' rows', async () => {
    const expected = houseEdgeAll(w, 'player', {});
    expect(expected.length).toBeGreaterThan(10);
    const first = await c.get('/house-edge', { groupBy: 'player', limit: 7 });
    expect(first.status).toBe(200);
    const rest = await fetchText('/house-edge', { groupBy: 'player', cursor: first.body.nextCursor }, 'application/x-ndjson');
    expect(rest.status, rest.text).toBe(200);
    expectJson([...first.body.results, ...ndjson(rest.text)], expected, 'first page + export after its cursor');
    const bad = await fetchText('/house-edge', { groupBy: 'player', cursor: 'not-a-cursor', format: 'csv' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("'cursor'");
  });

  it('an unknown format is a 400 naming format', async () => {
    for (const path of ['/house-edge', '/house-edge/wins', `/pool/lp-price?pool=${c.fixture.pools.SOL_A}`]) {
      const r = await fetchText(path + (path.includes('?') ? '&' : '?') + 'format=xml', {});
      expect(r.status, path).toBe(400);
      expect(r.text).toContain("'format'");
    }
  });
});

describe('export /house-edge/wins', () => {
  it('the ranking\'s top limit rows, as the JSON answer and the brute force', async () => {
    for (const sortBy of ['multiplier', 'usd_profit'] as const) {
      const expected = biggestWins(w, sortBy, {}, 25);
      expect(expected.length).toBe(25);
      const json = await c.get('/house-edge/wins', { sortBy, limit: 25 });
      expectJson(json.body.results, expected, `json ${sortBy}`);
      const nd = await fetchText('/house-edge/wins', { sortBy, limit: 25 }, 'application/x-ndjson');
      expect(nd.status).toBe(200);
      expectJson(ndjson(nd.text), pick(expected, WIN_COLUMNS), `ndjson ${sortBy}`);
      const csv = await fetchText('/house-edge/wins', { sortBy, limit: 25, format: 'csv' });
      expect(csv.status).toBe(200);
      const rows = csvObjects(csv.text, WIN_COLUMNS, WIN_NUMERIC);
      expectJson(rows, pick(expected, WIN_COLUMNS), `csv ${sortBy}`);
      expect(sum(rows, 'payout')).toBe(sum(expected, 'payout'));
    }
  });
});

describe('export /pool/lp-price', () => {
  it('every point of the series, hourly and daily, exact liquidity and LP supply', async () => {
    const pool = c.fixture.pools.SOL_A!;
    const endTime = c.fixture.nowMs;
    for (const [interval, days] of [['day', 120], ['hour', 10]] as const) {
      const startTime = endTime - days * MS_PER_DAY;
      const expected = lpSeries(w, pool, interval, startTime, endTime);
      expect(expected.length).toBeGreaterThan(days);
      const json = await c.get('/pool/lp-price', { pool, interval, startTime, endTime });
      expect(json.status).toBe(200);
      expectJson(json.body.data, expected, `json ${interval}`);
      const nd = await fetchText('/pool/lp-price', { pool, interval, startTime, endTime, format: 'ndjson' });
      expect(nd.status).toBe(200);
      expectJson(ndjson(nd.text), pick(expected, LP_PRICE_COLUMNS), `ndjson ${interval}`);
      const csv = await fetchText('/pool/lp-price', { pool, interval, startTime, endTime }, 'text/csv;q=0.9, application/json;q=0.5');
      expect(csv.status).toBe(200);
      expect(csv.type).toBe('text/csv; charset=utf-8');
      const rows = csvObjects(csv.text, LP_PRICE_COLUMNS, LP_NUMERIC);
      expectJson(rows, pick(expected, LP_PRICE_COLUMNS), `csv ${interval}`);
      expect(sum(rows, 'liquidity')).toBe(sum(expected, 'liquidity'));
      expect(sum(rows, 'lp_supply')).toBe(sum(expected, 'lp_supply'));
    }
  });
});
