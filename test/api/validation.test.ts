import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { ADDR, MINT, expectError, http, rateHeaders } from '../helpers/api-operations.js';

/** Every parameter rule of docs/design.md §4 → 400 INVALID_PARAMETER naming the parameter (and the rule). */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const get = (path: string) => http(t.baseUrl, path, { key: t.key });

// Not base58 (0, O, I, l are excluded), or base58 of the wrong length.
const BAD_ADDRESSES = ['abc', '0'.repeat(32), `${MINT.slice(0, -1)}0`, `${MINT}1`, '1'.repeat(31), 'O'.repeat(44), ''];

/** [path, parameter, fragment the message must contain] */
const INVALID: [string, string, string?][] = [
  // /players
  ['/players?limit=0', 'limit', '1 to 1000'],
  ['/players?limit=1001', 'limit', '1 to 1000'],
  ['/players?limit=-1', 'limit'],
  ['/players?limit=1.5', 'limit', 'integer'],
  ['/players?limit=ten', 'limit', 'integer'],
  ['/players?limit=', 'limit'],
  ['/players?limit=0x10', 'limit', 'integer'],
  ['/players?limit=%2010', 'limit', 'integer'],
  ['/players?limit=1e1', 'limit', 'integer'],
  ['/players?limit=10.0', 'limit', 'integer'],
  ['/players?offset=1e20', 'offset', 'integer'],
  ['/players?offset=9007199254740993', 'offset', 'integer'],
  ['/chart/plays?days=%2B5', 'days', 'integer'],
  ['/players?offset=-1', 'offset', '≥ 0'],
  ['/players?offset=x', 'offset'],
  ['/players?sortBy=profit', 'sortBy', 'usd_profit'],
  ['/players?sortBy=USD_PROFIT', 'sortBy'],
  ['/players?sortBy=token_volume', 'sortBy', 'token'],
  ['/players?sortBy=token_profit', 'sortBy', 'pool'],
  [`/players?sortBy=token_profit&creator=${ADDR}`, 'sortBy'],
  ['/players?startTime=-5', 'startTime'],
  ['/players?startTime=yesterday', 'startTime', 'ISO 8601'],
  // /stats
  ['/stats?startTime=1.5', 'startTime'],
  ['/stats?startTime=2025-13-01T00:00:00Z', 'startTime'],
  ['/stats?startTime=2025-02-30T00:00:00Z', 'startTime'],
  ['/stats?startTime=2025-01-01T24:00:00Z', 'startTime'],
  ['/stats?startTime=2025-01-01T00:00:00', 'startTime'], // no zone: ambiguous
  ['/stats?startTime=2025-01-01T00:00:00%2B25:00', 'startTime'],
  ['/stats?startTime=99999999999999999', 'startTime'],
  ['/stats?startTime=1969-12-31T23:59:59Z', 'startTime'],
  // /player
  ['/player', 'user', 'required'],
  [`/player?user=${ADDR}&token=xyz`, 'token'],
  // /events/settledGames
  ['/events/settledGames?page=-1', 'page'],
  ['/events/settledGames?page=x', 'page'],
  ['/events/settledGames?itemsPerPage=0', 'itemsPerPage', '1 to 200'],
  ['/events/settledGames?itemsPerPage=201', 'itemsPerPage', '1 to 200'],
  ['/events/settledGames?page=1001&itemsPerPage=100', 'page', 'cursor'],
  ['/events/settledGames?page=10001', 'page', 'cursor'],
  ['/events/settledGames?onlyJackpots=maybe', 'onlyJackpots', 'true'],
  ['/events/settledGames?onlyJackpots=TRUE', 'onlyJackpots'],
  ['/events/settledGames?orderBy=wager', 'orderBy', 'multiplier'],
  ['/events/settledGames?sorting=desc', 'sorting', 'DESC'],
  ['/events/settledGames?sorting=UP', 'sorting'],
  ['/events/settledGames?cursor=not-a-cursor', 'cursor'],
  ['/events/settledGames?cursor=', 'cursor'],
  // /events/poolChanges
  ['/events/poolChanges', 'pool', 'required'],
  [`/events/poolChanges?pool=${ADDR}&itemsPerPage=500`, 'itemsPerPage'],
  [`/events/poolChanges?pool=${ADDR}&page=100001`, 'page', 'cursor'],
  [`/events/poolChanges?pool=${ADDR}&cursor=zzz`, 'cursor'],
  // /platforms
  ['/platforms?limit=0', 'limit', '1 to 100'],
  ['/platforms?limit=101', 'limit', '1 to 100'],
  ['/platforms?days=0', 'days', '1 to 365'],
  ['/platforms?days=366', 'days', '1 to 365'],
  ['/platforms?sortBy=plays', 'sortBy', 'usd_revenue'],
  // pool operations: pool required
  ['/platforms-by-pool', 'pool', 'required'],
  ['/ratio', 'pool', 'required'],
  ['/total', 'pool', 'required'],
  ['/daily', 'pool', 'required'],
  [`/daily?pool=${ADDR}&days=301`, 'days', '1 to 300'],
  // /pools and /pool
  ['/pools?limit=0', 'limit', '1 to 100'],
  ['/pools?limit=101', 'limit', '1 to 100'],
  ['/pools?sortBy=liquidity', 'sortBy', 'created_time'],
  ['/pools?cursor=zzz', 'cursor'],
  ['/pool', 'pool', 'required'],
  [`/pool?pool=${ADDR}&startTime=yesterday`, 'startTime', 'ISO 8601'],
  [`/pool?pool=${ADDR}&endTime=2025-13-01T00:00:00Z`, 'endTime', 'ISO 8601'],
  [`/pool?pool=${ADDR}&startTime=5000&endTime=5000`, 'endTime', 'later than startTime'],
  [`/pool?pool=${ADDR}&startTime=2025-01-02T00:00:00Z&endTime=2025-01-01T00:00:00Z`, 'endTime', 'later than startTime'],
  [`/pool?pool=${ADDR}&endTime=1&endTime=2`, 'endTime', 'once'],
  // charts
  ['/chart/plays?days=0', 'days', '1 to 300'],
  ['/chart/plays?days=301', 'days', '1 to 300'],
  ['/chart/daily-usd?days=abc', 'days'],
  ['/chart/dao-usd?days=1000', 'days'],
  // repeated parameters
  ['/players?limit=5&limit=5', 'limit', 'once'],
  [`/stats?creator=${ADDR}&creator=${MINT}`, 'creator', 'once'],
  [`/total?pool=${ADDR}&pool=${ADDR}`, 'pool', 'once'],
  ['/events/settledGames?onlyJackpots&onlyJackpots', 'onlyJackpots', 'once'],
];

