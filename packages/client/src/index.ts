/**
 * Typed client of the Gamba Analytics JSON API (packages/client/README.md).
 *
 * The types (`./schema.d.ts`) and the amount table (`./operations.ts`) are generated from the
 * service's OpenAPI document by scripts/client-schema.ts; the requests go through openapi-fetch.
 * On top: an API key on every request, bounded retries of `429` answers after the wait the answer
 * names, an async iterator over keyset cursor pages, live-stream subscriptions that resume with
 * `Last-Event-ID` after a dropped connection, and exact token amounts as `bigint`.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import { OPERATIONS } from './operations.js';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export { OPERATIONS } from './operations.js';

// ---------------------------------------------------------------------------------------------
// Types derived from the generated document types
// ---------------------------------------------------------------------------------------------

/** The GET operation of `P` (never when `P` has none). */
type GetOp<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
/** Paths with a JSON GET answer (live streams answer text/event-stream and are excluded). */
export type JsonGetPath = { [P in keyof paths]: GetOp<P> extends { responses: { 200: { content: { 'application/json': unknown } } } } ? P : never }[keyof paths];
/** The query parameters of the GET operation at `P` (an empty object when it takes none). */
export type QueryOf<P extends keyof paths> = GetOp<P> extends { parameters: { query?: infer Q } } ? ([Q] extends [never] ? Record<string, never> : [Q] extends [undefined] ? Record<string, never> : NonNullable<Q>) : Record<string, never>;
/** Whether the GET operation at `P` has a required query parameter. */
type HasRequired<P extends keyof paths> = GetOp<P> extends { parameters: { query: infer Q } } ? ({} extends NonNullable<Q> ? false : true) : false;
/** The arguments after the path: the query (required when the operation requires a parameter), then call options. */
export type GetArgs<P extends keyof paths> = HasRequired<P> extends true ? [query: QueryOf<P>, options?: CallOptions] : [query?: QueryOf<P>, options?: CallOptions];
/** The JSON body of a `200` answer of the GET operation at `P`. */
export type ResponseOf<P extends JsonGetPath> = GetOp<P> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
/** Paths of the keyset-paged lists (their answer has `nextCursor`; docs/design.md §4). */
export type PagedPath = { [P in keyof typeof OPERATIONS]: (typeof OPERATIONS)[P] extends { items: string } ? P : never }[keyof typeof OPERATIONS] & JsonGetPath;
/** The array field holding the rows of the paged list at `P` (`results` for every list today). */
type ItemsField<P extends PagedPath> = (typeof OPERATIONS)[P] extends { items: infer F extends string } ? F : never;
/** One row of the paged list at `P`. */
export type ItemOf<P extends PagedPath> = ResponseOf<P> extends { [K in ItemsField<P>]: readonly (infer E)[] } ? E : never;
/** The live streams: `settledGames` carries `/events/settledGames` rows, `poolChanges` `/events/poolChanges` rows. */
export type StreamName = 'settledGames' | 'poolChanges';
/** The list whose row shape (and amount fields) a stream's events carry. */
export const STREAM_ROWS = { settledGames: '/events/settledGames', poolChanges: '/events/poolChanges' } as const satisfies Record<StreamName, PagedPath>;
/** The filters of a stream (query parameters of `/stream/<name>`). */
export type StreamFilters<S extends StreamName> = QueryOf<`/stream/${S}`>;

// ---------------------------------------------------------------------------------------------
// Exact amounts
// ---------------------------------------------------------------------------------------------

/** The last field name of a JSON path of the amount table: `results[].wager` → `wager`. */
type Leaf<S extends string> = S extends `${string}.${infer R}` ? Leaf<R> : S extends `${infer N}[]` ? N : S;
/** The field names of the amounts of the answer at `P` (from `OPERATIONS[P].amounts`). */
export type AmountField<P extends keyof typeof OPERATIONS> = Leaf<(typeof OPERATIONS)[P]['amounts'][number]>;
type Big<X> = X extends string ? bigint : X;
/**
 * `T` with every string field named in `K` as `bigint` (null stays null), at any depth. The
 * generator checks that within one answer such a name never also names a non-amount text field.
 */
