import { AppError } from '../core/index.js';

const UNIT_MS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};

/**
 * Parses a key lifetime for `keys create --expires`: a duration such as `90d`, `12h`, `30m`,
 * `2w`, `1y` (relative to `nowMs`), or an ISO 8601 date-time. Returns the expiry in Unix ms.
 * Throws AppError INVALID_ARGUMENT on anything else or on a time not in the future.
 */
export function parseExpiry(text: string, nowMs: number): number {
  const m = /^(\d+)\s*([mhdwy])$/i.exec(text.trim());
  let at: number;
  if (m) {
    at = nowMs + Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]!;
  } else if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())) {
    at = Date.parse(text.trim());
  } else {
    at = Number.NaN;
  }
  if (!Number.isFinite(at)) {
    throw new AppError('INVALID_ARGUMENT', `expires must be a duration like 90d, 12h, 30m, 2w, 1y or an ISO 8601 date; got ${JSON.stringify(text)}`);
  }
  if (at <= nowMs) throw new AppError('INVALID_ARGUMENT', `expires must be in the future; got ${JSON.stringify(text)}`);
  return at;
}
