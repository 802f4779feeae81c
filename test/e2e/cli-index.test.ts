/**
 * `gamba-analytics index` as an operator runs it: a separate process, configuration from the
 * environment, the built-in simulator (a child process) with --simulate, clean exit 0 on SIGTERM
 * that also stops the simulator (docs/design.md §9).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { STATE_KEYS } from '../../src/ingest/index.js';
import { createStore } from '../../src/store/index.js';
import { cliChild } from '../helpers/proc.js';
import { createTestDatabase } from '../helpers/store.js';
import { waitFor } from '../helpers/indexer-setup.js';
import { bundledEntry } from '../helpers/cli-bundle.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gamba-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string>) {
  const proc = spawn(process.execPath, [...bundledEntry('run-cli'), ...args], {
    cwd: path.resolve(here, '../..'),
    env: { ...process.env, SOLANA_RPC_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return { proc, exited, output: () => out };
}

describe('gamba-analytics index', () => {
  it('refuses to start without SOLANA_RPC_URL (unless --simulate)', async () => {
    const r = run(['index'], { DATABASE_URL: `sqlite:${path.join(dir, 'none.db')}` });
    expect(await r.exited).toBe(1);
    expect(r.output()).toMatch(/SOLANA_RPC_URL is required/);
    const w = run(['index', '--whales'], { SOLANA_RPC_URL: 'http://127.0.0.1:9', DATABASE_URL: `sqlite:${path.join(dir, 'none.db')}` });
    expect(await w.exited).toBe(1);
    expect(w.output()).toMatch(/--whales needs --simulate/);
  });

  it('--simulate (--whales) indexes the built-in simulator and stops cleanly on SIGTERM', async () => {
    const db = createTestDatabase();
    const r = run(['index', '--simulate', '--sim-days', '2', '--sim-plays', '200', '--whales', '--progress', 'log'], { DATABASE_URL: db.databaseUrl, LOG_LEVEL: 'info' });
    await waitFor(() => r.output().includes('"msg":"backfill complete"'), 40_000, `backfill complete in:\n${r.output()}`);
    expect(r.output()).toContain('DEMO MODE');
    // The simulator runs in a child process of its own (docs/architecture.md "Process topology").
    const simulator = cliChild(r.proc.pid!, 'simulate');
    expect(simulator).toBeDefined();
    r.proc.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    expect(fs.existsSync(`/proc/${simulator!.pid}`)).toBe(false);
    expect(r.output()).toContain('"signal":"SIGTERM"');
    const store = await createStore({ common: createCommon(), config: db.config });
    try {
      expect((await store.queries.counts()).totalGames).toBeGreaterThan(100);
      expect(await store.getState(STATE_KEYS.backfillDone)).toBeDefined();
      // --whales: the BONK whale's games are on the chain, so the BONK pool's volume passes 2^63.
      const bonk = await store.queries.pools({ token: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', sortBy: 'plays', limit: 10 });
      expect(bonk.results).toHaveLength(1);
      expect(bonk.results[0]!.volume).toBeGreaterThan(1n << 63n);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
