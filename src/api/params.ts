import type { FastifySchemaValidationError } from 'fastify';
import { type Static, type TInteger, type TSchema, type TString, Type } from 'typebox';
import type { BiggestWinsQuery, HouseEdgeGroupBy, LpInterval, PlayersSortBy, PoolSortBy, SettledGamesOrderBy, SortDirection } from '../store/index.js';
import { AppError, MAX_SERIES_POINTS } from '../core/index.js';
import { invalidParameter } from './errors.js';

/**
 * The query parameter registry (docs/design.md §4 "Parameters"): each parameter is defined once,
 * as a TypeBox schema (request validation and the OpenAPI document), its static type, its parser
 * (the value handlers receive) and its rule text (the message of its 400 INVALID_PARAMETER).
 * Routes compose their querystring schemas from it with `queryOf`.
 */

/** Custom AJV format: base58 text that decodes to 32 bytes (docs/design.md §4; checked with @solana/kit in app.ts). */
export const ADDRESS_FORMAT = 'solana-address';

/** Largest `page × itemsPerPage` served with offsets; deeper pages use `cursor` (docs/design.md §4). */
export const MAX_PAGE_DEPTH = 100_000;

/**
 * A time parameter (`startTime`, `endTime`): Unix ms digits, or an RFC 3339 / ISO 8601 date-time with a
 * zone (docs/design.md §4). The one pattern of both the JSON schema and `parseTime`; its groups are
 * 1 ms, 2–7 date and time fields, 8 fraction, 9 zone, 10–12 the offset's sign, hours and minutes.
 */
const TIME_PATTERN =
  '^(?:(\\d{1,16})|(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2})(?::(\\d{2})(\\.\\d{1,9})?)?([Zz]|([+-])(\\d{2}):(\\d{2})))$';
const TIME_REGEX = new RegExp(TIME_PATTERN);

const TIME_RULE = 'must be Unix time in milliseconds (integer ≥ 0) or an ISO 8601 date-time with a zone, e.g. 2025-01-31T00:00:00Z';
const ADDRESS_RULE = 'must be a base58-encoded address of 32 bytes';
const CURSOR_RULE = 'must be a nextCursor value returned by a previous page';

/**
 * One query parameter: `schema` (TypeBox, so JSON schema and static type at once), `rule` (the text
 * after "Invalid parameter 'name': " in its 400), `parse` (schema-valid raw value → handler value;
 * throws AppError INVALID_PARAMETER for what a schema cannot express), `required`, `absent` (the
 * handler's value when the parameter is not given; AJV fills schema defaults before that) and
 * `always` (the handler always gets a value: required, a schema default, or `absent`).
 */
export interface Param<S extends TSchema = TSchema, V = unknown, A extends boolean = boolean> {
  readonly schema: S;
  readonly rule: string;
  readonly parse: (raw: Static<S>, name: string) => V;
  readonly required: boolean;
  readonly absent?: V;
  readonly always: A;
}

/** Rules by schema object: the validation error formatter finds a failing parameter's rule through its schema. */
const RULES = new WeakMap<object, string>();

function param<S extends TSchema, V, A extends boolean>(
  schema: S,
  rule: string,
  always: A,
  options: { parse?: (raw: Static<S>, name: string) => V; required?: boolean; absent?: V } = {},
): Param<S, V, A> {
  RULES.set(schema, rule);
  return {
    schema,
    rule,
    parse: options.parse ?? ((raw) => raw as unknown as V),
    required: options.required ?? false,
    ...(options.absent === undefined ? {} : { absent: options.absent }),
    always,
  };
}

function address(description: string): Param<TString, string, false>;
function address(description: string, required: true): Param<TString, string, true>;
function address(description: string, required = false): Param<TString, string, boolean> {
  return param<TString, string, boolean>(Type.String({ format: ADDRESS_FORMAT, description: `${description} (base58 address of 32 bytes)` }), ADDRESS_RULE, required, { required });
}

