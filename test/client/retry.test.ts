/**
 * The SDK's 429 retries (packages/client: `maxRetries`, docs/errors.md `retryAfter`) against the
 * real API and its real rate limiter on the wall clock: a key of 60 requests a minute with a
 * burst of 1 is refused its second request with `retryAfter: 1`; the SDK waits that long, retries
 * and succeeds. The requests are seen on the wire (the client's `fetch` option wraps the global
 * fetch and records each request's time and answer); the waits are measured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/core/index.js';
import { GambaApiError, createClient, type RetryInfo } from '../../packages/client/src/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let app: TestApp<Clock>;
beforeAll(async () => {
  app = await buildTestApp<Clock>({ clock: systemClock });
});
afterAll(async () => {
  await app?.close();
});

interface Seen {
  at: number;
  status: number;
  retryAfter?: number;
}

/** The global fetch, recording each request on the wire. */
function recordingFetch(seen: Seen[]) {
  return async (request: Request): Promise<Response> => {
    const res = await fetch(request);
    const entry: Seen = { at: performance.now(), status: res.status };
    if (res.status === 429) entry.retryAfter = ((await res.clone().json()) as { retryAfter: number }).retryAfter;
    seen.push(entry);
    return res;
  };
}

describe('429 retry', () => {
  it('waits the answer\'s retryAfter, retries, and answers the retried request\'s 200', async () => {
    const apiKey = await app.createKey({ tier: 'enterprise', rpm: 60, burst: 1, name: 'tiny-bucket' });
    const seen: Seen[] = [];
    const retries: RetryInfo[] = [];
    const client = createClient({ baseUrl: app.baseUrl, apiKey, fetch: recordingFetch(seen), maxRetries: 3, onRetry: (i) => retries.push(i) });
    const first = await client.get('/stats');
    expect(first.plays).toBe(0);
    const started = performance.now();
    const second = await client.get('/stats');
    const elapsed = performance.now() - started;
    expect(second).toEqual(first);
    // On the wire: 200, then a 429 asking for 1 s, then (after the wait) a 200.
    expect(seen.map((s) => s.status)).toEqual([200, 429, 200]);
    expect(seen[1]!.retryAfter).toBe(1);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, waitMs: 1000, code: 'RATE_LIMITED' })]);
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(995);
    expect(elapsed).toBeGreaterThanOrEqual(995);
    expect(elapsed).toBeLessThan(5000);
  });

  it('maxRetries: 0 throws the 429 as GambaApiError with its retryAfter; a wait above maxRetryWaitMs is not waited', async () => {
    const apiKey = await app.createKey({ tier: 'enterprise', rpm: 60, burst: 1, name: 'no-retry' });
    const seen: Seen[] = [];
    const client = createClient({ baseUrl: app.baseUrl, apiKey, fetch: recordingFetch(seen), maxRetries: 0 });
    await client.get('/stats');
    const err = await client.get('/stats').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GambaApiError);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 1 });
    expect(seen.map((s) => s.status)).toEqual([200, 429]);

    // One request a minute: the 429 asks for 60 s, more than this client accepts to wait.
    const slowKey = await app.createKey({ tier: 'enterprise', rpm: 1, burst: 1, name: 'one-a-minute' });
    const seenSlow: Seen[] = [];
    const patient = createClient({ baseUrl: app.baseUrl, apiKey: slowKey, fetch: recordingFetch(seenSlow), maxRetries: 5, maxRetryWaitMs: 5000 });
    await patient.get('/stats');
    const started = performance.now();
    const slow = await patient.get('/stats').catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(slow).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect((slow as GambaApiError).retryAfter).toBeGreaterThan(5);
    expect(seenSlow.map((s) => s.status)).toEqual([200, 429]);
  });

  it('retries are bounded: maxRetries 2 against a bucket a rival keeps empty gives up after 3 requests', async () => {
    // 60 a minute, burst 1: each retry after 1 s finds one token, but a rival on the same key
    // spends it right before the retry goes out (its request is sent from the client's fetch).
    const apiKey = await app.createKey({ tier: 'enterprise', rpm: 60, burst: 1, name: 'contended' });
    const seen: Seen[] = [];
    const rival: number[] = [];
    const record = recordingFetch(seen);
    const retries: RetryInfo[] = [];
    const client = createClient({
      baseUrl: app.baseUrl,
      apiKey,
      maxRetries: 2,
      onRetry: (i) => retries.push(i),
      fetch: async (request) => {
        if (seen.length >= 2) {
          const r = await fetch(`${app.baseUrl}/stats`, { headers: { 'X-API-Key': apiKey } });
          rival.push(r.status);
          await r.body?.cancel();
        }
        return record(request);
      },
    });
    await client.get('/stats');
    const err = await client.get('/stats').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 1 });
    expect(seen.map((s) => s.status)).toEqual([200, 429, 429, 429]);
    expect(rival).toEqual([200, 200]);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
  });
});
