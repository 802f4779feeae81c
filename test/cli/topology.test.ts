/**
 * The process topology of `serve` in demo mode (docs/architecture.md "Process topology"): the
 * HTTP process, the indexer and the chain simulator are three processes. While the first
 * backfill runs, every API request is answered; the backfill's RPC connections and disk writes
 * belong to the indexer's PID (which spends CPU time meanwhile), never to the HTTP process's; the
 * HTTP process never loads the indexer's, the RPC client's, the pricing or the simulator's
 * modules. So the indexer's work, its writes included, cannot run on the API's event loop (the
 * read-only store the HTTP process serves from, and its reader threads' `query_only`
 * connections, are tested in test/store/readonly.test.ts and test/store/readers.test.ts). How
 * fast the API answers meanwhile is a benchmark's matter (docs/benchmarks.md "API under
 * ingest"), not this test's: the HTTP process's event-loop delay over the window
 * (`nodejs_eventloop_lag_p99_seconds`) is only reported in the assertion messages. SIGTERM stops
 * all three (exit 0); a SIGKILLed `serve` leaves no child behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createKeyService } from '../../src/keys/index.js';
import { createStore } from '../../src/store/index.js';
import { cliChild, cpuTicks, storageWriteBytes, tcpSocketsOf } from '../helpers/proc.js';
import { freePort } from '../helpers/scaleout.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = join(ROOT, 'test/helpers/entries/run-cli.ts');
const RECORD_IMPORTS = join(ROOT, 'test/helpers/record-imports.mjs');
const dir = mkdtempSync(join(tmpdir(), 'gamba-topology-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Serve {
  proc: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startDemo(name: string, extraEnv: Record<string, string>): Serve {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}`, LOG_LEVEL: 'warn', ...extraEnv };
  delete env.SOLANA_RPC_URL;
  delete env.SOLANA_WS_URL;
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', RECORD_IMPORTS, ENTRY, 'serve'], { cwd: ROOT, env });
  let out = '';
  proc.stdout!.on('data', (c) => (out += String(c)));
  proc.stderr!.on('data', (c) => (out += String(c)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.on('exit', (code, signal) => r({ code, signal })));
  return { proc, output: () => out, exited };
}

async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs: number, out: () => string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; output:\n${out().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One sample of a Prometheus text exposition: the value of `name` (summed over its label sets). */
function metric(text: string, name: string): number {
  let sum = 0;
  let seen = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name) {
      sum += Number(m[3]);
      seen = true;
    }
  }
  return seen ? sum : Number.NaN;
}

function stopped(pid: number): boolean {
  return !existsSync(`/proc/${pid}`);
}