function integer(description: string, min: number, max: number | undefined, def: number): Param<TInteger, number, true> {
  const rule = max === undefined ? `must be an integer ≥ ${min}` : `must be an integer from ${min} to ${max}`;
  return param<TInteger, number, true>(Type.Integer({ minimum: min, ...(max === undefined ? {} : { maximum: max }), default: def, description }), rule, true);
}

function oneOf<const T extends string>(description: string, values: readonly T[], def: T): Param<TSchema, T, true> {
  const shown = values.map((v) => (v === '' ? '(no value)' : v));
  return param<TSchema, T, true>(Type.Enum([...values], { type: 'string', default: def, description }), `must be one of ${shown.join(', ')}`, true);
}

function time(description: string): Param<TString, number, false> {
  return param<TString, number, false>(Type.String({ pattern: TIME_PATTERN, description }), TIME_RULE, false, { parse: (raw, name) => parseTime(name, raw) as number });
}

function requiredTime(description: string): Param<TString, number, true> {
  return param<TString, number, true>(Type.String({ pattern: TIME_PATTERN, description }), TIME_RULE, true, { parse: (raw, name) => parseTime(name, raw) as number, required: true });
}

/** `tz` rule: an IANA time zone name Intl knows (docs/design.md §4 "Windows"). */
const TZ_RULE = 'must be an IANA time zone name, e.g. UTC, Europe/Berlin, America/New_York';

/** An IANA zone name → its canonical name (Intl); throws INVALID_PARAMETER for a zone Intl does not know. */
export function parseTimeZone(name: string, raw: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    throw invalidParameter(name, TZ_RULE);
  }
}

/** Series intervals (`interval`, docs/design.md §4 "Windows"): one point per local hour, local day or ISO week (Monday). */
export const INTERVALS = ['hour', 'day', 'week'] as const;
/** A series interval. */
export type Interval = (typeof INTERVALS)[number];

export { MAX_SERIES_POINTS } from '../core/index.js';

function cursor(description: string): Param<TString, string, false> {
  return param<TString, string, false>(Type.String({ minLength: 1, maxLength: 512, description }), CURSOR_RULE, false);
}

/** Flag values of docs/design.md §4 (`onlyJackpots`): present with no value, true/1/yes → true; false/0/no → false. */
const FLAG_VALUES = ['', 'true', '1', 'yes', 'false', '0', 'no'] as const;

/** `/events/settledGames` orderings (docs/spec.md §4). */
const ORDER_BY = ['time', 'multiplier', 'usd_profit'] as const satisfies readonly SettledGamesOrderBy[];
const SORTING = ['ASC', 'DESC'] as const satisfies readonly SortDirection[];
const PLAYERS_SORT = ['usd_profit', 'usd_volume', 'token_profit', 'token_volume'] as const satisfies readonly PlayersSortBy[];
const PLATFORM_SORT = ['usd_volume', 'usd_revenue'] as const;
const POOL_SORT = ['tvl_usd', 'usd_volume', 'plays', 'pool_fees_usd', 'created_time'] as const satisfies readonly PoolSortBy[];
/** GET /house-edge groupings and GET /house-edge/wins orderings; LP price intervals (docs/design.md §10). */
const HOUSE_GROUP_BY = ['creator', 'pool', 'token', 'player', 'game'] as const satisfies readonly HouseEdgeGroupBy[];
const WINS_SORT = ['multiplier', 'usd_profit', 'payout'] as const satisfies readonly BiggestWinsQuery['sortBy'][];
const LP_INTERVALS = ['hour', 'day'] as const satisfies readonly LpInterval[];
/** GET /audit/coverage: which differences to list (docs/design.md "Coverage and reconciliation"). */
const COVERAGE_SIDES = ['all', 'gap', 'surplus'] as const;
/** GET /audit/fairness groupings (docs/design.md "Fairness audit"); `none` = overall counts only. */
const FAIRNESS_GROUP_BY = ['none', 'creator', 'pool', 'player'] as const;

