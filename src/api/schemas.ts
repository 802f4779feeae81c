import { ERROR_CODES } from './errors.js';

/**
 * Shared JSON schemas: the one source of the request validation, the response serialization
 * and the OpenAPI document (docs/architecture.md). Query parameter rules follow docs/design.md §4 "Parameters".
 */

/** Custom AJV format: base58 text that decodes to 32 bytes (docs/design.md §4; checked with @solana/kit). */
export const ADDRESS_FORMAT = 'solana-address';

/** `startTime`: Unix ms digits, or an RFC 3339 / ISO 8601 date-time with a zone (docs/design.md §4). */
export const START_TIME_PATTERN = '^(\\d{1,16}|\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?([Zz]|[+-]\\d{2}:\\d{2}))$';

/** Largest `page × itemsPerPage` served with offsets; deeper pages use `cursor` (docs/design.md §4). */
export const MAX_PAGE_DEPTH = 100_000;

export const ERROR_SCHEMA_ID = 'ApiError';

/** The error body of docs/spec.md §7, shared by every route (`$ref: 'ApiError#'`). */
export const errorSchema = {
  $id: ERROR_SCHEMA_ID,
  type: 'object',
  description: 'Every error answer (docs/spec.md §7). `retryAfter` is present on 429 only.',
  required: ['error', 'code', 'timestamp'],
  properties: {
    error: { type: 'string', description: 'Human-readable message' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Machine-readable code (docs/errors.md)' },
    timestamp: { type: 'string', format: 'date-time', description: 'Time of the error, ISO 8601 UTC with ms' },
    retryAfter: { type: 'integer', minimum: 0, description: 'Seconds until one request is allowed (429 only)' },
  },
} as const;

const errorRef = { $ref: `${ERROR_SCHEMA_ID}#` } as const;

/** Error answers every authenticated route may give (auth → rate limit → validation → query). */
export const protectedErrors = {
  400: errorRef,
  401: errorRef,
  429: errorRef,
  500: errorRef,
  503: errorRef,
} as const;

export const errorResponse = errorRef;

// ───────────────────────────── parameters ─────────────────────────────

export function address(description: string) {
  return { type: 'string', format: ADDRESS_FORMAT, description: `${description} (base58 address of 32 bytes)` } as const;
}

export function intParam(description: string, min: number, max: number | undefined, def?: number) {
  return {
    type: 'integer',
    minimum: min,
    ...(max === undefined ? {} : { maximum: max }),
    ...(def === undefined ? {} : { default: def }),
    description,
  } as const;
}

export function enumParam<T extends string>(description: string, values: readonly T[], def?: T) {
  return { type: 'string', enum: values, ...(def === undefined ? {} : { default: def }), description } as const;
}

export const startTimeParam = {
  type: 'string',
  pattern: START_TIME_PATTERN,
  description:
    'Keep games with time ≥ startTime: Unix time in milliseconds (integer ≥ 0) or an ISO 8601 date-time with a zone, e.g. 2025-01-31T00:00:00Z',
} as const;

export const cursorParam = {
  type: 'string',
  minLength: 1,
  maxLength: 512,
  description: 'Opaque keyset cursor: the `nextCursor` of the previous page (extension, docs/design.md §4). When set, `page` is ignored.',
} as const;

export const pagingParams = {
  page: intParam(`Zero-based page number; page × itemsPerPage ≤ ${MAX_PAGE_DEPTH} (use cursor beyond)`, 0, undefined, 0),
  itemsPerPage: intParam('Results per page', 1, 200, 10),
  cursor: cursorParam,
} as const;

export const chartDaysParam = intParam('Number of UTC dates ending today (today included)', 1, 300, 300);

// ───────────────────────────── response pieces ─────────────────────────────

/** Token amount in the token's smallest unit, as an exact integer string (docs/spec.md §2). */
export function amount(description: string) {
  return { type: 'string', pattern: '^-?\\d+$', description: `${description} (integer string, smallest token unit)` } as const;
}

export function nullableAmount(description: string) {
  return { type: ['string', 'null'], pattern: '^-?\\d+$', description: `${description} (integer string, smallest token unit; null when spanning several tokens)` } as const;
}

export const usd = (description: string) => ({ type: 'number', description: `${description} (USD)` }) as const;
export const ms = (description: string) => ({ type: 'integer', description: `${description} (Unix ms)` }) as const;
export const count = (description: string) => ({ type: 'integer', minimum: 0, description }) as const;
export const dateString = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'UTC calendar date YYYY-MM-DD' } as const;
export const addressOut = (description: string) => ({ type: 'string', description }) as const;

/** Object schema with every property required (our answers always carry every field). */
export function obj<P extends Record<string, unknown>>(properties: P, description?: string) {
  return { type: 'object', required: Object.keys(properties), properties, ...(description ? { description } : {}) } as const;
}
