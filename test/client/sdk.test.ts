/**
 * The typed SDK (packages/client) against the real API on a socket over the contract tests'
 * world (test/helpers/contract-world.ts: a fixture loaded through the write path, read through
 * the read-only store): every operation of the live OpenAPI document called through the SDK and
 * compared with the raw HTTP answer (an operation the SDK does not cover fails here); the cursor
 * pager against one big-limit request and the brute-force oracle; the exact bigint amounts against
 * the oracle's BigInt sums, past 2^53, 2^63 and 2^64 (the fixture's BONK whale).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GambaApiError, OPERATIONS, createClient, parseAmount, rowToBigInts, toBigInts, type GambaClient } from '../../packages/client/src/index.js';
import { encodeCursor } from '../../src/api/cursor.js';
import { expectJson } from '../helpers/compare.js';
import { queryString, setupContract, type Contract } from '../helpers/contract-world.js';
import { houseEdgeAll, type HouseWorld } from '../helpers/house-oracle.js';

let c: Contract;
let client: GambaClient;
let doc: any;

beforeAll(async () => {
  c = await setupContract();
  client = createClient({ baseUrl: c.app.baseUrl, apiKey: c.app.key });
  doc = await (await fetch(`${c.app.baseUrl}/openapi.json`)).json();
});
afterAll(async () => {
  await c?.close();
});

/** The raw answer: status and parsed JSON body, with the same key. */
async function raw(method: string, path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${c.app.baseUrl}${path}${queryString(query)}`, { method, headers: { 'X-API-Key': c.app.key, ...headers } });
  return { status: res.status, body: await res.json() };
}

/** Reads the first `n` SSE events of a raw stream request (its own parser: independent of the SDK's). */
async function rawEvents(path: string, query: Record<string, string>, lastEventId: string, n: number): Promise<{ id: string; event: string; data: any }[]> {
  const ctl = new AbortController();
  const res = await fetch(`${c.app.baseUrl}${path}${queryString(query)}`, { headers: { 'X-API-Key': c.app.key, 'Last-Event-ID': lastEventId, Accept: 'text/event-stream' }, signal: ctl.signal });
  expect(res.status).toBe(200);
  const out: { id: string; event: string; data: any }[] = [];
  let buf = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as any) {
    buf += decoder.decode(chunk, { stream: true });
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0 && out.length < n) {
      const block = buf.slice(0, cut).split('\n');
      buf = buf.slice(cut + 2);
      const field = (name: string) => block.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
      const data = field('data');
      if (data !== undefined) out.push({ id: field('id')!, event: field('event')!, data: JSON.parse(data) });
    }
    if (out.length >= n) break;
  }
  ctl.abort();
  return out;
}

describe('every operation of the OpenAPI document through the SDK', () => {
  it('answers exactly what raw HTTP answers (an operation without SDK coverage fails)', async () => {
    const f = c.fixture;
    /** Values of the required parameters, from the loaded history. */
    const values: Record<string, string> = {
      pool: f.pools.SOL_A,
      user: f.users[0]!,
      creator: f.creators[0]!,
      token: f.tokens.SOL,
      startTime: String(f.nowMs - 30 * 86_400_000),
    };
    const covered: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        const required = ((op.parameters ?? []) as { in: string; name: string; required?: boolean }[]).filter((p) => p.in === 'query' && p.required).map((p) => p.name);
        const missing = required.filter((n) => values[n] === undefined);
        expect(missing, `${label}: add a value for its required parameters to this test`).toEqual([]);
        const query = Object.fromEntries(required.map((n) => [n, values[n]!]));
        const isStream = op.responses?.['200']?.content?.['text/event-stream'] !== undefined;
        if (method === 'get' && isStream) {
          // A stream resumes after a Last-Event-ID (a position of the ascending time ordering,
          // docs/design.md §11): from before the first event, both clients get the oldest events.
          const name = path.slice('/stream/'.length) as 'settledGames' | 'poolChanges';
          const lastEventId = encodeCursor('time', 'ASC', { values: [0, '', 0] });
          const expected = await rawEvents(path, query, lastEventId, 5);
          expect(expected.length, label).toBe(5);
          const got: unknown[] = [];
          for await (const ev of client.subscribe(name, query as never, { lastEventId })) {
            got.push(ev);
            if (got.length === 5) break;
          }
          expectJson(got, expected, label);
          // The oldest events of the history, as the oracle has them.
          const oldest = name === 'settledGames' ? c.oracle.settledGamesAll({ orderBy: 'time', sorting: 'ASC', onlyJackpots: false } as any) : [...c.oracle.poolChangesAll(values.pool!)].reverse();
          expectJson(expected.map((e) => e.data), oldest.slice(0, 5), `${label} vs oracle`);
          covered.push(label);
        } else if (method === 'get') {
          const expected = await raw('GET', path, query);
          expect(expected.status, `${label}: ${JSON.stringify(expected.body)}`).toBe(200);
          const got = await client.get(path as never, query as never);
          expectJson(got, expected.body, label);
          covered.push(label);
        } else if (method === 'post' && path === '/sync') {
          const got = await client.api.POST('/sync');
          const expected = await raw('POST', path);
          expect(got.response.status, label).toBe(expected.status);
          // Each call is its own pass: the ids follow each other; the rest of the answer is equal.
          const body = (got.data ?? got.error) as any;
          expect(Number(expected.body.data.passId.split('_')[1]), label).toBe(Number(body.data.passId.split('_')[1]) + 1);
          expectJson({ ...body, data: { ...body.data, passId: 'p' } }, { ...expected.body, data: { ...expected.body.data, passId: 'p' } }, label);
          covered.push(label);
        } else {
          throw new Error(`${label}: the SDK test does not cover this operation yet; add it (packages/client/src/index.ts and this test)`);
        }
      }
    }
    expect(covered.length).toBeGreaterThanOrEqual(28);
    // The generated amount table names every JSON GET operation of the live document.
    const jsonGets = Object.entries<Record<string, any>>(doc.paths).filter(([, i]) => i.get !== undefined).map(([p]) => p).sort();
    expect(Object.keys(OPERATIONS).sort()).toEqual(jsonGets);
  }, 120_000);

  it('an error answer throws GambaApiError with the API\'s code and message', async () => {
    const err = await client.get('/player', { user: 'not-an-address' } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GambaApiError);
    expect((err as GambaApiError).status).toBe(400);
    expect((err as GambaApiError).code).toBe('INVALID_PARAMETER');
    expect((err as GambaApiError).message).toContain("'user'");
    const noKey = await createClient({ baseUrl: c.app.baseUrl }).get('/stats').catch((e: unknown) => e);
    expect((noKey as GambaApiError).status).toBe(401);
    expect((noKey as GambaApiError).code).toBe('MISSING_API_KEY');
  });
});

describe('paginate', () => {
  it('/events/settledGames: every row across nextCursor pages, equal to the oracle and to one big-limit request', async () => {
    // A creator with more than two pages of 13 and at most 200 games (one request's most).
    const count = (cr: string) => c.oracle.settledGamesAll({ creator: cr, orderBy: 'time', sorting: 'DESC', onlyJackpots: false } as any).length;
    const creator = c.fixture.creators.find((cr) => count(cr) > 26 && count(cr) <= 200)!;
    expect(creator).toBeDefined();
    const rows: unknown[] = [];
    for await (const g of client.paginate('/events/settledGames', { creator, orderBy: 'time', sorting: 'DESC', itemsPerPage: 13 })) rows.push(g);
    const expected = c.oracle.settledGamesAll({ creator, orderBy: 'time', sorting: 'DESC', onlyJackpots: false } as any);
    expect(expected.length).toBeGreaterThan(26);
    expect(expected.length).toBeLessThanOrEqual(200);
    expectJson(rows, expected, 'pager vs oracle');
    const one = await raw('GET', '/events/settledGames', { creator, orderBy: 'time', sorting: 'DESC', itemsPerPage: '200' });
    expectJson(rows, one.body.results, 'pager vs one request');
  });

  it('/house-edge, /players, /pools, /tokens, /platforms: the pages hold exactly the big-limit answer', async () => {
    const w: HouseWorld = { events: c.fixture.events, oracle: c.oracle };
    const edge: unknown[] = [];
    for await (const r of client.paginate('/house-edge', { groupBy: 'player', limit: 17 })) edge.push(r);
    expectJson(edge, houseEdgeAll(w, 'player', {}), '/house-edge pager vs oracle');
    const cases: [string, Record<string, string | number>, string, Record<string, string>][] = [
      ['/players', { limit: 9 }, 'results', { limit: '1000' }],
      ['/pools', { limit: 2 }, 'results', { limit: '100' }],
      ['/tokens', { limit: 2 }, 'results', { limit: '1000' }],
      ['/platforms', { limit: 3 }, 'results', { limit: '100' }],
    ];
    for (const [path, small, field, big] of cases) {
      const rows: unknown[] = [];
      for await (const r of client.paginate(path as never, small as never)) rows.push(r);
      const one = await raw('GET', path, big);
      expect(one.body.nextCursor, `${path}: the big request holds everything`).toBeNull();
      expect(rows.length, path).toBeGreaterThan(Number(Object.values(small)[0]));
      expectJson(rows, one.body[field], `${path} pager vs one request`);
    }
  });

  it('a cursor in the query starts after its row; a failing page throws', async () => {
    const first = await raw('GET', '/players', { limit: '5' });
    const rest: unknown[] = [];
    for await (const r of client.paginate('/players', { limit: 50, cursor: first.body.nextCursor })) rest.push(r);
    const all = await raw('GET', '/players', { limit: '1000' });
    expectJson([...first.body.results, ...rest], all.body.results, 'first page + pager after its cursor');
    const it = client.paginate('/players', { cursor: 'nonsense' });
    await expect(it.next()).rejects.toMatchObject({ status: 400, code: 'INVALID_PARAMETER' });
  });
});

describe('exact amounts as bigint', () => {
  const TWO_53 = 2n ** 53n;
  const TWO_63 = 2n ** 63n;
  const TWO_64 = 2n ** 64n;

  it('/tokens: the BONK volume (Σ of the whale\'s ~4e18 wagers, > 2^64) is exact, where Number is not', async () => {
    const body = await client.get('/tokens');
    const exact = toBigInts('/tokens', body);
    const bonk = exact.results.find((r) => r.token === c.fixture.tokens.BONK)!;
    const expected = c.fixture.events.filter((e) => e.name === 'GameSettled' && (e.data as any).tokenMint === c.fixture.tokens.BONK).reduce((s, e) => s + BigInt((e.data as any).wager), 0n);
    expect(typeof bonk.volume).toBe('bigint');
    expect(bonk.volume).toBe(expected);
    expect(bonk.volume > TWO_64).toBe(true);
    // What a conversion through Number would have given differs from the exact value.
    expect(BigInt(Number(body.results.find((r) => r.token === c.fixture.tokens.BONK)!.volume))).not.toBe(expected);
    // Other fields are left as they are.
    expect(typeof bonk.plays).toBe('number');
    expect(typeof bonk.usd_volume).toBe('number');
  });

  it('/house-edge rows of the whale: wager > 2^64, profit-side sums below −2^63 survive exactly; rows of a list and of a stream convert', async () => {
    const w: HouseWorld = { events: c.fixture.events, oracle: c.oracle };
    const expected = houseEdgeAll(w, 'player', { user: c.fixture.whale });
    const body = await client.get('/house-edge', { groupBy: 'player', user: c.fixture.whale });
    const exact = toBigInts('/house-edge', body);
    expect(exact.results.length).toBe(expected.length);
    for (let i = 0; i < expected.length; i++) {
      for (const k of ['wager', 'payout', 'expected_payout', 'jackpot'] as const) {
        expect(exact.results[i]![k]).toBe(BigInt(expected[i]![k] as string));
      }
    }
    const whale = exact.results[0]!;
    expect(whale.wager > TWO_64).toBe(true);
    expect(whale.wager - whale.payout > TWO_63).toBe(true);
    // One row of a list (and a stream event's data): rowToBigInts.
    const games = await client.get('/events/settledGames', { user: c.fixture.whale, itemsPerPage: 10 });
    const rows = games.results.map((g) => rowToBigInts('/events/settledGames', g));
    const oracleRows = c.oracle.settledGamesAll({ user: c.fixture.whale, orderBy: 'time', sorting: 'DESC', onlyJackpots: false } as any);
    expect(rows.length).toBe(oracleRows.length);
    for (const [i, r] of rows.entries()) {
      expect(r.wager).toBe(BigInt(oracleRows[i]!.wager));
      expect(r.profit).toBe(BigInt(oracleRows[i]!.profit));
      expect(r.profit).toBe(r.payout + r.jackpot - r.wager);
    }
    const bonk = rows.filter((r) => r.token === c.fixture.tokens.BONK);
    expect(bonk.length).toBe(5);
    expect(bonk.every((r) => r.wager > TWO_53)).toBe(true);
    expect(bonk.reduce((s, r) => s + r.profit, 0n) < -TWO_63).toBe(true);
  });

  it('/pool/returns nested amounts and nulls; a declared field that is not an integer string throws', async () => {
    const body = await client.get('/pool/returns', { pool: c.fixture.pools.SOL_A, startTime: String(c.fixture.nowMs - 30 * 86_400_000) } as never);
    const exact = toBigInts('/pool/returns', body);
    expect(exact.end!.liquidity).toBe(BigInt(body.end!.liquidity));
    expect(exact.end!.lp_supply).toBe(BigInt(body.end!.lp_supply));
    expect(exact.volume).toBe(BigInt(body.volume));
    expect(typeof exact.lp_price_growth === 'number' || exact.lp_price_growth === null).toBe(true);
    // The body given is not modified.
    expect(typeof body.volume).toBe('string');
    const max = '18446744073709551615';
    const synthetic = { results: [{ token: 'x', plays: 1, volume: max, usd_volume: 1 }], nextCursor: null };
    expect(toBigInts('/tokens', synthetic as never).results[0]!.volume).toBe(TWO_64 - 1n);
    expect(parseAmount('-9223372036854775809')).toBe(-TWO_63 - 1n);
    expect(parseAmount('9007199254740993')).toBe(TWO_53 + 1n);
    expect(() => parseAmount('1e21')).toThrow(TypeError);
    expect(() => parseAmount('12.5')).toThrow(TypeError);
    expect(() => toBigInts('/tokens', { results: [{ volume: 1.5 }], nextCursor: null } as never)).toThrow(/results\[\]|volume/);
  });
});