/**
 * Every query parameter of the API, once (docs/spec.md §4, docs/design.md §4). A name taking
 * different ranges or meanings on different routes (`limit`, `days`, `sortBy`, `pool`, `cursor`)
 * has one entry per variant; routes pick entries by key and expose them under the parameter name.
 */
export const PARAMS = {
  creator: address('Only games of this creator'),
  token: address('Only games in this token mint'),
  pool: address('Only games of this pool'),
  user: address('Only games of this player'),
  poolRequired: address('Pool', true),
  userRequired: address('Player wallet', true),
  poolsToken: address('Only pools of this token mint'),
  startTime: time(
    'Keep games with time ≥ startTime: Unix time in milliseconds (integer ≥ 0) or an ISO 8601 date-time with a zone, e.g. 2025-01-31T00:00:00Z',
  ),
  endTime: time(
    'Keep games with time < endTime (exclusive): Unix time in milliseconds (integer ≥ 0) or an ISO 8601 date-time with a zone; must be later than startTime',
  ),
  platformsStart: time('Window start, inclusive: Unix time in milliseconds or an ISO 8601 date-time with a zone. When set, `days` is ignored'),
  seriesStart: time('Series window start, inclusive: Unix time in milliseconds or an ISO 8601 date-time with a zone. When set, `days` is ignored'),
  seriesEnd: time('Series window end, exclusive (default: the end of the interval holding now): Unix time in milliseconds or an ISO 8601 date-time with a zone'),
  tz: param<TString, string, true>(
    Type.String({ minLength: 1, maxLength: 64, default: 'UTC', description: 'IANA time zone of the day and week buckets and of their `date` labels (default UTC)' }),
    TZ_RULE,
    true,
    { parse: (raw, name) => parseTimeZone(name, raw) },
  ),
  interval: oneOf(`Series step: hour, day (default) or week (ISO weeks, Monday 00:00 in tz); at most ${MAX_SERIES_POINTS} points per answer`, INTERVALS, 'day'),
  windowStart: time('Window start, inclusive (game figures only): Unix time in milliseconds or an ISO 8601 date-time with a zone'),
  windowEnd: time('Window end, exclusive (game figures only): Unix time in milliseconds or an ISO 8601 date-time with a zone'),
  page: integer(`Zero-based page number; page × itemsPerPage ≤ ${MAX_PAGE_DEPTH} (use cursor beyond)`, 0, undefined, 0),
  itemsPerPage: integer('Results per page', 1, 200, 10),
  cursor: cursor('Opaque keyset cursor: the `nextCursor` of the previous page (extension, docs/design.md §4). When set, `page` is ignored.'),
  poolsCursor: cursor('Opaque keyset cursor: the `nextCursor` of the previous page, with the same sortBy'),
  listCursor: cursor('Opaque keyset cursor: the `nextCursor` of the previous page, with the same sortBy and filters (extension, docs/design.md §4). When set, `offset` is ignored.'),
  tokensLimit: integer('Number of results', 1, 1000, 1000),
  format: param<TSchema, 'json' | 'csv' | 'ndjson', false>(
    Type.Enum(['json', 'csv', 'ndjson'], {
      type: 'string',
      description: 'Answer format (docs/design.md §11): json (default; one page), csv or ndjson (every matching row, streamed). Wins over the Accept header (text/csv, application/x-ndjson).',
    }),
    'must be one of json, csv, ndjson',
    false,
  ),
  onlyJackpots: param<TSchema, boolean, true>(
    Type.Enum([...FLAG_VALUES], { type: 'string', description: 'Only jackpot wins (jackpot > 0). Present with no value, true, 1, yes → on; false, 0, no → off' }),
    'must be one of (no value), true, 1, yes, false, 0, no',
    true,
    { parse: (raw) => parseFlag(raw as string), absent: false },
  ),
  orderBy: oneOf('Ordering key (ties: time, then signature)', ORDER_BY, 'time'),
  sorting: oneOf('Direction', SORTING, 'DESC'),
  seriesDays: param<TInteger, number, false>(
    Type.Integer({ minimum: 1, maximum: 300, description: 'Number of dates (in tz) ending today, today included; default 300, or 1 with interval=hour. Ignored when startTime is set' }),
    'must be an integer from 1 to 300',
    false,
  ),
  chartDays: integer('Number of UTC dates ending today (today included)', 1, 300, 300),
  platformsDays: integer('Rolling window: games with time ≥ now − days × 24 h (with endTime: endTime − days × 24 h ≤ time < endTime); ignored when startTime is set', 1, 365, 7),
  platformsLimit: integer('Number of results', 1, 100, 10),
  platformsSortBy: oneOf('Ordering (descending)', PLATFORM_SORT, 'usd_volume'),
  playersLimit: integer('Number of results', 1, 1000, 10),
  playersOffset: integer('Results to skip', 0, undefined, 0),
  playersSortBy: oneOf('Ordering (descending); token_* need token or pool', PLAYERS_SORT, 'usd_profit'),
  poolsLimit: integer('Pools per page', 1, 100, 20),
  poolsSortBy: oneOf('Ordering, descending (ties: pool address ascending); created_time puts pools without a known creation last', POOL_SORT, 'tvl_usd'),
  houseGroupBy: oneOf('Grouping: platform (creator), pool, token, player or game kind; creator, player and game rows are per token', HOUSE_GROUP_BY, 'creator'),
  houseLimit: integer('Groups per page', 1, 1000, 100),
  houseCursor: cursor('Opaque keyset cursor: the `nextCursor` of the previous page, with the same groupBy'),
  winsSortBy: oneOf('Ordering, descending (ties: newest first): payout multiplier, USD profit, or payout (needs token or pool)', WINS_SORT, 'multiplier'),
  winsLimit: integer('Number of wins', 1, 100, 10),
  lpInterval: oneOf('Bucket of the series: UTC hour or UTC day', LP_INTERVALS, 'day'),
  coverageSide: oneOf('Differences to list: all, gap (on chain, not in the store) or surplus (in the store, not on chain)', COVERAGE_SIDES, 'all'),
  coverageLimit: integer('Differences per page', 1, 1000, 100),
  coverageCursor: cursor('Opaque keyset cursor: the `nextCursor` of the previous page, with the same side'),
  fairnessGroupBy: oneOf('Counts also per creator (platform), pool or player (player needs startTime or player; at most 100 groups, most violations first); none = overall only', FAIRNESS_GROUP_BY, 'none'),
  fairnessLimit: integer('Violations per page', 1, 200, 50),
  returnsStart: requiredTime('Window start, inclusive: Unix time in milliseconds or an ISO 8601 date-time with a zone'),
} as const;