describe('serve (demo): HTTP, indexer and simulator in three processes', () => {
  test('the HTTP process answers during the first backfill and does no RPC, indexing work or writes', async () => {
    const metricsPort = await freePort();
    const importLog = join(dir, 'imports.txt');
    // A key the operator made beforehand (the demo's own standard key would hit its rate limit here).
    const pre = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'demo.db') } });
    const { key } = await createKeyService({ store: pre.keys, clock: createCommon().clock }).create({ name: 'ops', tier: 'enterprise', rpm: 1_000_000, burst: 1_000_000 });
    await pre.close();
    const serve = startDemo('demo', { METRICS_PORT: String(metricsPort), IMPORT_LOG: importLog });
    const servePid = serve.proc.pid!;
    try {
      const url = await until(
        'the listening line',
        () => {
          if (serve.proc.exitCode !== null) throw new Error(`serve exited early:\n${serve.output()}`);
          return /listening on (http:\/\/[\d.]+:\d+)/.exec(serve.output())?.[1];
        },
        60_000,
        serve.output,
      );
      const simPort = Number(/running on http:\/\/127\.0\.0\.1:(\d+)/.exec(serve.output())![1]);
      const indexer = await until('the indexer child', () => cliChild(servePid, 'index'), 20_000, serve.output);
      const simulator = await until('the simulator child', () => cliChild(servePid, 'simulate'), 20_000, serve.output);
      expect(new Set([servePid, indexer.pid, simulator.pid]).size).toBe(3);

      const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const get = async (path: string) => {
        const res = await fetch(`${url}${path}`, { headers: { 'X-API-Key': key } });
        return { status: res.status, body: (await res.json()) as any };
      };
      // Wait until the indexer writes, then start a fresh window (prom-client resets the histogram per scrape).
      await until('events stored', async () => (metric(await scrape(), 'indexer_events_stored_total') > 0 ? true : undefined), 60_000, serve.output);
      await scrape();
      const io0 = { serve: storageWriteBytes(servePid), indexer: storageWriteBytes(indexer.pid) };
      const cpu0 = { serve: cpuTicks(servePid), indexer: cpuTicks(indexer.pid) };

      const rounds: { games: number; syncing: boolean }[] = [];
      const statuses: number[] = [];
      const paths = ['/status', '/stats', '/players?limit=25', '/events/settledGames?itemsPerPage=50', '/chart/plays?days=30', '/sync/status'];
      for (let round = 0; round < 10; round++) {
        // About a second of API traffic (a request every ~25 ms), then the sync state as the API reports it.
        const end = Date.now() + 1000;
        let i = 0;
        while (Date.now() < end) {
          const r = await get(paths[i++ % paths.length]!);
          statuses.push(r.status);
          await new Promise((r) => setTimeout(r, 25));
        }
        const [status, sync] = [await get('/status'), await get('/sync/status')];
        rounds.push({ games: sync.body.data.totalGames, syncing: status.body.syncing });
      }
      // The HTTP process's event-loop delay over the whole ~10 s window (since the scrape before it): reported, not bounded.
      const p99 = metric(await scrape(), 'nodejs_eventloop_lag_p99_seconds');
      const io1 = { serve: storageWriteBytes(servePid), indexer: storageWriteBytes(indexer.pid) };
      const cpu1 = { serve: cpuTicks(servePid), indexer: cpuTicks(indexer.pid) };
      const sockets = { serve: tcpSocketsOf(servePid), indexer: tcpSocketsOf(indexer.pid), simulator: tcpSocketsOf(simulator.pid) };

      const report = JSON.stringify({ eventLoopLagP99Seconds: p99, rounds, io0, io1, cpu0, cpu1 });
      // The backfill ran the whole time: syncing in every round, games stored meanwhile.
      expect(rounds.every((r) => r.syncing), report).toBe(true);
      expect(rounds[rounds.length - 1]!.games, report).toBeGreaterThan(rounds[0]!.games);
      // Every request was answered while it ran.
      expect(statuses.length, report).toBeGreaterThan(20);
      expect(statuses.every((s) => s === 200), `${JSON.stringify(statuses)} ${report}`).toBe(true);
      // The backfill's work ran in the indexer's process: it used CPU time over the window.
      expect(cpu1.indexer - cpu0.indexer, report).toBeGreaterThan(0);

      // RPC: the simulator listens; only the indexer talks to it.
      expect(sockets.simulator.some((s) => s.state === 'LISTEN' && s.localPort === simPort)).toBe(true);
      expect(sockets.indexer.some((s) => s.state === 'ESTABLISHED' && s.remotePort === simPort)).toBe(true);
      expect(sockets.serve.filter((s) => s.remotePort === simPort)).toEqual([]);
      // Writes: the indexer wrote megabytes to the store; the HTTP process next to nothing.
      expect(io1.indexer - io0.indexer, report).toBeGreaterThan(1_000_000);
      expect(io1.serve - io0.serve, report).toBeLessThan((io1.indexer - io0.indexer) / 20);

      // Modules: the HTTP process loaded no indexer, RPC, pricing or simulator code; its children did.
      const loaded = (pid: number) =>
        readFileSync(importLog, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith(`${pid} file://`))
          .map((l) => l.slice(l.indexOf(' ') + 1).replace(`file://${ROOT}`, ''));
      const own = loaded(servePid).filter((m) => m.startsWith('src/'));
      expect(own).toContain('src/api/app.ts');
      expect(own.filter((m) => /^src\/(simulator|solana|prices)\//.test(m) || (m.startsWith('src/ingest/') && m !== 'src/ingest/controller.ts'))).toEqual([]);
      expect(loaded(indexer.pid)).toContain('src/ingest/indexer.ts');
      expect(loaded(simulator.pid)).toContain('src/simulator/index.ts');

      serve.proc.kill('SIGTERM');
      expect((await serve.exited).code, serve.output().slice(-2000)).toBe(0);
      expect(stopped(indexer.pid) && stopped(simulator.pid)).toBe(true);
    } finally {
      if (serve.proc.exitCode === null && serve.proc.signalCode === null) serve.proc.kill('SIGKILL');
    }
  }, 180_000);

  test('children do not outlive a SIGKILLed serve', async () => {
    const serve = startDemo('orphans', {});
    const servePid = serve.proc.pid!;
    try {
      await until('listening', () => /listening on http/.exec(serve.output()) ?? undefined, 60_000, serve.output);
      const indexer = await until('the indexer child', () => cliChild(servePid, 'index'), 20_000, serve.output);
      const simulator = await until('the simulator child', () => cliChild(servePid, 'simulate'), 20_000, serve.output);
      serve.proc.kill('SIGKILL');
      expect((await serve.exited).signal).toBe('SIGKILL');
      await until('the children to exit', () => (stopped(indexer.pid) && stopped(simulator.pid) ? true : undefined), 15_000, serve.output);
    } finally {
      if (serve.proc.exitCode === null && serve.proc.signalCode === null) serve.proc.kill('SIGKILL');
    }
  }, 120_000);
});
