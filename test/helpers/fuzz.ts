import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { expect } from 'vitest';
import { ERROR_CODES } from '../../src/api/index.js';

/** Values an attacker or a broken client might send for any parameter. */
export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.integer().map(String),
  fc.integer({ min: -5, max: 1500 }).map(String),
  fc.double({ noNaN: false }).map(String),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-0',
    '-1',
    '1.0',
    '1e3',
    '1e308',
    '0x10',
    '9007199254740993',
    'Infinity',
    'NaN',
    'null',
    'true',
    'yes',
    'DESC',
    'asc',
    'usd_volume',
    'token_profit',
    "' OR 1=1 --",
    "'; DROP TABLE games; --",
    '" or ""="',
    '1; select * from api_keys',
    '%',
    '%ZZ',
    '%00',
    '%E0%A4%A',
    '{"$gt":""}',
    '[1,2]',
    '{}',
    '__proto__',
    '../../etc/passwd',
    '\u0000',
    '\uFFFF',
    '😀',
    'Ａ',
    '11111111111111111111111111111111',
    'So11111111111111111111111111111111111111112',
    '1111111111111111111111111111111O',
    '2025-01-31T00:00:00Z',
    '2025-02-30T00:00:00Z',
    '1969-12-31T23:59:59Z',
    '99999-01-01T00:00:00Z',
    'a'.repeat(600),
  ),
);

export type Validators = Map<string, (body: unknown) => boolean>;

/**
 * One validator per operation and status ("GET /stats", "GET /stats 404"…) from the service's own
 * OpenAPI document (the response schemas), compiled with an independent Ajv (strict types).
 */
export function responseValidators(doc: any): Validators {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
  for (const [id, schema] of Object.entries<any>(doc.components?.schemas ?? {})) ajv.addSchema({ ...schema, $id: `#/components/schemas/${id}` });
  const out: Validators = new Map();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      for (const [status, resp] of Object.entries<any>(op.responses ?? {})) {
        const schema = resp.content?.['application/json']?.schema;
        if (!schema) continue;
        const fn: ValidateFunction = ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\/components\/schemas\/([^"]+)"/g, '"$ref":"#/components/schemas/$1"')));
        const key = status === '200' || status === '202' ? `${method.toUpperCase()} ${path}` : `${method.toUpperCase()} ${path} ${status}`;
        out.set(key, (b) => fn(b) as boolean);
      }
    }
  }
  return out;
}

/** Codes a status may carry (docs/errors.md). */
const CODES_BY_STATUS = new Map<number, Set<string>>();
for (const [code, { status }] of Object.entries(ERROR_CODES)) {
  if (!CODES_BY_STATUS.has(status)) CODES_BY_STATUS.set(status, new Set());
  CODES_BY_STATUS.get(status)!.add(code);
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** 2xx: JSON valid against the operation's schema; 4xx: the docs/spec.md §7 body with a code that fits; never 5xx. */
export function expectValidAnswer(r: { status: number; text: string; url: string; headers: Headers }, op: { method: string; path: string }, validators: Validators): void {
  const where = `${op.method} ${r.url} → ${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBeLessThan(500);
  expect(r.headers.get('content-type'), where).toMatch(/^application\/json/);
  const body = JSON.parse(r.text);
  if (r.status < 300) {
    const v = validators.get(`${op.method} ${op.path}`);
    expect(v, `no response schema for ${op.method} ${op.path}`).toBeDefined();
    expect(v!(body), where).toBe(true);
    return;
  }
  expect(Object.keys(body).sort(), where).toEqual(r.status === 429 ? ['code', 'error', 'retryAfter', 'timestamp'] : ['code', 'error', 'timestamp']);
  expect(CODES_BY_STATUS.get(r.status)?.has(body.code), where).toBe(true);
  expect(body.timestamp).toMatch(ISO_MS);
  expect(typeof body.error).toBe('string');
  // Nothing internal leaks into a message: no stack frames, no SQL.
  expect(body.error, where).not.toMatch(/\bat \S+ \(|\.ts:\d+|select .* from|sqlite_|SQLITE/i);
  if (body.code === 'INVALID_PARAMETER') expect(body.error, where).toMatch(/^Invalid parameter '[^']*'/);
  if (r.status === 404) expect(body.code, where).toBe(op.path === '/player' ? 'PLAYER_NOT_FOUND' : op.path === '/pool' || op.path === '/pool/returns' ? 'POOL_NOT_FOUND' : 'NOT_FOUND');
}