/** A route's parameters: parameter name → registry entry. */
export type ParamSet = Record<string, Param<any, any, boolean>>;

/** The values a handler gets for a ParamSet: parsed; optional unless the parameter is `always` present. */
export type QueryOf<P extends ParamSet> = {
  [K in keyof P as P[K]['always'] extends true ? K : never]: ReturnType<P[K]['parse']>;
} & {
  [K in keyof P as P[K]['always'] extends true ? never : K]?: ReturnType<P[K]['parse']>;
};

/** A route's query: its querystring JSON schema (for the route's `schema.querystring`) and its parser. */
export interface Query<P extends ParamSet> {
  readonly schema: { type: 'object'; required?: string[]; properties: { [K in keyof P]: P[K]['schema'] } };
  /** Schema-validated `request.query` → the handler's values. Throws AppError INVALID_PARAMETER (e.g. 2025-02-30). */
  readonly parse: (raw: unknown) => QueryOf<P>;
}

/** Composes a route's query from registry entries (`queryOf({ pool: PARAMS.poolRequired, days: PARAMS.chartDays })`). */
export function queryOf<const P extends ParamSet>(params: P): Query<P> {
  const entries = Object.entries(params);
  const required = entries.filter(([, p]) => p.required).map(([name]) => name);
  const properties = Object.fromEntries(entries.map(([name, p]) => [name, p.schema])) as Query<P>['schema']['properties'];
  const schema = { type: 'object' as const, ...(required.length > 0 ? { required } : {}), properties };
  const parse = (raw: unknown): QueryOf<P> => {
    const q = raw as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, p] of entries) {
      const value = q[name];
      if (value !== undefined) out[name] = p.parse(value, name);
      else if (p.absent !== undefined) out[name] = p.absent;
    }
    return out as QueryOf<P>;
  };
  return { schema, parse };
}

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
  const m = TIME_REGEX.exec(raw);
  if (!m) throw invalidParameter(name, TIME_RULE);
  const [, digits, y, mo, d, h, mi, s = '0', frac = '', zone, sign, zh, zm] = m;
  if (digits !== undefined) {
    const n = Number(digits);
    if (!Number.isSafeInteger(n)) throw invalidParameter(name, TIME_RULE);
    return n;
  }
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const utc = Date.UTC(...fields);
  const back = new Date(utc);
  const consistent =
    back.getUTCFullYear() === fields[0] && back.getUTCMonth() === fields[1] && back.getUTCDate() === fields[2] &&
    back.getUTCHours() === fields[3] && back.getUTCMinutes() === fields[4] && back.getUTCSeconds() === fields[5];
  const offsetMin = zone === 'Z' || zone === 'z' ? 0 : (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm));
  if (!consistent || Number(zh ?? 0) > 23 || Number(zm ?? 0) > 59) throw invalidParameter(name, TIME_RULE);
  const millis = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  const result = utc + millis - offsetMin * 60_000;
  if (result < 0) throw invalidParameter(name, 'must not be before 1970-01-01T00:00:00Z');
  return result;
}

