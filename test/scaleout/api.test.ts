/**
 * Many API processes (docs/deployment.md), each a real `gamba-analytics serve --no-indexer` process:
 * - two of them (one with `--workers 2`) on one PostgreSQL schema and one Redis share a key's
 *   budget: together exactly the key's burst, then 429 from all;
 * - Redis stopped → 503 SERVICE_UNAVAILABLE on rate-limited routes, no crash, service back
 *   when Redis returns (a private redis-server this test kills and restarts);
 * - PostgreSQL unreachable (a TCP proxy in front of it is cut) → 503, no crash, back after.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/index.js';
import { createKeyService } from '../../src/keys/index.js';
import type { Store } from '../../src/store/index.js';
import { setupTestDatabase, testDatabaseUrl } from '../helpers/store.js';
import { waitFor } from '../helpers/indexer-setup.js';
import { freePort, startApi, startRedisServer, startTcpProxy, testRedisUrl } from '../helpers/scaleout.js';

async function mintKey(store: Store, limits: { rpm: number; burst: number }): Promise<string> {
  const keys = createKeyService({ store: store.keys, clock: systemClock });
  return (await keys.create({ name: 'scaleout', tier: 'enterprise', ...limits })).key;
}

/** GET /stats with the key on a fresh connection (so cluster workers take turns). */
async function getStats(base: string, key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/stats`, { headers: { 'X-API-Key': key, Connection: 'close' } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

function childPids(pid: number): number[] {
  try {
    // Node children only: tsx's esbuild service is a child of the primary too.
    return execFileSync('pgrep', ['-P', String(pid), '-x', 'node']).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

describe('API processes sharing PostgreSQL and Redis', () => {
  it('two API processes (one with --workers 2) allow exactly the key’s burst together, then 429 from both', async () => {
    const { store, db } = await setupTestDatabase('postgres');
    // rpm 1: a token per minute, so refills during the test cannot add a request.
    const burst = 12;
    const key = await mintKey(store, { rpm: 1, burst });
    const env = { DATABASE_URL: db.databaseUrl, REDIS_URL: testRedisUrl() };
    const [a, b] = await Promise.all([startApi(env, ['--workers', '2']), startApi(env)]);
    try {
      expect(childPids(a.proc.pid!)).toHaveLength(2);
      const results: { via: 'a' | 'b'; status: number; body: any }[] = [];
      for (let i = 0; i < 3 * burst; i++) {
        const via = i % 2 === 0 ? 'a' : 'b';
        results.push({ via, ...(await getStats(via === 'a' ? a.url : b.url, key)) });
      }
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(burst);
      // The first `burst` requests pass (alternating processes), every later one is 429 from both.
      expect(results.slice(0, burst).every((r) => r.status === 200)).toBe(true);
      const denied = results.slice(burst);
      expect(denied.every((r) => r.status === 429 && r.body.code === 'RATE_LIMITED')).toBe(true);
      expect(new Set(denied.map((r) => r.via))).toEqual(new Set(['a', 'b']));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    // SIGTERM stops the primary and its workers cleanly.
    expect((await a.exited).code).toBe(0);
    expect(childPids(a.proc.pid!)).toHaveLength(0);
  });

  it('Redis stopped: 503 SERVICE_UNAVAILABLE on rate-limited routes, no crash; recovery when it returns', async () => {
    const { store, db } = await setupTestDatabase('postgres');
    const key = await mintKey(store, { rpm: 60_000, burst: 1000 });
    const port = await freePort();
    let redis = await startRedisServer(port);
    const api = await startApi({ DATABASE_URL: db.databaseUrl, REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      expect((await getStats(api.url, key)).status).toBe(200);
      await redis.stop('SIGKILL');
      const down = await getStats(api.url, key);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      // Unlimited traffic must not get through: every request while Redis is down is refused.
      for (let i = 0; i < 5; i++) expect((await getStats(api.url, key)).status).toBe(503);
      expect((await fetch(`${api.url}/health`)).status).toBe(200);
      redis = await startRedisServer(port);
      await waitFor(async () => (await getStats(api.url, key)).status === 200, 15_000, 'the API to use Redis again');
      expect(api.proc.exitCode).toBeNull();
    } finally {
      await api.stop();
      await redis.stop('SIGKILL');
    }
  });

  it('PostgreSQL unreachable: 503 and /ready 503, no crash; recovery when it returns', async () => {
    const { store, db } = await setupTestDatabase('postgres');
    const key = await mintKey(store, { rpm: 60_000, burst: 1000 });
    const target = new URL(testDatabaseUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(db.databaseUrl);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    // No response cache: a cached answer during the outage would be correct but would not show the 503.
    const api = await startApi({ DATABASE_URL: viaProxy.toString(), CACHE_TTL_MS: '0' });
    try {
      expect((await getStats(api.url, key)).status).toBe(200);
      expect((await fetch(`${api.url}/ready`)).status).toBe(200);
      await proxy.cut();
      const down = await getStats(api.url, key);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect((await fetch(`${api.url}/ready`)).status).toBe(503);
      expect((await fetch(`${api.url}/health`)).status).toBe(200);
      await proxy.restore();
      await waitFor(async () => (await getStats(api.url, key)).status === 200, 15_000, 'the API to reach PostgreSQL again');
      expect((await fetch(`${api.url}/ready`)).status).toBe(200);
      expect(api.proc.exitCode).toBeNull();
    } finally {
      await api.stop();
      await proxy.close();
    }
  });
});
