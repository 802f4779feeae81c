import { afterAll, beforeAll, expect, test } from 'vitest';
import { API_VERSION, ERROR_CODES } from '../../src/api/index.js';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { OPERATIONS, http } from '../helpers/api-operations.js';

/** OpenAPI 3.1 generated from the route schemas (one source of truth), public. */
let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await buildTestApp();
  const res = await http(t.baseUrl, '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => t.close());

test('is OpenAPI 3.1 with the API version and both auth schemes', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.info.version).toBe(API_VERSION);
  expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  expect(doc.components.securitySchemes.Bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
});

test('documents the shared error schema with every code', () => {
  const err = doc.components.schemas.ApiError;
  expect(err.required.sort()).toEqual(['code', 'error', 'timestamp']);
  expect(err.properties.code.enum.sort()).toEqual(Object.keys(ERROR_CODES).sort());
});

test.each(OPERATIONS)('$method $path: parameters, success and error responses', (op) => {
  const o = doc.paths[op.path][op.method.toLowerCase()];
  expect(o).toBeDefined();
  expect(o.security).toBeUndefined(); // inherits the global requirement
  const success = o.responses[String(op.method === 'POST' ? 202 : 200)];
  expect(success.content['application/json'].schema.type).toBe('object');
  for (const code of ['400', '401', '403', '429', '500', '503']) {
    expect(o.responses[code].content['application/json'].schema.$ref).toBe(`#/components/schemas/Error${code}`);
  }
  expect(o.operationId).toMatch(/^(get|post)[A-Z]\w+$/);
  for (const name of Object.keys(op.query ?? {})) {
    const p = (o.parameters as any[]).find((x) => x.name === name);
    expect(p, name).toMatchObject({ in: 'query', required: true });
  }
});

test('each error status has its own schema: the registry\'s codes of that status, with one example per code', () => {
  const byStatus = new Map<number, string[]>();
  for (const [code, { status }] of Object.entries(ERROR_CODES)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
    const m = /^Error(\d{3})$/.exec(name);
    if (!m) continue;
    expect(schema.allOf[0].$ref).toBe('#/components/schemas/ApiError');
    expect(schema.allOf[1].properties.code.enum.sort(), name).toEqual(byStatus.get(Number(m[1]))!.sort());
  }
  const statuses = (op: any) => Object.keys(op.responses).filter((s) => Number(s) >= 400);
  for (const item of Object.values<any>(doc.paths)) {
    for (const op of Object.values<any>(item)) {
      for (const s of statuses(op)) {
        const media = op.responses[s].content['application/json'];
        const examples = Object.values<any>(media.examples).map((e) => e.value);
        expect(examples.length, `${op.operationId} ${s}`).toBeGreaterThan(0);
        for (const e of examples) {
          expect(ERROR_CODES[e.code as keyof typeof ERROR_CODES].status, `${op.operationId} ${s} ${e.code}`).toBe(Number(s));
          expect(Object.keys(e).sort()).toEqual(Number(s) === 429 ? ['code', 'error', 'retryAfter', 'timestamp'] : ['code', 'error', 'timestamp']);
        }
      }
    }
  }
  // The 401 examples are the two 401 codes, not INVALID_PARAMETER.
  expect(Object.keys(doc.paths['/stats'].get.responses['401'].content['application/json'].examples).sort()).toEqual(['MISSING_API_KEY', 'UNAUTHORIZED']);
  expect(Object.keys(doc.paths['/player'].get.responses['404'].content['application/json'].examples)).toEqual(['PLAYER_NOT_FOUND']);
});

test('servers, operationIds (unique), and the response headers of the rate limit, Retry-After and ETag', () => {
  expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:3000' })]);
  const ids: string[] = [];
  for (const item of Object.values<any>(doc.paths)) for (const op of Object.values<any>(item)) ids.push(op.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(expect.arrayContaining(['getPlayers', 'getEventsSettledGames', 'postSync', 'getPlatformsByPool', 'getUsage', 'getHealth']));
  const players = doc.paths['/players'].get.responses;
  for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy', 'ETag', 'X-Request-Id']) {
    expect(players['200'].headers[h], h).toEqual({ $ref: `#/components/headers/${h}` });
    expect(doc.components.headers[h], h).toBeDefined();
  }
  // Descriptions name the operation's scope (the route's own) and its /v1 alias.
  expect(doc.paths['/sync'].post.description).toContain('scope `sync`');
  expect(doc.paths['/players'].get.description).toContain('scope `read`');
  expect(doc.paths['/players'].get.description).toContain('`/v1/players`');
  expect(players['429'].headers['Retry-After']).toBeDefined();
  expect(players['503'].headers['Retry-After']).toBeDefined();
  // 401 and 403 come before the rate limit: no rate-limit headers on them.
  expect(players['401'].headers['X-RateLimit-Limit']).toBeUndefined();
  expect(players['403'].headers['RateLimit']).toBeUndefined();
  expect(doc.paths['/health'].get.responses['200'].headers['X-RateLimit-Limit']).toBeUndefined();
});