/** A flag value (FLAG_VALUES) → boolean; absent → false (docs/design.md §4). */
function parseFlag(raw: string | undefined): boolean {
  return raw !== undefined && ['', 'true', '1', 'yes'].includes(raw);
}

/** The rule text of a parameter's schema (the registry's `rule`); 'is not valid' for a schema outside the registry. */
export function ruleOf(schema: object | undefined): string {
  return (schema && RULES.get(schema)) ?? 'is not valid';
}

type Schema = Record<string, unknown>;

/**
 * Fastify `schemaErrorFormatter`: turns the first AJV error into INVALID_PARAMETER naming
 * the parameter and its registry rule. Needs AJV `verbose: true` (the failing property's schema is on the error).
 */
export function formatValidationError(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const e = errors[0] as FastifySchemaValidationError & { parentSchema?: Schema; params: Record<string, unknown> };
  if (!e) return new AppError('INVALID_PARAMETER', 'Invalid request');
  if (e.keyword === 'required') {
    const name = String(e.params.missingProperty);
    const props = (e.parentSchema?.properties ?? {}) as Record<string, Schema>;
    return invalidParameter(name, `is required and ${ruleOf(props[name]).replace(/^is /, '')}`);
  }
  const name = e.instancePath.split('/').filter(Boolean)[0];
  if (!name) return invalidParameter(dataVar, e.message ?? 'is not valid');
  return invalidParameter(name, ruleOf(e.parentSchema));
}

/** Name of the first parameter given more than once among those the route declares (docs/design.md §4: → 400). */
export function repeatedParameter(query: unknown, declared: Record<string, unknown> | undefined): string | undefined {
  if (!declared || typeof query !== 'object' || query === null) return undefined;
  const q = query as Record<string, unknown>;
  for (const name of Object.keys(q)) {
    if (Array.isArray(q[name]) && Object.hasOwn(declared, name)) return name;
  }
  return undefined;
}