// Every address parameter of every operation rejects every kind of bad address.
const ADDRESS_PARAMS: [string, string, Record<string, string>?][] = [
  ['/stats', 'creator'],
  ['/player', 'user'],
  ['/player', 'creator', { user: ADDR }],
  ['/player', 'token', { user: ADDR }],
  ['/players', 'creator'],
  ['/players', 'token'],
  ['/players', 'pool'],
  ['/events/settledGames', 'creator'],
  ['/events/settledGames', 'pool'],
  ['/events/settledGames', 'token'],
  ['/events/settledGames', 'user'],
  ['/events/poolChanges', 'pool'],
  ['/platforms-by-pool', 'pool'],
  ['/tokens', 'creator'],
  ['/ratio', 'pool'],
  ['/total', 'pool'],
  ['/daily', 'pool'],
  ['/pools', 'token'],
  ['/pool', 'pool'],
  ['/chart/daily-usd', 'creator'],
  ['/chart/dao-usd', 'creator'],
];
for (const [path, param, rest] of ADDRESS_PARAMS) {
  for (const bad of BAD_ADDRESSES) {
    INVALID.push([`${path}?${new URLSearchParams({ ...rest, [param]: bad })}`, param, bad === '' ? undefined : 'base58']);
  }
}

describe('invalid parameters → 400 INVALID_PARAMETER', () => {
  test.each(INVALID)('%s → names %s', async (path, param, fragment) => {
    const res = await get(path);
    expectError(res, 400, 'INVALID_PARAMETER', param);
    if (fragment) expect(res.body.error).toContain(fragment);
    // Validation comes after the rate limit: the headers are on the 400 too.
    expect(rateHeaders(res).limit).toBe(1_000_000);
  });
});

/** Edges that are valid (the rules are not stricter than docs/design.md §4). */
const VALID: string[] = [
  '/players?limit=1',
  '/players?limit=1000',
  '/players?offset=0&limit=10',
  '/players?offset=123456',
  '/players?offset=9007199254740991',
  '/players?limit=0010',
  `/players?sortBy=token_volume&token=${MINT}`,
  `/players?sortBy=token_profit&pool=${ADDR}`,
  '/players?sortBy=usd_volume',
  '/players?startTime=0',
  '/players?startTime=1735689600000',
  '/stats?startTime=2025-01-01T00:00:00Z',
  '/stats?startTime=2025-01-01T00:00:00.123Z',
  '/stats?startTime=2025-01-01T02:00:00%2B02:00',
  '/stats?startTime=2024-02-29T00:00:00Z',
  `/stats?creator=${ADDR}`,
  '/events/settledGames?page=0&itemsPerPage=200',
  '/events/settledGames?page=500&itemsPerPage=200',
  '/events/settledGames?page=100000&itemsPerPage=1',
  '/events/settledGames?onlyJackpots',
  '/events/settledGames?onlyJackpots=',
  ...['true', '1', 'yes', 'false', '0', 'no'].map((v) => `/events/settledGames?onlyJackpots=${v}`),
  '/events/settledGames?orderBy=multiplier&sorting=ASC',
  '/events/settledGames?orderBy=usd_profit&sorting=DESC',
  `/events/settledGames?user=${ADDR}&creator=${ADDR}&pool=${ADDR}&token=${MINT}`,
  '/platforms?limit=100&days=365&sortBy=usd_revenue',
  '/platforms?limit=1&days=1',
  `/daily?pool=${ADDR}&days=300`,
  '/chart/plays?days=1',
  '/chart/plays?days=300',
  // Unknown parameters are ignored, even repeated.
  '/players?foo=bar',
  '/stats?x=1&x=2',
];

describe('valid edges → 200', () => {
  test.each(VALID)('%s', async (path) => {
    const res = await get(path);
    expect(res.status, res.text).toBe(200);
  });
});

test('chart and /daily defaults: 300 dense days; days narrows the series', async () => {
  expect((await get('/chart/plays')).body.data).toHaveLength(300);
  expect((await get('/chart/daily-usd')).body.data).toHaveLength(300);
  expect((await get('/chart/dao-usd?days=7')).body.data).toHaveLength(7);
  expect((await get(`/daily?pool=${ADDR}`)).body.data).toHaveLength(300);
});

test('a cursor issued for one ordering is refused by another (the API encodes cursors)', async () => {
  const { encodeCursor } = await import('../../src/api/cursor.js');
  const cursor = encodeCursor('time', 'DESC', { values: [1_700_000_000_000, ADDR, 0] });
  expect((await get(`/events/settledGames?cursor=${cursor}`)).status).toBe(200);
  const res = await get(`/events/settledGames?orderBy=multiplier&cursor=${cursor}`);
  expectError(res, 400, 'INVALID_PARAMETER', 'cursor');
});
