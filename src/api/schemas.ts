import { ERROR_CODES } from './errors.js';

/**
 * Shared response JSON schemas: the one source of the response serialization and of the OpenAPI
 * document's answers (docs/architecture.md). Query parameters live in params.ts (the parameter registry).
 */

/** `$id` of the shared error body schema (responses refer to it as `ApiError#`). */
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

/** Error answers every authenticated route may give (auth → key use (403) → rate limit → validation → query). */
export const protectedErrors = {
  400: errorRef,
  401: errorRef,
  403: errorRef,
  429: errorRef,
  500: errorRef,
  503: errorRef,
} as const;

/** Reference to the shared error body, for one status (e.g. 404, 413). */
export const errorResponse = errorRef;

// ───────────────────────────── response pieces ─────────────────────────────

/** Token amount in the token's smallest unit, as an exact integer string (docs/spec.md §2). */
export function amount(description: string) {
  return { type: 'string', pattern: '^-?\\d+$', description: `${description} (integer string, smallest token unit)` } as const;
}

/** As `amount`, or null when the figure spans several tokens (docs/design.md §4 `/players`). */
export function nullableAmount(description: string) {
  return { type: ['string', 'null'], pattern: '^-?\\d+$', description: `${description} (integer string, smallest token unit; null when spanning several tokens)` } as const;
}

/** A USD amount (JS number). */
export const usd = (description: string) => ({ type: 'number', description: `${description} (USD)` }) as const;
/** A time as Unix ms. */
export const ms = (description: string) => ({ type: 'integer', description: `${description} (Unix ms)` }) as const;
/** A non-negative count. */
export const count = (description: string) => ({ type: 'integer', minimum: 0, description }) as const;
/** A UTC calendar date, YYYY-MM-DD. */
export const dateString = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'UTC calendar date YYYY-MM-DD' } as const;
/** An address in an answer (base58; not validated on output). */
export const addressOut = (description: string) => ({ type: 'string', description }) as const;

/** Object schema with every property required (our answers always carry every field). */
export function obj<P extends Record<string, unknown>>(properties: P, description?: string) {
  return { type: 'object', required: Object.keys(properties), properties, ...(description ? { description } : {}) } as const;
}
