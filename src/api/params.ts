import type { FastifySchemaValidationError } from 'fastify';
import { AppError } from '../core/index.js';
import { invalidParameter } from './errors.js';
import { ADDRESS_FORMAT } from './schemas.js';

/**
 * Query parameter conversions and the validation message formatter (docs/design.md §4: every 400 is
 * INVALID_PARAMETER with a message naming the parameter and the rule).
 */

const START_TIME_RULE = 'must be Unix time in milliseconds (integer ≥ 0) or an ISO 8601 date-time with a zone, e.g. 2025-01-31T00:00:00Z';

/** Parameters that take a time like `startTime` (Unix ms or ISO 8601; docs/design.md §4). */
const TIME_PARAMETERS = new Set(['startTime', 'endTime']);

/**
 * `startTime` → Unix ms. The schema has already checked the shape; this rejects impossible
 * calendar values (2025-02-30, 25:00) that a pattern cannot. Throws INVALID_PARAMETER.
 */
export function parseStartTime(raw: string | undefined): number | undefined {
  return parseTime('startTime', raw);
}

/** A time parameter (`startTime`, `endTime`) → Unix ms, as parseStartTime; the 400 names `name`. */
export function parseTime(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw)) {
    const n = Number(raw);
    if (!Number.isSafeInteger(n)) throw invalidParameter(name, START_TIME_RULE);
    return n;
  }
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|([+-])(\d{2}):(\d{2}))$/.exec(raw);
  if (!m) throw invalidParameter(name, START_TIME_RULE);
  const [, y, mo, d, h, mi, s = '0', frac = '', zone, sign, zh, zm] = m;
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const utc = Date.UTC(...fields);
  const back = new Date(utc);
  const consistent =
    back.getUTCFullYear() === fields[0] && back.getUTCMonth() === fields[1] && back.getUTCDate() === fields[2] &&
    back.getUTCHours() === fields[3] && back.getUTCMinutes() === fields[4] && back.getUTCSeconds() === fields[5];
  const offsetMin = zone === 'Z' || zone === 'z' ? 0 : (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm));
  if (!consistent || Number(zh ?? 0) > 23 || Number(zm ?? 0) > 59) throw invalidParameter(name, START_TIME_RULE);
  const millis = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  const result = utc + millis - offsetMin * 60_000;
  if (result < 0) throw invalidParameter(name, 'must not be before 1970-01-01T00:00:00Z');
  return result;
}

/** Flag values of docs/design.md §4 (`onlyJackpots`): present with no value, true/1/yes → true; false/0/no → false. */
export const FLAG_VALUES = ['', 'true', '1', 'yes', 'false', '0', 'no'] as const;

export function parseFlag(raw: string | undefined): boolean {
  return raw !== undefined && ['', 'true', '1', 'yes'].includes(raw);
}

type Schema = Record<string, unknown>;

/** The human rule a parameter's schema expresses, for the 400 message. */
export function describeRule(name: string, schema: Schema | undefined): string {
  if (!schema) return 'is not valid';
  if (Array.isArray(schema.enum)) {
    const shown = schema.enum.map((v) => (v === '' ? '(no value)' : String(v)));
    return `must be one of ${shown.join(', ')}`;
  }
  if (schema.format === ADDRESS_FORMAT) return 'must be a base58-encoded address of 32 bytes';
  if (TIME_PARAMETERS.has(name)) return START_TIME_RULE;
  if (name === 'cursor') return 'must be a nextCursor value returned by a previous page';
  if (schema.type === 'integer') {
    const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
    if (min !== undefined && max !== undefined) return `must be an integer from ${min} to ${max}`;
    if (min !== undefined) return `must be an integer ≥ ${min}`;
    return 'must be an integer';
  }
  return 'is not valid';
}

/**
 * Fastify `schemaErrorFormatter`: turns the first AJV error into INVALID_PARAMETER naming
 * the parameter. Needs AJV `verbose: true` (the failing property's schema is on the error).
 */
export function formatValidationError(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const e = errors[0] as FastifySchemaValidationError & { parentSchema?: Schema; params: Record<string, unknown> };
  if (!e) return new AppError('INVALID_PARAMETER', 'Invalid request');
  if (e.keyword === 'required') {
    const name = String(e.params.missingProperty);
    const props = (e.parentSchema?.properties ?? {}) as Record<string, Schema>;
    const rule = describeRule(name, props[name]);
    return invalidParameter(name, `is required and ${rule.replace(/^is /, '')}`);
  }
  const name = e.instancePath.split('/').filter(Boolean)[0];
  if (!name) return invalidParameter(dataVar, e.message ?? 'is not valid');
  // For nested keywords (anyOf branches, format), parentSchema is the property's own schema.
  return invalidParameter(name, describeRule(name, e.parentSchema));
}

/** Names of parameters given more than once among those the route declares (docs/design.md §4: → 400). */
export function repeatedParameter(query: unknown, declared: Record<string, unknown> | undefined): string | undefined {
  if (!declared || typeof query !== 'object' || query === null) return undefined;
  const q = query as Record<string, unknown>;
  for (const name of Object.keys(q)) {
    if (Array.isArray(q[name]) && Object.hasOwn(declared, name)) return name;
  }
  return undefined;
}