export type Exact<T, K extends string> = T extends readonly (infer E)[] ? Exact<E, K>[] : T extends object ? { [F in keyof T]: F extends K ? Big<T[F]> : Exact<T[F], K> } : T;
/** The answer at `P` with its documented amounts as `bigint`. */
export type ExactResponse<P extends JsonGetPath & keyof typeof OPERATIONS> = Exact<ResponseOf<P>, AmountField<P>>;
/** A row of the list at `P` with its documented amounts as `bigint`. */
export type ExactItem<P extends PagedPath> = Exact<ItemOf<P>, AmountField<P>>;

const INTEGER = /^-?\d+$/;

/**
 * A u64 (or signed) integer string in the smallest token unit → `bigint`, exactly (never through
 * Number). Throws a `TypeError` when `text` is not an integer string.
 */
export function parseAmount(text: string): bigint {
  if (typeof text !== 'string' || !INTEGER.test(text)) throw new TypeError(`not an integer amount string: ${JSON.stringify(text)}`);
  return BigInt(text);
}

/** Converts, in place, the value at `segments` (fields, `x[]` arrays, `x{}` maps) of `node`. */
function convertAt(node: unknown, segments: readonly string[], where: string): void {
  if (node === null || typeof node !== 'object' || segments.length === 0) return;
  const [head, ...rest] = segments as [string, ...string[]];
  const many = head.endsWith('[]') || head.endsWith('{}');
  const name = many ? head.slice(0, -2) : head;
  const obj = node as Record<string, unknown>;
  if (!(name in obj)) return;
  const value = obj[name];
  if (many) {
    const children = Array.isArray(value) ? value : value !== null && typeof value === 'object' ? Object.values(value) : [];
    if (rest.length === 0) {
      const target = value as Record<string | number, unknown>;
      for (const k of Object.keys(target)) target[k] = amountOf(target[k], `${where}${name}`);
    } else for (const child of children) convertAt(child, rest, `${where}${name}.`);
    return;
  }
  if (rest.length === 0) obj[name] = amountOf(value, `${where}${name}`);
  else convertAt(value, rest, `${where}${name}.`);
}

function amountOf(v: unknown, where: string): unknown {
  if (v === null || v === undefined) return v;
  if (typeof v === 'bigint') return v;
  if (typeof v !== 'string' || !INTEGER.test(v)) throw new TypeError(`${where}: expected an integer amount string, got ${JSON.stringify(v)}`);
  return BigInt(v);
}

/**
 * A copy of `body`, the answer of GET `path`, with exactly the amount fields the document
 * declares for it (`OPERATIONS[path].amounts`, e.g. `results[].wager` of `/events/settledGames`)
 * converted from integer strings to `bigint`; everything else (USD values, counts, times in Unix
 * ms) unchanged. Throws a `TypeError` when a declared field holds something else than an integer
 * string or null.
 */
export function toBigInts<P extends JsonGetPath & keyof typeof OPERATIONS>(path: P, body: ResponseOf<P>): ExactResponse<P> {
  const facts = OPERATIONS[path] as { amounts: readonly string[] } | undefined;
  if (facts === undefined) throw new TypeError(`unknown operation ${path}`);
  const copy = structuredClone(body) as unknown;
  for (const p of facts.amounts) convertAt(copy, p.split('.'), '');
  return copy as ExactResponse<P>;
}

/**
 * A copy of one row of the paged list at `path` (also a live stream event's `data`: its list is
 * `STREAM_ROWS[name]`) with the row's amount fields as `bigint` (the table's `<items>[].` paths).
 */
export function rowToBigInts<P extends PagedPath>(path: P, row: ItemOf<P>): ExactItem<P> {
  const facts = OPERATIONS[path] as { amounts: readonly string[]; items?: string };
  const prefix = `${facts.items}[].`;
  const copy = structuredClone(row) as unknown;
  for (const p of facts.amounts) if (p.startsWith(prefix)) convertAt(copy, p.slice(prefix.length).split('.'), '');
  return copy as ExactItem<P>;
}

