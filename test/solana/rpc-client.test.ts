import { afterEach, describe, expect, it } from 'vitest';
import { AppError, createCommon } from '../../src/core/index.js';
import { createRpcClient, parseRetryAfter, type RpcClientOptions } from '../../src/solana/index.js';
import { err, ok, startScriptedServer, type Reply, type ScriptedServer } from '../helpers/scripted-rpc-server.js';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handle: (body: any, n: number) => Reply | Promise<Reply>) {
  const s = await startScriptedServer(handle);
  servers.push(s);
  return s;
}

function client(url: string, extra: Partial<RpcClientOptions> = {}) {
  const common = createCommon();
  const rpc = createRpcClient({ common, url, concurrency: 4, maxRps: 10_000, timeoutMs: 2000, retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 5 }, ...extra });
  return { rpc, common };
}

const counter = async (common: ReturnType<typeof createCommon>, name: string) => {
  const m = (await common.metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
  return (m?.values ?? []).reduce((s, v) => s + Number(v.value), 0);
};

/** Echo server: result = the first param, for singles and batches. */
const echo = (body: any): Reply => ({ body: Array.isArray(body) ? body.map((r) => ok(r, r.params[0])) : ok(body, body.params[0]) });

describe('RPC client: requests and batches', () => {
  it('sends JSON-RPC 2.0 and returns the result', async () => {
    const s = await serve(echo);
    const { rpc } = client(s.url);
    expect(await rpc.call('echo', ['hello'])).toBe('hello');
    expect(s.requests[0]!.body).toMatchObject({ jsonrpc: '2.0', method: 'echo', params: ['hello'] });
    expect(typeof s.requests[0]!.body.id).toBe('number');
  });

  it('splits batches at 100 items and returns results in input order even when the server shuffles them', async () => {
    const s = await serve((body: any[]) => ({ body: [...body].reverse().map((r) => ok(r, r.params[0] * 2)) }));
    const { rpc } = client(s.url);
    const calls = Array.from({ length: 250 }, (_, i) => ({ method: 'double', params: [i] }));
    const out = await rpc.batch<number>(calls);
    expect(out.map((o) => (o.ok ? o.result : -1))).toEqual(calls.map((_, i) => i * 2));
    expect(s.requests.map((r) => r.body.length).sort((a, b) => a - b)).toEqual([50, 100, 100]);
  });

  it('re-sends only the batch items that failed with a retryable error', async () => {
    const failedOnce = new Set<number>();
    const s = await serve((body: any[]) => ({
      body: body.map((r) => {
        const v = r.params[0] as number;
        if (v % 3 === 0 && !failedOnce.has(v)) {
          failedOnce.add(v);
          return err(r, -32005, 'Node is behind by 42 slots');
        }
        return ok(r, v);
      }),
    }));
    const { rpc, common } = client(s.url);
    const out = await rpc.batch<number>(Array.from({ length: 30 }, (_, i) => ({ method: 'getX', params: [i] })));
    expect(out.every((o, i) => o.ok && o.result === i)).toBe(true);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.body.map((r: any) => r.params[0])).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27]);
    expect(await counter(common, 'rpc_retries_total')).toBe(10);
  });

  it('reports a non-retryable item error in its outcome without failing the others', async () => {
    const s = await serve((body: any[]) => ({ body: body.map((r) => (r.params[0] === 1 ? err(r, -32602, 'Invalid params') : ok(r, r.params[0]))) }));
    const { rpc } = client(s.url);
    const out = await rpc.batch<number>([0, 1, 2].map((i) => ({ method: 'm', params: [i] })));
    expect(out[0]).toEqual({ ok: true, result: 0 });
    expect(out[2]).toEqual({ ok: true, result: 2 });
    expect(out[1]!.ok).toBe(false);
    const e = (out[1] as { error: AppError }).error;
    expect(e.retryable).toBe(false);
    expect(e.details?.rpcCode).toBe(-32602);
    expect(s.requests).toHaveLength(1);
  });

  it('falls back to single requests when the endpoint rejects batches (HTTP 400), and keeps doing so', async () => {
    const s = await serve((body) => (Array.isArray(body) ? { status: 400, body: { error: 'batch requests are not allowed' } } : echo(body)));
    const { rpc } = client(s.url);
    const out = await rpc.batch<number>([5, 6, 7].map((i) => ({ method: 'm', params: [i] })));
    expect(out).toEqual([5, 6, 7].map((v) => ({ ok: true, result: v })));
    expect(rpc.batchesSupported).toBe(false);
    const before = s.requests.length;
    await rpc.batch<number>([8, 9].map((i) => ({ method: 'm', params: [i] })));
    expect(s.requests.slice(before).every((r) => !Array.isArray(r.body))).toBe(true);
  });

  it('falls back to singles when an array is answered with one JSON-RPC error object', async () => {
    const s = await serve((body) => (Array.isArray(body) ? { body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch disabled' } } } : echo(body)));
    const { rpc } = client(s.url);
    expect(await rpc.batch<number>([1, 2].map((i) => ({ method: 'm', params: [i] })))).toEqual([
      { ok: true, result: 1 },
      { ok: true, result: 2 },
    ]);
    expect(rpc.batchesSupported).toBe(false);
  });
});

describe('RPC client: retries and error mapping', () => {
  it.each([
    ['HTTP 429', { status: 429, body: { jsonrpc: '2.0', error: { code: 429, message: 'Too many requests' }, id: 1 } }],
    ['HTTP 503', { status: 503, raw: 'upstream unavailable' }],
    ['HTTP 502', { status: 502, raw: '<html>bad gateway</html>' }],
    ['JSON-RPC -32005', null],
    ['JSON-RPC -32004', null],
    ['truncated JSON body', { raw: '{"jsonrpc":"2.0","id":1,"resu' }],
  ] as const)('retries %s and then succeeds', async (name, reply) => {
    const s = await serve((body, n) => {
      if (n <= 2) {
        if (reply) return reply as Reply;
        return { body: err(body, Number(name.split(' ')[1]), 'transient') };
      }
      return echo(body);
    });
    const { rpc, common } = client(s.url);
    expect(await rpc.call('m', [42])).toBe(42);
    expect(s.requests).toHaveLength(3);
    expect(await counter(common, 'rpc_retries_total')).toBe(2);
    expect(await counter(common, 'rpc_errors_total')).toBe(2);
  });

  it('does not retry -32602, -32007 or HTTP 403, and maps them to non-retryable AppErrors', async () => {
    for (const [reply, code] of [
      [(b: any) => ({ body: err(b, -32602, 'Invalid limit; max 1000') }), 'RPC_ERROR'],
      [(b: any) => ({ body: err(b, -32007, 'Slot 5 was skipped') }), 'RPC_ERROR'],
      [() => ({ status: 403, raw: 'forbidden' }), 'RPC_HTTP_ERROR'],
    ] as const) {
      const s = await serve(reply);
      const { rpc } = client(s.url);
      const e = await rpc.call('m', [1]).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe(code);
      expect((e as AppError).retryable).toBe(false);
      expect(s.requests).toHaveLength(1);
    }
  });

  it('gives up after maxAttempts with a retryable error', async () => {
    const s = await serve(() => ({ status: 503, raw: 'down' }));
    const { rpc } = client(s.url, { retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 4 } });
    await expect(rpc.call('m', [])).rejects.toMatchObject({ code: 'RPC_UNAVAILABLE', retryable: true });
    expect(s.requests).toHaveLength(4);
  });

  it('times out a hanging request and retries it', async () => {
    const s = await serve((body, n) => (n === 1 ? { ...echo(body), delayMs: 1500 } : echo(body)));
    const { rpc } = client(s.url, { timeoutMs: 200 });
    expect(await rpc.call('m', ['late'])).toBe('late');
    expect(s.requests).toHaveLength(2);
  });

  it('honours Retry-After on 429 (waits at least that long)', async () => {
    const s = await serve((body, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' }, raw: 'slow down' } : echo(body)));
    const { rpc } = client(s.url);
    expect(await rpc.call('m', [1])).toBe(1);
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('stops waiting when its signal aborts (ABORTED, not retryable)', async () => {
    const s = await serve(() => ({ status: 503, raw: 'down' }));
    const { rpc } = client(s.url, { retry: { baseDelayMs: 10_000, maxDelayMs: 10_000, maxAttempts: 5 } });
    const ac = new AbortController();
    const p = rpc.call('m', [], { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await expect(p).rejects.toMatchObject({ code: 'ABORTED', retryable: false });
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(new Date(now + 7000).toUTCString(), now)).toBe(7000);
  });
});

describe('RPC client: concurrency and rate cap', () => {
  it('never has more than `concurrency` requests in flight', async () => {
    const s = await serve((body) => ({ ...echo(body), delayMs: 60 }));
    const { rpc } = client(s.url, { concurrency: 3 });
    const out = await Promise.all(Array.from({ length: 12 }, (_, i) => rpc.call('m', [i])));
    expect(out).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(s.maxInFlight()).toBe(3);
  });

  it('caps the request rate, counting batch items one by one', async () => {
    const s = await serve(echo);
    const { rpc } = client(s.url, { maxRps: 20 });
    // A 40-item batch spends two seconds of budget: the next call must wait for the refill.
    await rpc.batch([...Array(40).keys()].map((i) => ({ method: 'm', params: [i] })));
    await rpc.call('m', ['after']);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(900);
  });
});

describe('RPC client: typed helpers', () => {
  it('getSignaturesForAddress sends before/until/limit/commitment as the RPC docs say', async () => {
    const s = await serve((b) => ({ body: ok(b, []) }));
    const { rpc } = client(s.url);
    await rpc.getSignaturesForAddress('Prog', { before: 'B', until: 'U', limit: 10, commitment: 'confirmed' });
    await rpc.getSignaturesForAddress('Prog');
    expect(s.requests[0]!.body.params).toEqual(['Prog', { limit: 10, commitment: 'confirmed', before: 'B', until: 'U' }]);
    expect(s.requests[1]!.body.params).toEqual(['Prog', { limit: 1000, commitment: 'finalized' }]);
  });

  it('getTransactions asks json + maxSupportedTransactionVersion 0, and turns exhausted transient errors into null', async () => {
    const s = await serve((body: any[]) => ({
      body: body.map((r) => (r.params[0] === 'sigB' ? err(r, -32005, 'behind') : ok(r, r.params[0] === 'sigC' ? null : { slot: 1, sig: r.params[0] }))),
    }));
    const { rpc } = client(s.url, { retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 2 } });
    const out = await rpc.getTransactions(['sigA', 'sigB', 'sigC'], { commitment: 'confirmed' });
    expect(out).toEqual([{ slot: 1, sig: 'sigA' }, null, null]);
    expect(s.requests[0]!.body[0].params).toEqual(['sigA', { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }]);
  });

  it('getTransactions throws a non-retryable item error', async () => {
    const s = await serve((body: any[]) => ({ body: body.map((r) => err(r, -32015, 'Transaction version (1) is not supported')) }));
    const { rpc } = client(s.url);
    await expect(rpc.getTransactions(['x'])).rejects.toMatchObject({ code: 'RPC_ERROR', retryable: false });
  });

  it('getMintDecimals reads jsonParsed mint accounts and skips non-mints and missing accounts', async () => {
    const mintAcc = (decimals: number) => ({
      lamports: 1461600,
      owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      executable: false,
      data: { program: 'spl-token', parsed: { type: 'mint', info: { decimals, supply: '1', isInitialized: true, mintAuthority: null, freezeAuthority: null } }, space: 82 },
    });
    const s = await serve((b) => {
      const keys: string[] = b.params[0];
      expect(b.method).toBe('getMultipleAccounts');
      expect(b.params[1]).toMatchObject({ encoding: 'jsonParsed' });
      const value = keys.map((k) => (k === 'missing' ? null : k === 'account' ? { ...mintAcc(0), data: { program: 'spl-token', parsed: { type: 'account', info: {} } } } : mintAcc(Number(k.slice(1)))));
      return { body: ok(b, { context: { slot: 1 }, value }) };
    });
    const { rpc } = client(s.url);
    const keys = ['m9', 'missing', 'account', 'm6', ...Array.from({ length: 120 }, (_, i) => `m${i % 10}`)];
    const d = await rpc.getMintDecimals(keys);
    expect(d.get('m9')).toBe(9);
    expect(d.get('m6')).toBe(6);
    expect(d.has('missing')).toBe(false);
    expect(d.has('account')).toBe(false);
    // 124 keys → two getMultipleAccounts calls (≤ 100 keys each).
    expect(s.requests.map((r) => r.body.params[0].length)).toEqual([100, 24]);
  });
});
