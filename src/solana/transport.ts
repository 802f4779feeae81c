import { AppError, aborted, type Clock } from '../core/index.js';
import { httpError, parseRetryAfter } from './errors.js';

/** One HTTP POST of a JSON-RPC body (postJson). */
export interface PostOptions {
  url: string;
  body: unknown;
  /** Label for errors (the JSON-RPC method, or `batch:<method>`). */
  label: string;
  timeoutMs: number;
  headers: Record<string, string>;
  signal?: AbortSignal;
  fetch: typeof fetch;
  /** The injected clock (Common.clock): an HTTP-date `Retry-After` is measured from its now. */
  clock: Clock;
}

/**
 * The body as text the way `Response.text()` reads it (UTF-8, a leading BOM dropped), through
 * Buffer's decoder: a batch of 100 getTransaction answers is ≈ 600 KB, and undici's
 * TextDecoder path took ≈ 1.5× as long for it (docs/benchmarks.md "Ingest").
 */
function utf8Text(b: Buffer): string {
  const bom = b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  return b.toString('utf8', bom);
}

/**
 * One HTTP POST of a JSON-RPC body; returns the parsed JSON. Failures become AppError:
 * RPC_TIMEOUT / RPC_NETWORK / RPC_BAD_RESPONSE (retryable), HTTP statuses via httpError,
 * ABORTED when the caller's signal fires (not retryable).
 */
export async function postJson(o: PostOptions): Promise<unknown> {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const fail = (e: unknown): AppError => {
    if (o.signal?.aborted) return aborted();
    if (timeout.aborted) {
      return new AppError('RPC_TIMEOUT', `${o.label}: no answer within ${o.timeoutMs} ms`, { retryable: true, cause: e, details: { method: o.label } });
    }
    return new AppError('RPC_NETWORK', `${o.label}: ${e instanceof Error ? e.message : String(e)}`, { retryable: true, cause: e, details: { method: o.label } });
  };
  let res: Response;
  let text: string;
  try {
    res = await o.fetch(o.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...o.headers },
      body: JSON.stringify(o.body),
      signal,
    });
    text = utf8Text(Buffer.from(await res.arrayBuffer()));
  } catch (e) {
    throw fail(e);
  }
  if (!res.ok) throw httpError(o.label, res.status, text, parseRetryAfter(res.headers.get('retry-after'), o.clock.now()));
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new AppError('RPC_BAD_RESPONSE', `${o.label}: response is not JSON (${text.length} bytes)`, { retryable: true, cause: e, details: { method: o.label } });
  }
}
