import { AppError, isAppError, sleep, type Common } from '../core/index.js';
import { errorKind, rpcError, type JsonRpcErrorBody } from './errors.js';
import { createRateLimiter } from './rate-limiter.js';
import { createSemaphore } from './semaphore.js';
import { postJson } from './transport.js';
import type { BatchOutcome, RpcCallSpec } from './types.js';

/**
 * Largest batch we send: Helius caps getTransaction batches at 100 (docs/protocol.md §2), and
 * getMultipleAccounts takes at most 100 keys.
 */
export const MAX_BATCH = 100;

/** Retry policy of the RPC transport: attempts and exponential backoff with full jitter, ms. */
export interface RetryOptions {
  /** Total tries per request including the first (default 8). */
  maxAttempts?: number;
  /** First backoff ceiling in ms (default 250); doubles per attempt (exponential backoff, full jitter). */
  baseDelayMs?: number;
  /** Backoff ceiling in ms (default 15 000). A `Retry-After` longer than the jittered delay wins (≤ 60 s). */
  maxDelayMs?: number;
}

/** What createRpcTransport (and createRpcClient) take: the endpoint and its limits. */
export interface RpcTransportOptions {
  common: Common;
  /** HTTP(S) JSON-RPC endpoint. */
  url: string;
  /** Max HTTP requests in flight (RPC_CONCURRENCY; a batch is one request). Default 8. */
  concurrency?: number;
  /** Client-side cap, requests per second, batch items counted one by one (RPC_MAX_RPS). Default 50. */
  maxRps?: number;
  /** Per HTTP request, ms. Default 30 000. */
  timeoutMs?: number;
  /** Items per batch request, 1..100 (default 100). 1 disables batching. */
  batchSize?: number;
  retry?: RetryOptions;
  /** Extra HTTP headers (e.g. a provider's auth header). */
  headers?: Record<string, string>;
  /** Injected fetch (default global fetch). */
  fetch?: typeof fetch;
}

/** Per-call options: `signal` aborts the call (AppError ABORTED). */
export interface CallOptions {
  signal?: AbortSignal;
}

/** JSON-RPC 2.0 over HTTP with retries, a rate cap, bounded concurrency and batches. */
export interface RpcTransport {
  readonly url: string;
  /** false once the endpoint rejected a batch; later batches go out as single requests. */
  readonly batchesSupported: boolean;
  /**
   * JSON-RPC requests sent so far: a batch's items counted one by one, retries included (what a
   * provider counts and bills, and what RPC_MAX_RPS caps).
   */
  readonly requests: number;
  /** One call with retries. Throws AppError (RPC_ERROR with details.rpcCode, RPC_RATE_LIMITED, RPC_UNAVAILABLE, RPC_TIMEOUT, RPC_NETWORK, RPC_HTTP_ERROR, ABORTED). */
  call<T>(method: string, params: unknown[], opts?: CallOptions): Promise<T>;
  /**
   * Many calls, sent as JSON-RPC batches of ≤ batchSize (or singles when batches are rejected).
   * Each item is retried on its own retryable error; the outcome array is in input order.
   * Throws only on abort or when a whole request fails for good.
   */
  batch<T>(calls: RpcCallSpec[], opts?: CallOptions): Promise<BatchOutcome<T>[]>;
}