test('every success answer has an example recorded from a real answer (scripts/openapi-examples.ts)', () => {
  for (const item of Object.values<any>(doc.paths)) {
    for (const op of Object.values<any>(item)) {
      const success = Object.entries<any>(op.responses).filter(([s]) => Number(s) < 300);
      expect(success.length, op.operationId).toBeGreaterThan(0);
      for (const [s, r] of success) {
        // A live stream's answer is an endless text/event-stream (docs/design.md §11): no JSON to record.
        if (r.content['text/event-stream'] !== undefined) continue;
        expect(r.content['application/json'].example, `${op.operationId} ${s}: run scripts/openapi-examples.ts`).toBeDefined();
      }
    }
  }
  // Recorded over the demo history, not invented: the leaderboard's entries are real players with exact token amounts.
  const players = doc.paths['/players'].get.responses['200'].content['application/json'].example;
  expect(players.results.length).toBeGreaterThan(0);
  expect(players.total).toBeGreaterThan(players.results.length);
});

test('parameter rules and defaults are in the document (docs/design.md §4)', () => {
  const params = (path: string) => Object.fromEntries((doc.paths[path].get.parameters as any[]).map((p) => [p.name, p.schema]));
  expect(params('/players').limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 10 });
  expect(params('/players').sortBy.enum).toEqual(['usd_profit', 'usd_volume', 'token_profit', 'token_volume']);
  expect(params('/events/settledGames').itemsPerPage).toMatchObject({ minimum: 1, maximum: 200, default: 10 });
  expect(params('/events/settledGames').sorting).toMatchObject({ enum: ['ASC', 'DESC'], default: 'DESC' });
  expect(params('/platforms').days).toMatchObject({ minimum: 1, maximum: 365, default: 7 });
  // The series' days default depends on interval (300, or 1 with interval=hour): stated in its description.
  expect(params('/chart/plays').days).toMatchObject({ minimum: 1, maximum: 300 });
  const daysParam = (doc.paths['/chart/plays'].get.parameters as any[]).find((p) => p.name === 'days');
  expect(daysParam.description ?? daysParam.schema.description).toContain('default 300, or 1 with interval=hour');
  expect(params('/chart/plays').interval).toMatchObject({ enum: ['hour', 'day', 'week'], default: 'day' });
  expect(params('/daily').tz).toMatchObject({ type: 'string', default: 'UTC' });
});

test('token amounts are integer strings and USD amounts numbers in the response schemas', () => {
  const game = doc.paths['/events/settledGames'].get.responses['200'].content['application/json'].schema.properties.results.items;
  for (const f of ['wager', 'payout', 'profit', 'jackpot']) expect(game.properties[f].type).toBe('string');
  for (const f of ['usd_wager', 'usd_profit', 'multiplier']) expect(game.properties[f].type).toBe('number');
  expect(game.properties.time.type).toBe('integer');
  const entry = doc.paths['/players'].get.responses['200'].content['application/json'].schema.properties.results.items;
  expect(entry.properties.token_volume.type).toEqual(['string', 'null']);
});

test('/health and /ready are public; /openapi.json itself is not listed', () => {
  expect(doc.paths['/health'].get.security).toEqual([]);
  expect(doc.paths['/ready'].get.security).toEqual([]);
  expect(doc.paths['/openapi.json']).toBeUndefined();
});

test('every query parameter of the document is an entry of the parameter registry (each defined once: src/api/params.ts)', async () => {
  const { PARAMS } = await import('../../src/api/params.js');
  // The document moves a schema's description up to the parameter; compare with sorted keys.
  const canonical = (o: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));
  const registry = Object.values(PARAMS).map((p) => canonical(p.schema as Record<string, unknown>));
  type Parameter = { in: string; name: string; description?: string; schema: Record<string, unknown> };
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: Parameter[] }>>)) {
    for (const op of Object.values(item)) {
      for (const p of op.parameters ?? []) {
        if (p.in !== 'query') continue;
        const schema = { ...p.schema, ...(p.description === undefined ? {} : { description: p.description }) };
        expect(registry, `${path} ${p.name}`).toContain(canonical(schema));
      }
    }
  }
});