// ---------------------------------------------------------------------------------------------
// Errors and retries
// ---------------------------------------------------------------------------------------------

/** The API's error body (docs/errors.md): `{ error, code, timestamp, retryAfter? }`. */
export interface ApiErrorBody {
  error: string;
  code: string;
  timestamp: string;
  /** Seconds until one request is allowed (429 only). */
  retryAfter?: number;
}

/** A non-2xx answer: `status`, the API's `code` and message (docs/errors.md), and the body as sent. */
export class GambaApiError extends Error {
  /** HTTP status. */
  readonly status: number;
  /** The error code (`INVALID_PARAMETER`, `RATE_LIMITED`, …); `HTTP_<status>` when the body was not the API's. */
  readonly code: string;
  /** Seconds to wait before retrying (429: the body's `retryAfter`, else the `Retry-After` header). */
  readonly retryAfter: number | undefined;
  /** The parsed body (or the raw text when it was not JSON). */
  readonly body: unknown;
  constructor(status: number, body: unknown, retryAfter?: number) {
    const b = (body ?? {}) as Partial<ApiErrorBody>;
    super(typeof b.error === 'string' ? `${status} ${b.code}: ${b.error}` : `HTTP ${status}`);
    this.name = 'GambaApiError';
    this.status = status;
    this.code = typeof b.code === 'string' ? b.code : `HTTP_${status}`;
    this.retryAfter = retryAfter;
    this.body = body;
  }
}

/** Reads an error answer into a GambaApiError (consumes the body). */
async function errorOf(res: Response): Promise<GambaApiError> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return new GambaApiError(res.status, body, retryAfterOf(body, res.headers));
}

/** Seconds from the error body's `retryAfter`, else the `Retry-After` header (seconds or an HTTP date). */
function retryAfterOf(body: unknown, headers: Headers): number | undefined {
  const b = body as { retryAfter?: unknown } | null;
  if (b !== null && typeof b === 'object' && typeof b.retryAfter === 'number' && Number.isFinite(b.retryAfter) && b.retryAfter >= 0) return b.retryAfter;
  const h = headers.get('retry-after');
  if (h === null) return undefined;
  if (/^\d+$/.test(h.trim())) return Number(h.trim());
  const at = Date.parse(h);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What `onRetry` is told before the client waits to retry a `429`. */
export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  /** How long the client waits before it, ms (the answer's `retryAfter` seconds × 1000). */
  waitMs: number;
  /** The request's URL. */
  url: string;
  /** The error code of the 429 (`RATE_LIMITED`, `TOO_MANY_STREAMS`). */
  code: string;
}

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

