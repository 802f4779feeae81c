/**
 * Property tests over every operation's query string (docs/hardening.md): random strings, unicode, huge and
 * negative numbers, floats where integers are expected, SQL and JSON fragments, repeated
 * parameters, empty values, raw percent signs — over real HTTP against the fixture world, so the
 * queries actually run. Every answer is 2xx with a body valid against the operation's OpenAPI
 * response schema, or 4xx with the docs/spec.md §7 error body and a code that fits the status; never 5xx,
 * never a hang (each request has a deadline).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OPERATIONS, type Operation } from '../helpers/api-operations.js';
import { type Contract, setupContract } from '../helpers/contract-world.js';
import { expectValidAnswer, hostileValue, responseValidators, type Validators } from '../helpers/fuzz.js';

let c: Contract;
let validators: Validators;
let addresses: string[];
beforeAll(async () => {
  c = await setupContract();
  validators = responseValidators(c.app.app.swagger() as any);
  const g = c.fixture.events.find((e) => e.name === 'GameSettled')!.data as unknown as Record<string, unknown>;
  addresses = [...new Set([g.user, g.creator, g.tokenMint, g.pool].map(String))];
});
afterAll(() => c.close());

/** The parameters each operation declares (from its route schema), plus some it does not. */
function paramNames(op: Operation): string[] {
  const route = c.app.app.swagger() as any;
  const params = (route.paths[op.path]?.[op.method.toLowerCase()]?.parameters ?? []) as { name: string; in: string }[];
  return params.filter((p) => p.in === 'query').map((p) => p.name);
}

/** Runs per operation: ~17 × RUNS requests in all (bounded, a few seconds). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

function queryArb(op: Operation) {
  const declared = paramNames(op);
  const name = fc.oneof(
    { weight: 6, arbitrary: declared.length ? fc.constantFrom(...declared) : fc.constant('x') },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a[b]', 'a.b', '') },
  );
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...addresses) },
    { weight: 8, arbitrary: hostileValue },
  );
  // Required parameters usually present with a valid value, so deeper code paths run.
  const base = op.query ?? {};
  return fc.record({
    keepBase: fc.boolean(),
    pairs: fc.array(fc.tuple(name, value, fc.boolean()), { maxLength: 6 }),
  }).map(({ keepBase, pairs }) => {
    const parts: string[] = [];
    if (keepBase) for (const [k, v] of Object.entries(base)) parts.push(`${k}=${encodeURIComponent(v)}`);
    for (const [k, v, encoded] of pairs) {
      // Unencoded values put raw '%', '#', '+', '&' and spaces on the wire; fetch percent-encodes what it must.
      const shown = encoded ? encodeURIComponent(v) : v.replace(/[#&]/g, '');
      parts.push(v === '' && !encoded ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${shown}`);
    }
    return parts.join('&');
  });
}

async function ask(op: Operation, qs: string) {
  const url = `${c.app.baseUrl}${op.path}${qs ? `?${qs}` : ''}`;
  const res = await fetch(url, { method: op.method, headers: { 'x-api-key': c.app.key }, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, url };
}

/** Statuses seen over the whole file: the generators must reach both the 2xx and the 4xx paths. */
const seen = new Map<number, number>();

describe.each(OPERATIONS)('$method $path', (op) => {
  test('hostile query strings: 2xx with a valid body or 4xx with the error body, never 5xx or a hang', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb(op), async (qs) => {
        const r = await ask(op, qs);
        seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
        expectValidAnswer(r, op, validators);
        // A declared parameter given twice is always refused, naming it (docs/design.md §4).
        const names = qs.split('&').filter(Boolean).map((p) => safeDecode(p.split('=')[0]!));
        const declared = new Set(paramNames(op));
        const repeated = names.filter((n, i) => n !== undefined && declared.has(n) && names.indexOf(n) !== i);
        if (repeated.length > 0) expect(r.status, r.url).toBe(400);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 7) },
    );
  });
});

test('the runs reached answers of both kinds', () => {
  if (process.env.FUZZ_VERBOSE) console.log(Object.fromEntries(seen));
  const ok = [...seen].filter(([s]) => s < 300).reduce((a, [, n]) => a + n, 0);
  const refused = [...seen].filter(([s]) => s >= 400).reduce((a, [, n]) => a + n, 0);
  expect(ok).toBeGreaterThan(RUNS);
  expect(refused).toBeGreaterThan(RUNS);
});

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

test('the validators check something: a wrong body fails them', () => {
  const v = validators.get('GET /stats')!;
  expect(v({ players: 1 })).toBe(false);
  expect(v({ players: 1, usd_volume: 0, plays: 0, creators: 0, revenue_usd: 0, player_net_profit_usd: 0, active_players: 0, first_bet_time: 0 })).toBe(true);
});
