import type { Scope } from '../store/index.js';
import { ERROR_CODES, type ApiErrorCode } from './errors.js';
import { VERSION_PREFIX } from './operations.js';

/**
 * Finishing touches of the generated OpenAPI document (docs/design.md §4 "Versioning"), so tools
 * accept it as is (`@redocly/cli lint` and Spectral's `oas` ruleset: 0 errors, 0 warnings; see
 * test/api/openapi-lint.test.ts): `servers`; per status an error schema whose `code` enum holds
 * that status's codes of the registry (src/api/errors.ts), with one example per code; the response
 * headers (rate limit, Retry-After, ETag, X-Request-Id); a description naming the operation's scope
 * and its /v1 alias; and the success examples recorded from real answers
 * (src/api/openapi-examples.ts, written by scripts/openapi-examples.ts).
 */

/** Recorded answers: success bodies by operationId, error bodies by code (src/api/openapi-examples.ts). */
export interface RecordedExamples {
  /** The 2xx body of each operation, arrays cut to their first entries. */
  operations: Record<string, unknown>;
  /** A real error body per code, where one could be provoked. */
  errors: Partial<Record<string, unknown>>;
}

type Json = Record<string, any>;

/** A timestamp for error examples built from the registry (codes no recording could provoke: 500, 503…). */
const EXAMPLE_TIME = '2026-01-15T13:27:41.000Z';

/** What each error status means, for the response `description`. */
const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid parameter or malformed request',
  401: 'Missing or invalid API key',
  403: 'The key may not call this operation here (scope, or a publishable key\'s origin)',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request not received in time',
  413: 'Request body too large',
  414: 'Request URL too long',
  415: 'Unsupported content type',
  429: 'Rate limit exceeded',
  431: 'Request headers too large',
  500: 'Internal error (details logged with the request id)',
  503: 'Temporarily unavailable; retry after Retry-After seconds',
};

const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy'] as const;

/** The response headers of components.headers (docs/errors.md "Rate-limit headers", README "Using the API"). */
const HEADERS: Record<string, Json> = {
  'X-RateLimit-Limit': { description: 'The key\'s rate: requests per minute', schema: { type: 'integer', minimum: 1 } },
  'X-RateLimit-Remaining': { description: 'Whole requests left in the bucket now, 0 … burst (may exceed X-RateLimit-Limit)', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Unix time in seconds when the bucket is full again', schema: { type: 'integer', minimum: 0 } },
  RateLimit: { description: 'IETF draft-ietf-httpapi-ratelimit-headers: `"<tier>";r=<remaining>;t=<seconds until full>`', schema: { type: 'string' }, example: '"standard";r=198;t=2' },
  'RateLimit-Policy': {
    description: 'IETF draft-ietf-httpapi-ratelimit-headers: `"<tier>";q=<burst>;w=<seconds to refill from empty>` (q / w is the rate)',
    schema: { type: 'string' },
    example: '"standard";q=200;w=120',
  },
  'Retry-After': { description: 'Seconds until one request is allowed (429), or to wait before retrying (503)', schema: { type: 'integer', minimum: 0 } },
  ETag: { description: 'Entity tag of the answer, when the response cache is on (send it back in If-None-Match for a 304)', schema: { type: 'string' } },
  'X-Request-Id': { description: 'The request id, on every answer (quote it when reporting a 500)', schema: { type: 'string' } },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The registry's codes by HTTP status. */
function codesByStatus(): Map<number, ApiErrorCode[]> {
  const out = new Map<number, ApiErrorCode[]>();
  for (const [code, { status }] of Object.entries(ERROR_CODES) as [ApiErrorCode, { status: number }][]) {
    out.set(status, [...(out.get(status) ?? []), code]);
  }
  return out;
}

/** The error body of `code`: the recorded real one, else built from the registry's message. */
function errorExample(code: ApiErrorCode, recorded: RecordedExamples): unknown {
  const real = recorded.errors[code];
  if (real !== undefined) return real;
  const body: Json = { error: ERROR_CODES[code].message, code, timestamp: EXAMPLE_TIME };
  if (ERROR_CODES[code].status === 429) body.retryAfter = 1;
  return body;
}

/**
 * Adds what tools need to the document @fastify/swagger generated (mutates and returns it).
 * `serverUrl` is the `servers` entry (the API's own address); `scopes` each operation's scope by
 * operationId (default `read`).
 */
export function finishDocument(doc: Json, recorded: RecordedExamples, serverUrl: string, scopes: ReadonlyMap<string, Scope> = new Map()): Json {
  doc.servers = [{ url: serverUrl, description: `This API (every path also answers under ${VERSION_PREFIX})` }];
  doc.components ??= {};
  doc.components.schemas ??= {};
  const byStatus = codesByStatus();
  const usedStatuses = new Set<number>();
  const usedHeaders = new Set<string>();
  const headersOf = (names: readonly string[]): Json => {
    for (const n of names) usedHeaders.add(n);
    return Object.fromEntries(names.map((n) => [n, ref(n)]));
  };

  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    for (const [method, op] of Object.entries(item) as [string, Json][]) {
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      const scope = scopes.get(op.operationId) ?? 'read';
      const access = `${isPublic ? 'No API key needed.' : `Needs an API key with scope \`${scope}\`.`} Also served at \`${VERSION_PREFIX}${path}\`.`;
      op.description = `${op.description ?? `${op.summary ?? ''}.`} ${access}`.trim();
      op.responses ??= {};
      // Any request may be refused for its URL length (docs/hardening.md), public ones included.
      op.responses['414'] ??= {};
      for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
        const s = Number(status);
        const rateLimited = !isPublic && s !== 401 && s !== 403;
        const names: string[] = ['X-Request-Id'];
        if (rateLimited) names.push(...RATE_HEADERS);
        if (s === 429 || s === 503) names.push('Retry-After');
        if (s >= 200 && s < 300 && method === 'get' && !isPublic) names.push('ETag');
        response.headers = { ...(response.headers ?? {}), ...headersOf(names) };
        if (s >= 400) {
          const codes = byStatus.get(s);
          if (!codes) continue;
          usedStatuses.add(s);
          response.description = STATUS_TEXT[s] ?? response.description ?? 'Error';
          // A 404 of a route is its own "not found" (an unknown path never reaches a documented operation).
          const own404: ApiErrorCode = path === '/player' ? 'PLAYER_NOT_FOUND' : path === '/pool' ? 'POOL_NOT_FOUND' : 'NOT_FOUND';
          const wanted = s === 404 ? [own404] : codes;
          const examples = Object.fromEntries(wanted.map((c) => [c, { summary: ERROR_CODES[c].message, value: errorExample(c, recorded) }]));
          response.content = { 'application/json': { schema: { $ref: `#/components/schemas/Error${s}` }, examples } };
        } else if (s >= 200 && s < 300) {
          response.description = response.description === 'Default Response' ? (op.summary ?? 'Success') : response.description;
          const body = recorded.operations[op.operationId];
          const media = response.content?.['application/json'];
          if (media && body !== undefined) media.example = body;
        }
      }
    }
  }

  for (const s of [...usedStatuses].sort()) {
    doc.components.schemas[`Error${s}`] = {
      description: `The error body of a ${s}: one of its codes (docs/errors.md)`,
      allOf: [{ $ref: '#/components/schemas/ApiError' }, { type: 'object', properties: { code: { type: 'string', enum: byStatus.get(s) } } }],
    };
  }
  doc.components.headers = Object.fromEntries(Object.entries(HEADERS).filter(([n]) => usedHeaders.has(n)));
  return doc;
}
