import { expect } from 'vitest';

/** Valid 32-byte base58 addresses (the system program and wrapped SOL mint). */
export const ADDR = '11111111111111111111111111111111';
export const MINT = 'So11111111111111111111111111111111111111112';

export interface Operation {
  method: 'GET' | 'POST';
  path: string;
  /** A valid query for this operation (required parameters filled). */
  query?: Record<string, string>;
  /** Status on an empty store. */
  emptyStatus: number;
  /** Not charged to the key's bucket (GET /usage: docs/design.md §4 "Usage"). */
  free?: boolean;
}

/**
 * The 17 operations of docs/spec.md §4, the pool directory (/pools, /pool; docs/design.md §4) and
 * the LP-return and house-edge operations (docs/design.md §10), /audit/coverage (docs/design.md
 * "Coverage and reconciliation"), the fairness audit (docs/design.md "Fairness audit") and /usage,
 * each with a valid request.
 */
export const OPERATIONS: Operation[] = [
  { method: 'GET', path: '/status', emptyStatus: 200 },
  { method: 'GET', path: '/sync/status', emptyStatus: 200 },
  { method: 'POST', path: '/sync', emptyStatus: 202 },
  { method: 'GET', path: '/stats', emptyStatus: 200 },
  { method: 'GET', path: '/player', query: { user: ADDR }, emptyStatus: 404 },
  { method: 'GET', path: '/players', emptyStatus: 200 },
  { method: 'GET', path: '/events/settledGames', emptyStatus: 200 },
  { method: 'GET', path: '/events/poolChanges', query: { pool: ADDR }, emptyStatus: 200 },
  { method: 'GET', path: '/platforms', emptyStatus: 200 },
  { method: 'GET', path: '/platforms-by-pool', query: { pool: ADDR }, emptyStatus: 200 },
  { method: 'GET', path: '/tokens', emptyStatus: 200 },
  { method: 'GET', path: '/ratio', query: { pool: ADDR }, emptyStatus: 200 },
  { method: 'GET', path: '/total', query: { pool: ADDR }, emptyStatus: 200 },
  { method: 'GET', path: '/daily', query: { pool: ADDR }, emptyStatus: 200 },
  { method: 'GET', path: '/pools', emptyStatus: 200 },
  { method: 'GET', path: '/pool', query: { pool: ADDR }, emptyStatus: 404 },
  { method: 'GET', path: '/chart/plays', emptyStatus: 200 },
  { method: 'GET', path: '/chart/daily-usd', emptyStatus: 200 },
  { method: 'GET', path: '/chart/dao-usd', emptyStatus: 200 },
  { method: 'GET', path: '/house-edge', emptyStatus: 200 },
  { method: 'GET', path: '/house-edge/wins', emptyStatus: 200 },
  { method: 'GET', path: '/pool/lp-price', query: { pool: ADDR }, emptyStatus: 200 },
  { method: 'GET', path: '/pool/returns', query: { pool: ADDR, startTime: '0' }, emptyStatus: 404 },
  { method: 'GET', path: '/audit/coverage', emptyStatus: 200 },
  { method: 'GET', path: '/audit/fairness', emptyStatus: 200 },
  { method: 'GET', path: '/usage', emptyStatus: 200, free: true },
];

export function opUrl(op: Pick<Operation, 'path' | 'query'>, extra: Record<string, string> = {}): string {
  const qs = new URLSearchParams({ ...op.query, ...extra }).toString();
  return qs ? `${op.path}?${qs}` : op.path;
}

export interface Res {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** One real HTTP request; parses JSON bodies. */
export async function http(baseUrl: string, path: string, init: RequestInit & { key?: string } = {}): Promise<Res> {
  const headers = new Headers(init.headers);
  if (init.key !== undefined) headers.set('x-api-key', init.key);
  const r = await fetch(baseUrl + path, { ...init, headers });
  const text = await r.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: r.status, headers: r.headers, body, text };
}

export function call(baseUrl: string, op: Operation, init: RequestInit & { key?: string } = {}, extra: Record<string, string> = {}): Promise<Res> {
  return http(baseUrl, opUrl(op, extra), { method: op.method, ...init });
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Asserts the docs/spec.md §7 error body: exactly error, code, timestamp (+ retryAfter on 429). */
export function expectError(res: Res, status: number, code: string, parameter?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(status === 429 ? ['code', 'error', 'retryAfter', 'timestamp'] : ['code', 'error', 'timestamp']);
  expect(res.body.code).toBe(code);
  expect(typeof res.body.error).toBe('string');
  expect(res.body.error.length).toBeGreaterThan(0);
  expect(res.body.timestamp).toMatch(ISO_MS);
  if (status === 429) {
    expect(Number.isInteger(res.body.retryAfter)).toBe(true);
    expect(res.headers.get('retry-after')).toBe(String(res.body.retryAfter));
  }
  if (parameter !== undefined) expect(res.body.error).toContain(`'${parameter}'`);
}

/** The X-RateLimit-* headers as numbers (NaN when absent). */
export function rateHeaders(res: Res): { limit: number; remaining: number; reset: number } {
  return {
    limit: Number(res.headers.get('x-ratelimit-limit') ?? Number.NaN),
    remaining: Number(res.headers.get('x-ratelimit-remaining') ?? Number.NaN),
    reset: Number(res.headers.get('x-ratelimit-reset') ?? Number.NaN),
  };
}
