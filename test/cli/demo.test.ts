/**
 * The first-run demo (docs/design.md §1, docs/indexer.md "Done when"): `serve` with no SOLANA_RPC_URL on an
 * empty store starts the simulator, indexes it, prints a fresh key once with a curl line, and
 * within a minute the API answers with data from the simulated chain; new games keep arriving;
 * SIGTERM exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { bundledEntry } from '../helpers/cli-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gamba-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let describeOutput: () => string = () => '';

async function poll<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${describeOutput()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('npm start with nothing configured (demo)', () => {
  test('prints a working key, serves simulated data within a minute, keeps indexing new games, exits 0 on SIGTERM', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'demo.db')}`, LOG_LEVEL: 'warn' };
    delete env.SOLANA_RPC_URL;
    delete env.SOLANA_WS_URL;
    const child: ChildProcess = spawn(process.execPath, [...bundledEntry('run-cli'), 'serve'], { cwd: ROOT, env });
    let out = '';
    child.stdout!.on('data', (c) => (out += String(c)));
    child.stderr!.on('data', (c) => (out += String(c)));
    describeOutput = () => `; output so far:\n${out.slice(-2000)}`;
    child.on('exit', (code) => (out += `\n[serve exited with ${code}]`));
    try {
      const { url, key } = await poll(
        'the banner and the key',
        async () => {
          if (child.exitCode !== null) throw new Error(`serve exited early${describeOutput()}`);
          const u = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
          const k = /curl -H "X-API-Key: ([0-9a-f]{64})" (http:\/\/\S+)\/stats/.exec(out);
          return u && k ? { url: u[1]!, key: k[1]! } : undefined;
        },
        60_000,
      );
      expect(out).toMatch(/DEMO MODE/);
      expect(out).toMatch(/SOLANA_RPC_URL=/);
      const get = async (path: string) => {
        const res = await fetch(`${url}${path}`, { headers: { 'X-API-Key': key } });
        return { status: res.status, body: (await res.json()) as any };
      };
      const first = await poll('games in /stats', async () => {
        const r = await get('/stats');
        return r.status === 200 && r.body.plays > 0 ? r.body : undefined;
      }, 60_000);
      expect(first.usd_volume).toBeGreaterThan(0);
      const players = await get('/players');
      expect(players.status).toBe(200);
      expect(players.body.results.length).toBeGreaterThan(0);
      // The banner shows how to find a pool; the demo chain's pools are listed and each one answers.
      expect(out).toContain(`curl -H "X-API-Key: ${key}" ${url}/pools`);
      const pools = await poll('the pools', async () => {
        const r = await get('/pools');
        return r.status === 200 && r.body.results.length > 0 ? r.body.results : undefined;
      }, 30_000);
      const one = await get(`/pool?pool=${pools[0].pool}`);
      expect(one.status).toBe(200);
      expect(one.body.pool).toBe(pools[0].pool);
      const chart = await get('/chart/plays');
      expect(chart.status).toBe(200);
      expect(chart.body.data.some((p: { plays: number }) => p.plays > 0)).toBe(true);
      const newest = (await get('/events/settledGames?itemsPerPage=1')).body.results[0];
      // New games keep appearing: a newer one than the first newest shows up.
      await poll('a newer game', async () => {
        const r = await get('/events/settledGames?itemsPerPage=1');
        return r.body.results[0] && r.body.results[0].time > newest.time ? true : undefined;
      }, 30_000);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 180_000);
});
