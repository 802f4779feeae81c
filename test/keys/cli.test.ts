import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createStore } from '../../src/store/index.js';
import { buildTestApp } from '../helpers/app.js';
import { bundledEntry } from '../helpers/cli-bundle.js';

/**
 * The CLI as an operator runs it: a separate process (the test run's bundle of the sources,
 * helpers/cli-bundle.ts), configured by the environment, talking to the same SQLite file.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gamba-cli-'));
  env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'gamba.db')}`, LOG_LEVEL: 'warn' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], extraEnv: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [...bundledEntry('run-cli'), ...args], { cwd: ROOT, env: { ...env, ...extraEnv } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('gamba-analytics keys', () => {
  test('create --json prints a key that authenticates against the served store; revoke disables it', async () => {
    const created = await cli(['keys', 'create', '--name', 'ci', '--tier', 'premium', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out).toMatchObject({ tier: 'premium', name: 'ci', rpm: 1000, burst: 2000, expiresAt: null });
    expect(out.key).toMatch(/^[0-9a-f]{64}$/);
    expect(out.id).toEqual(expect.any(String));

    const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'gamba.db') } });
    const t = await buildTestApp({ store });
    try {
      const ok = await fetch(`${t.baseUrl}/status`, { headers: { 'X-API-Key': out.key } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('1000');

      const list = await cli(['keys', 'list', '--json']);
      expect(list.code).toBe(0);
      const rows = JSON.parse(list.stdout) as { id: string; status: string }[];
      expect(rows.find((r) => r.id === out.id)).toMatchObject({ status: 'active', tier: 'premium' });
      // The key text is never listed.
      expect(list.stdout).not.toContain(out.key);

      const revoked = await cli(['keys', 'revoke', out.id]);
      expect(revoked.code, revoked.stderr).toBe(0);
      const denied = await fetch(`${t.baseUrl}/status`, { headers: { 'X-API-Key': out.key } });
      expect(denied.status).toBe(401);
      expect(((await denied.json()) as { code: string }).code).toBe('UNAUTHORIZED');
      expect((await cli(['keys', 'revoke', out.id])).code).toBe(1);
    } finally {
      await t.close();
      await store.close();
    }
  });

  test('enterprise with custom limits and an expiry; human output shows the key once', async () => {
    const r = await cli(['keys', 'create', '--name', 'big', '--tier', 'enterprise', '--rpm', '5000', '--burst', '9000', '--expires', '90d']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/5000 requests\/min, burst 9000/);
    expect(r.stdout.match(/\b[0-9a-f]{64}\b/g)).toHaveLength(1);
    const table = await cli(['keys', 'list']);
    expect(table.stdout).toMatch(/big\s+enterprise\s+5000\s+9000\s+active/);
  });

  test('--scopes and --publishable --origin: stored as given, shown by list, never the key text', async () => {
    const narrow = await cli(['keys', 'create', '--name', 'dash', '--tier', 'standard', '--scopes', 'read', '--json']);
    expect(narrow.code, narrow.stderr).toBe(0);
    expect(JSON.parse(narrow.stdout)).toMatchObject({ scopes: ['read'], publishable: false, origins: [] });
    const pub = await cli(['keys', 'create', '--name', 'web', '--publishable', '--origin', 'https://Casino.example:443', '--origin', 'http://localhost:5173', '--json']);
    expect(pub.code, pub.stderr).toBe(0);
    // Origins are kept as browsers send them (default port dropped, host lowercase); tier and scope fixed.
    expect(JSON.parse(pub.stdout)).toMatchObject({ tier: 'publishable', rpm: 60, burst: 120, scopes: ['read'], publishable: true, origins: ['https://casino.example', 'http://localhost:5173'] });
    const rows = JSON.parse((await cli(['keys', 'list', '--json'])).stdout) as { name: string; scopes: string[]; origins: string[] }[];
    expect(rows.find((r) => r.name === 'web')).toMatchObject({ scopes: ['read'], origins: ['https://casino.example', 'http://localhost:5173'] });
    expect(rows.find((r) => r.name === 'dash')).toMatchObject({ scopes: ['read'] });
  });

  test('bad arguments or configuration → exit 1 with a message naming the culprit, and no key', async () => {
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [['keys', 'create', '--name', 'x', '--tier', 'gold'], /tier/],
      [['keys', 'create', '--name', 'x', '--tier', 'standard', '--rpm', '5'], /enterprise/],
      [['keys', 'create', '--name', 'x', '--tier', 'enterprise', '--rpm', '0'], /rpm/],
      [['keys', 'create', '--name', 'x', '--tier', 'standard', '--expires', 'later'], /expires/],
      [['keys', 'create', '--tier', 'standard'], /--name/],
      [['keys', 'create', '--name', 'x'], /--tier/],
      [['keys', 'create', '--name', 'x', '--tier', 'standard', '--scopes', 'read,admin'], /scope/],
      [['keys', 'create', '--name', 'x', '--publishable'], /origin/],
      [['keys', 'create', '--name', 'x', '--publishable', '--origin', 'https://casino.example/path'], /origin/],
      [['keys', 'create', '--name', 'x', '--publishable', '--origin', 'https://casino.example', '--scopes', 'read,sync'], /publishable/],
      [['keys', 'create', '--name', 'x', '--tier', 'standard', '--origin', 'https://casino.example'], /publishable/],
      [['keys', 'list'], /LOG_LEVEL/, { LOG_LEVEL: 'loud' }],
      [['keys', 'list'], /DATABASE_URL/, { DATABASE_URL: 'mysql://x' }],
    ];
    // Separate processes, run together: each start costs a TypeScript transform.
    const results = await Promise.all(cases.map(([args, , extra]) => cli(args, extra)));
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(1);
      expect(r.stderr).toMatch(cases[i]![1]);
      expect(r.stdout).not.toMatch(/[0-9a-f]{64}/);
    });
  });
});

describe('gamba-analytics serve', () => {
  test('--no-indexer serves the store on PORT, a created key works, SIGTERM stops it with exit 0', async () => {
    const created = JSON.parse((await cli(['keys', 'create', '--name', 'serve', '--tier', 'standard', '--json'])).stdout);
    const child: ChildProcess = spawn(process.execPath, [...bundledEntry('run-cli'), 'serve', '--no-indexer'], { cwd: ROOT, env: { ...env, PORT: '0', HOST: '127.0.0.1' } });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (c) => {
          out += String(c);
          const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
      });
      const res = await fetch(`${url}/status`, { headers: { Authorization: `Bearer ${created.key}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ syncing: false, totalGames: 0 });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  test('a taken port → exit 1', async () => {
    const t = await buildTestApp();
    try {
      const port = new URL(t.baseUrl).port;
      const r = await cli(['serve', '--no-indexer'], { PORT: port });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/EADDRINUSE|in use/);
    } finally {
      await t.close();
    }
  });
});
