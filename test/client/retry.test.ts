/**
 * The SDK's 429 retries (packages/client: `maxRetries`, docs/errors.md `retryAfter`) against the
 * real API and its real rate limiter on the wall clock: a key of 60 requests a minute with a
 * burst of 1 is refused its second request with `retryAfter: 1`; the SDK waits that long, retries
 * and succeeds. The requests are seen on the wire (the client's `fetch` option wraps the global
 * fetch and records each request's time and answer); the waits are measured.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it('without retryAfter in the body (a proxy\'s 429), the Retry-After header gives the wait: seconds or an HTTP date', async () => {
    // A plain HTTP server standing in for a gateway in front of the API: text 429s, then a 200.
    const answers: { status: number; headers: Record<string, string>; body: string }[] = [
      { status: 429, headers: { 'retry-after': '1', 'content-type': 'text/plain' }, body: 'slow down' },
      { status: 429, headers: { 'retry-after': new Date(Date.now() + 4_000).toUTCString() }, body: '' },
      { status: 200, headers: { 'content-type': 'application/json' }, body: '{"players":1,"usd_volume":2,"plays":3,"creators":1,"revenue_usd":0,"player_net_profit_usd":0,"active_players":1,"first_bet_time":5}' },
    ];
    const arrivals: number[] = [];
    const server = createServer((req, res) => {
      arrivals.push(performance.now());
      const a = answers.shift()!;
      res.writeHead(a.status, a.headers).end(a.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const retries: RetryInfo[] = [];
      const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k', onRetry: (i) => retries.push(i) });
      const stats = await client.get('/stats');
      expect(stats.plays).toBe(3);
      expect(arrivals.length).toBe(3);
      expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(995);
      // The HTTP date (one-second resolution, 3–4 s ahead when made) is waited for until it comes: 2–3 s after the first wait.
      expect(retries[1]!.waitMs).toBeGreaterThan(1_500);
      expect(retries[1]!.waitMs).toBeLessThanOrEqual(3_000);
      expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(retries[1]!.waitMs - 5);
      expect(retries.map((r) => [r.attempt, r.code])).toEqual([[1, 'HTTP_429'], [2, 'HTTP_429']]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
