import { AppError } from '../core/index.js';

/**
 * The one error contract (docs/architecture.md convention 6; docs/spec.md §7; docs/design.md §4 "Errors"): every API error
 * code, its HTTP status and its default message. docs/errors.md documents each code (a test
 * keeps the two in sync). Messages of 401/429 are the spec's own words (docs/spec.md §7).
 */
export const ERROR_CODES = {
  INVALID_PARAMETER: { status: 400, message: 'Invalid parameter' },
  BAD_REQUEST: { status: 400, message: 'Malformed request' },
  MISSING_API_KEY: { status: 401, message: 'API key required' },
  UNAUTHORIZED: { status: 401, message: 'Invalid API key' },
  INSUFFICIENT_SCOPE: { status: 403, message: 'API key lacks the scope this operation needs' },
  ORIGIN_NOT_ALLOWED: { status: 403, message: 'Origin not allowed for this publishable key' },
  NOT_FOUND: { status: 404, message: 'Route not found' },
  PLAYER_NOT_FOUND: { status: 404, message: 'Player not found' },
  POOL_NOT_FOUND: { status: 404, message: 'Pool not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, message: 'Request not received in time' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  URI_TOO_LONG: { status: 414, message: 'Request URL too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded' },
  TOO_MANY_STREAMS: { status: 429, message: 'Too many open streams for this API key' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request headers too large' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service temporarily unavailable' },
  STORE_UNAVAILABLE: { status: 503, message: 'Store temporarily unavailable' },
} as const satisfies Record<string, { status: number; message: string }>;

/** A code of the API's error registry (ERROR_CODES; docs/errors.md). */
export type ApiErrorCode = keyof typeof ERROR_CODES;

/** True when `code` (an AppError code) is one the API answers with its own status; any other becomes 500 INTERNAL_ERROR. */
export function isApiErrorCode(code: string): code is ApiErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** The JSON body of every error (docs/spec.md §7). `retryAfter` only on 429. */
export interface ErrorBody {
  error: string;
  code: ApiErrorCode;
  /** ISO 8601 UTC with ms. */
  timestamp: string;
  /** Seconds to wait before retrying (429 only). */
  retryAfter?: number;
}

/**
 * Builds an AppError carrying an API code; the error handler turns it into the HTTP answer.
 * `details.parameter` names the offending query parameter for INVALID_PARAMETER;
 * `details.retryAfter` (seconds) becomes `Retry-After` (and `retryAfter` in the body on 429 only; a
 * 503 when the API is saturated carries the header alone);
 * `details.allow` becomes the `Allow` header on 405.
 */
export function apiError(code: ApiErrorCode, message?: string, details?: Record<string, unknown>): AppError {
  return new AppError(code, message ?? ERROR_CODES[code].message, { details });
}

/** 400 INVALID_PARAMETER whose message names the parameter and the rule (docs/design.md §4). */
export function invalidParameter(parameter: string, rule: string): AppError {
  return apiError('INVALID_PARAMETER', `Invalid parameter '${parameter}': ${rule}`, { parameter });
}