/** Options of `createClient`. */
export interface ClientOptions {
  /** The API's address, e.g. `http://127.0.0.1:3000` or `https://api.example/v1` (every path also answers under `/v1`). */
  baseUrl: string;
  /** The API key, sent as `X-API-Key` on every request (never logged by the client). */
  apiKey?: string;
  /** The fetch to use (default: the global one). Receives a `Request`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries of a `429` answer, each after the wait it names (default 3; 0 = none). */
  maxRetries?: number;
  /** Longest wait the client accepts for a retry, ms (default 60 000): a 429 asking for longer is returned as the error. */
  maxRetryWaitMs?: number;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Called before each wait for a retry. */
  onRetry?: (info: RetryInfo) => void;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Options of `subscribe`. */
export interface SubscribeOptions extends CallOptions {
  /** Resume after this event id (an `id` a previous subscription yielded). Default: start after the newest matching event at connect. */
  lastEventId?: string;
  /** Wait before a reconnect, ms (default: the stream's `retry:` field, 2000 ms). */
  reconnectDelayMs?: number;
  /** Consecutive connection attempts that fail (network error, no answer) before the iterator throws the last error (default 10). */
  maxReconnects?: number;
  /** Called before each reconnect with the `Last-Event-ID` it sends. */
  onReconnect?: (info: { lastEventId: string | undefined; attempt: number }) => void;
}

/** One event of a live stream: its `id` (the resume position), its type and the list's row. */
export interface StreamEvent<S extends StreamName> {
  id: string;
  event: S extends 'settledGames' ? 'settledGame' : 'poolChange';
  data: ItemOf<(typeof STREAM_ROWS)[S]>;
}

/** The client `createClient` returns. */
export interface GambaClient {
  /**
   * The generated openapi-fetch client (`api.GET('/pools', { params: { query } })`,
   * `api.POST('/sync')`): answers `{ data, error, response }` without throwing; the API key and the
   * 429 retries apply.
   */
  readonly api: Client<paths>;
  /** GET `path` with `query`: the typed JSON body of the `200`; throws `GambaApiError` on any other status. */
  get<P extends JsonGetPath>(path: P, ...args: GetArgs<P>): Promise<ResponseOf<P>>;
  /**
   * Every row of the paged list at `path`, page after page (`cursor` = the previous page's
   * `nextCursor`, until it is null). `query.limit` is the page size; `query.cursor` starts after
   * its row. Throws `GambaApiError` from the page that failed.
   */
  paginate<P extends PagedPath>(path: P, query?: QueryOf<P>, options?: CallOptions): AsyncGenerator<ItemOf<P>, void, undefined>;
  /**
   * The live stream `/stream/<name>` with `filters` as an async iterator of events. After a
   * dropped or ended connection it reconnects with `Last-Event-ID` = the last id it yielded, so
   * no event is skipped or repeated (docs/design.md §11). Ends when `options.signal` aborts or
   * the loop breaks; throws `GambaApiError` on an error answer (after the 429 retries), or the
   * last network error after `maxReconnects` failed connection attempts in a row.
   */
  subscribe<S extends StreamName>(name: S, filters?: StreamFilters<S>, options?: SubscribeOptions): AsyncGenerator<StreamEvent<S>, void, undefined>;
}

/**
 * A client of the API at `baseUrl`. Every request carries `X-API-Key`; a `429` is retried up to
 * `maxRetries` times after waiting the answer's `retryAfter` seconds (or its `Retry-After` header).
 */
export function createClient(options: ClientOptions): GambaClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const baseFetch = options.fetch ?? ((r: Request) => globalThis.fetch(r));
  const maxRetries = options.maxRetries ?? 3;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;
  const common: Record<string, string> = { ...options.headers, ...(options.apiKey === undefined ? {} : { 'X-API-Key': options.apiKey }) };