interface JsonRpcResponse {
  id?: unknown;
  result?: unknown;
  error?: JsonRpcErrorBody;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function asAppError(e: unknown, method: string): AppError {
  if (isAppError(e)) return e;
  return new AppError('RPC_NETWORK', `${method}: ${e instanceof Error ? e.message : String(e)}`, { retryable: true, cause: e });
}

/** The JSON-RPC transport over `opts.url`; nothing is sent until a method is called. */
export function createRpcTransport(opts: RpcTransportOptions): RpcTransport {
  const { common, url } = opts;
  const { metrics, logger } = common;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const batchSize = Math.max(1, Math.min(MAX_BATCH, opts.batchSize ?? MAX_BATCH));
  const maxAttempts = Math.max(1, opts.retry?.maxAttempts ?? 8);
  const baseDelayMs = opts.retry?.baseDelayMs ?? 250;
  const maxDelayMs = opts.retry?.maxDelayMs ?? 15_000;
  const fetchImpl = opts.fetch ?? fetch;
  const headers = opts.headers ?? {};
  const limiter = createRateLimiter(opts.maxRps ?? 50);
  const semaphore = createSemaphore(Math.max(1, opts.concurrency ?? 8));
  let nextId = 1;
  let batchesSupported = batchSize > 1;
  let requests = 0;

  /** Exponential backoff with full jitter (AWS architecture blog), stretched to honour Retry-After. */
  const backoff = (attempt: number, err: AppError): number => {
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
    const jittered = Math.random() * ceiling;
    const retryAfter = err.details?.retryAfterMs;
    return typeof retryAfter === 'number' ? Math.max(jittered, Math.min(retryAfter, 60_000)) : jittered;
  };

  const send = async (body: unknown, label: string, items: number, signal?: AbortSignal): Promise<unknown> => {
    await limiter.acquire(items, signal);
    requests += items;
    return semaphore.run(() => postJson({ url, body, label, timeoutMs, headers, signal, fetch: fetchImpl, clock: common.clock }));
  };

  const noteError = (method: string, err: AppError) => {
    metrics.rpcErrors.inc({ method, kind: errorKind(err) });
  };

  async function call<T>(method: string, params: unknown[], o: CallOptions = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        metrics.rpcRequests.inc({ method });
        const json = await send({ jsonrpc: '2.0', id: nextId++, method, params }, method, 1, o.signal);
        if (!isObject(json)) throw new AppError('RPC_BAD_RESPONSE', `${method}: response is not a JSON-RPC object`, { retryable: true });
        const r = json as JsonRpcResponse;
        if (r.error) throw rpcError(method, r.error);
        if (!('result' in r)) throw new AppError('RPC_BAD_RESPONSE', `${method}: response has neither result nor error`, { retryable: true });
        return r.result as T;
      } catch (e) {
        const err = asAppError(e, method);
        if (err.code === 'ABORTED') throw err;
        noteError(method, err);
        if (!err.retryable || attempt + 1 >= maxAttempts || o.signal?.aborted) throw err;
        metrics.rpcRetries.inc({ method });
        logger.debug({ method, attempt, code: err.code, err: err.message }, 'rpc retry');
        await sleep(backoff(attempt, err), o.signal);
      }
    }
  }

  /** Sends singles for every item (endpoint without batch support). */
  async function singles<T>(calls: RpcCallSpec[], o: CallOptions): Promise<BatchOutcome<T>[]> {
    return Promise.all(
      calls.map(async (c): Promise<BatchOutcome<T>> => {
        try {
          return { ok: true, result: await call<T>(c.method, c.params, o) };
        } catch (e) {
          const err = asAppError(e, c.method);
          if (err.code === 'ABORTED') throw err;
          return { ok: false, error: err };
        }
      }),
    );
  }

  async function chunk<T>(calls: RpcCallSpec[], o: CallOptions): Promise<BatchOutcome<T>[]> {
    const out: (BatchOutcome<T> | undefined)[] = new Array(calls.length);
    let pending = calls.map((_, i) => i);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (!batchesSupported) {
        const rest = await singles<T>(pending.map((i) => calls[i]!), o);
        pending.forEach((i, k) => (out[i] = rest[k]));
        break;
      }
      const label = `batch:${calls[pending[0]!]!.method}`;
      const ids = new Map<number, number>();
      const body = pending.map((i) => {
        const id = nextId++;
        ids.set(id, i);
        metrics.rpcRequests.inc({ method: calls[i]!.method });
        return { jsonrpc: '2.0', id, method: calls[i]!.method, params: calls[i]!.params };
      });
      let retryErr: AppError | undefined;
      try {
        const json = await send(body, label, body.length, o.signal);
        if (!Array.isArray(json)) {
          const single = isObject(json) ? (json as JsonRpcResponse) : undefined;
          const err = single?.error ? rpcError(label, single.error) : undefined;
          if (err?.retryable) throw err;
          // Endpoint answered the array with one object (batches disabled): fall back to singles.
          batchesSupported = false;
          logger.warn({ url_host: new URL(url).host, rpc_error: single?.error?.message }, 'RPC endpoint rejects batch requests; sending single requests');
          continue;
        }
        const seen = new Set<number>();
        for (const r of json as JsonRpcResponse[]) {
          const i = typeof r?.id === 'number' ? ids.get(r.id) : undefined;
          if (i === undefined || seen.has(i)) continue;
          seen.add(i);
          const method = calls[i]!.method;
          if (r.error) {
            const err = rpcError(method, r.error);
            noteError(method, err);
            out[i] = { ok: false, error: err };
            if (err.retryable) retryErr ??= err;
          } else if ('result' in r) {
            out[i] = { ok: true, result: r.result as T };
          }
        }
        for (const i of pending) {
          if (!seen.has(i)) {
            const err = new AppError('RPC_BAD_RESPONSE', `${calls[i]!.method}: missing from batch response`, { retryable: true });
            out[i] = { ok: false, error: err };
            retryErr ??= err;
          }
        }
      } catch (e) {
        const err = asAppError(e, label);
        if (err.code === 'ABORTED') throw err;
        noteError(calls[pending[0]!]!.method, err);
        if (!err.retryable) {
          // 400/405/413 and friends on an array body: most likely "no batches here".
          batchesSupported = false;
          logger.warn({ code: err.code, err: err.message }, 'RPC batch request refused; sending single requests');
          continue;
        }
        for (const i of pending) out[i] = { ok: false, error: err };
        retryErr = err;
      }
      pending = pending.filter((i) => {
        const r = out[i];
        return r !== undefined && !r.ok && r.error.retryable;
      });
      if (pending.length === 0) break;
      if (attempt + 1 >= maxAttempts || o.signal?.aborted) break;
      for (const i of pending) metrics.rpcRetries.inc({ method: calls[i]!.method });
      await sleep(backoff(attempt, retryErr ?? new AppError('RPC_ERROR', 'retry')), o.signal);
    }
    return out.map((r, i) => r ?? { ok: false, error: new AppError('RPC_BAD_RESPONSE', `${calls[i]!.method}: no outcome`, { retryable: true }) });
  }

  async function batch<T>(calls: RpcCallSpec[], o: CallOptions = {}): Promise<BatchOutcome<T>[]> {
    if (calls.length === 0) return [];
    const parts: RpcCallSpec[][] = [];
    for (let i = 0; i < calls.length; i += batchSize) parts.push(calls.slice(i, i + batchSize));
    const results = await Promise.all(parts.map((p) => chunk<T>(p, o)));
    return results.flat();
  }

  return {
    url,
    get batchesSupported() {
      return batchesSupported;
    },
    get requests() {
      return requests;
    },
    call,
    batch,
  };
}