  /** One request with the bounded 429 retries. */
  async function send(request: Request): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const res = await baseFetch(request.clone());
      if (res.status !== 429 || attempt > maxRetries) return res;
      const probe = res.clone();
      let body: unknown;
      try {
        body = await probe.json();
      } catch {
        body = undefined;
      }
      const seconds = retryAfterOf(body, res.headers);
      if (seconds === undefined || seconds * 1000 > maxRetryWaitMs) return res;
      const waitMs = Math.ceil(seconds * 1000);
      await res.body?.cancel();
      options.onRetry?.({ attempt, waitMs, url: request.url, code: (body as { code?: string } | undefined)?.code ?? 'HTTP_429' });
      await sleep(waitMs, request.signal);
    }
  }

  const api = createFetchClient<paths>({ baseUrl, headers: common, fetch: send });

  async function get<P extends JsonGetPath>(path: P, ...args: GetArgs<P>): Promise<ResponseOf<P>> {
    const [query, call = {}] = args as [QueryOf<P> | undefined, CallOptions | undefined];
    const { data, error, response } = await (api.GET as (p: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>)(path, {
      params: { query: query ?? {} },
      signal: call.signal,
      headers: call.headers,
    });
    if (!response.ok || error !== undefined) throw new GambaApiError(response.status, error, retryAfterOf(error, response.headers));
    return data as ResponseOf<P>;
  }

  async function* paginate<P extends PagedPath>(path: P, query?: QueryOf<P>, call: CallOptions = {}): AsyncGenerator<ItemOf<P>, void, undefined> {
    const field = (OPERATIONS[path] as { items: string }).items;
    let q = { ...(query ?? {}) } as Record<string, unknown>;
    for (;;) {
      const page = (await (get as (p: string, q: unknown, c: CallOptions) => Promise<unknown>)(path, q, call)) as Record<string, unknown>;
      for (const row of page[field] as ItemOf<P>[]) yield row;
      const next = page.nextCursor;
      if (typeof next !== 'string') return;
      q = { ...q, cursor: next };
    }
  }

  async function* subscribe<S extends StreamName>(name: S, filters?: StreamFilters<S>, opts: SubscribeOptions = {}): AsyncGenerator<StreamEvent<S>, void, undefined> {
    const url = new URL(`${baseUrl}/stream/${name}`);
    for (const [k, v] of Object.entries(filters ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    const maxReconnects = opts.maxReconnects ?? 10;
    let delayMs = opts.reconnectDelayMs ?? 2000;
    let lastEventId = opts.lastEventId;
    let failures = 0;
    const ctl = new AbortController();
    const onAbort = () => ctl.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        if (ctl.signal.aborted) return;
        let lastError: unknown;
        let connected = false;
        try {
          const headers: Record<string, string> = { ...common, ...opts.headers, Accept: 'text/event-stream' };
          if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
          const res = await send(new Request(url, { headers, signal: ctl.signal }));
          if (!res.ok) throw await errorOf(res);
          if (res.body === null) throw new Error('the stream answer has no body');
          connected = true;
          failures = 0;
          for await (const ev of sseEvents(res.body)) {
            if (ev.retry !== undefined && opts.reconnectDelayMs === undefined) delayMs = ev.retry;
            if (ev.data === undefined) continue;
            const data = JSON.parse(ev.data) as ItemOf<(typeof STREAM_ROWS)[S]>;
            if (ev.id !== undefined) lastEventId = ev.id;
            yield { id: ev.id ?? '', event: (ev.event ?? (name === 'settledGames' ? 'settledGame' : 'poolChange')) as StreamEvent<S>['event'], data };
          }
        } catch (e) {
          if (ctl.signal.aborted) return;
          if (e instanceof GambaApiError) throw e;
          lastError = e;
        }
        // The connection dropped or ended (or could not be made): reconnect after the delay, from the last event yielded.
        if (!connected) failures++;
        if (failures >= maxReconnects) throw lastError ?? new Error(`stream ${name}: ${failures} connection attempts in a row failed`);
        try {
          await sleep(delayMs, ctl.signal);
        } catch {
          return;
        }
        opts.onReconnect?.({ lastEventId, attempt: failures + 1 });
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      ctl.abort();
    }
  }

  return { api, get, paginate, subscribe };
}

/** One dispatched Server-Sent Event (WHATWG HTML §9.2 parsing: fields, comments, CR/LF/CRLF). */
interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/** Parses an event-stream body into events; a `retry:` alone comes as an event without data. */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buf = '';
  let cur: { id?: string; event?: string; data: string[]; retry?: number } = { data: [] };
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      for (;;) {
        const m = /\r\n|\r|\n/.exec(buf);
        if (m === null) break;
        // A lone CR at the end of the buffer may be the first half of a CRLF: wait for more.
        if (m[0] === '\r' && m.index === buf.length - 1) break;
        const line = buf.slice(0, m.index);
        buf = buf.slice(m.index + m[0].length);
        if (line === '') {
          if (cur.data.length > 0 || cur.retry !== undefined) {
            yield { id: cur.id, event: cur.event, data: cur.data.length > 0 ? cur.data.join('\n') : undefined, retry: cur.retry };
          }
          cur = { data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') cur.data.push(value);
        else if (field === 'id' && !value.includes('\0')) cur.id = value;
        else if (field === 'event') cur.event = value;
        else if (field === 'retry' && /^\d+$/.test(value)) cur.retry = Number(value);
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
