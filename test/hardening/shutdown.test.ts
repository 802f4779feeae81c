/**
 * Graceful shutdown (docs/hardening.md; docs/design.md §9) of `serve` as a child process, mid-backfill: on SIGTERM
 * or SIGINT it stops accepting, finishes the requests in flight (a request whose body is still
 * arriving, a burst of queries), commits or rolls back the indexer's batch, closes the store and
 * exits 0 within 10 s — even with a stalled client holding a half-sent request, and with live
 * streams open (ended cleanly first). Afterwards the
 * store is consistent: an indexer resumed from its checkpoint ends with exactly the ground truth.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createKeyService } from '../../src/keys/index.js';
import { startSimulator } from '../../src/simulator/index.js';
import { createStore } from '../../src/store/index.js';
import { groundTruth, simulatorPrices } from '../helpers/ground-truth.js';
import { buildIndexer } from '../helpers/indexer-setup.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';
import { bytesOf, rawExchange } from '../helpers/raw-http.js';
import { bundledEntry } from '../helpers/cli-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gamba-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs: number, out: () => string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; output:\n${out().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(['SIGTERM', 'SIGINT'] as const)('%s', (signal) => {
  test('in-flight requests finish, the batch commits or rolls back, exit 0 within 10 s, nothing lost', async () => {
    const sim = await startSimulator({ seed: 47, days: 6, playsPerDay: 150, liveRate: 0, faults: 'slow=1@20' });
    const db = join(dir, `${signal}.db`);
    try {
      // A key made by the operator beforehand (as `keys create` would).
      const pre = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: db } });
      const { key } = await createKeyService({ store: pre.keys, clock: createCommon().clock }).create({ name: 'ops', tier: 'enterprise', rpm: 100_000, burst: 100_000 });
      await pre.close();

      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${db}`,
        SOLANA_RPC_URL: sim.rpcUrl,
        HERMES_URL: sim.hermesUrl,
        JUPITER_URL: sim.jupiterUrl,
        BACKFILL_DAYS: '7',
        RPC_MAX_RPS: '100000',
        POLL_INTERVAL_MS: '200',
        LOG_LEVEL: 'info',
      };
      delete env.SOLANA_WS_URL;
      const child = spawn(process.execPath, [...bundledEntry('run-cli'), 'serve'], { cwd: ROOT, env });
      let out = '';
      child.stdout!.on('data', (c) => (out += String(c)));
      child.stderr!.on('data', (c) => (out += String(c)));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, sig) => r({ code, signal: sig })));
      try {
        const url = await until('the listening line', () => /listening on (http:\/\/[\d.]+:\d+)/.exec(out)?.[1], 60_000, () => out);
        const get = (path: string) => fetch(`${url}${path}`, { headers: { 'x-api-key': key } });
        // Mid-backfill: some games indexed, backfill still running.
        await until('indexed games', async () => ((await (await get('/status')).json()) as { totalGames: number }).totalGames > 0 || undefined, 60_000, () => out);

        // In flight at the signal: a POST /sync whose body is still arriving, a burst of queries, a stalled client.
        const body = '{"reason":"shutdown-test"}';
        const slowPost = rawExchange(url, [
          `POST /sync HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
          ...bytesOf(body),
        ], { gapMs: 40, waitMs: 15_000 });
        const stalled = rawExchange(url, bytesOf(`GET /status HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n`).slice(0, 20), { gapMs: 10, waitMs: 15_000 });
        // Two open live streams (docs/design.md §11): they must end cleanly, not hold the exit.
        const streams = await Promise.all(
          [0, 1].map(async () => {
            const res = await get('/stream/settledGames');
            expect(res.status).toBe(200);
            // Wrapped: an async function returning the reader's promise would wait for the stream's end.
            const done = (async () => {
              let text = '';
              try {
                for await (const c of res.body as any) text += Buffer.from(c).toString('utf8');
                return { clean: true, text };
              } catch (err) {
                return { clean: false, text: `${text} ${String(err)}` };
              }
            })();
            return { done };
          }),
        );
        await new Promise((r) => setTimeout(r, 200));
        // A burst on fresh connections racing the signal (no keep-alive reuse: a request written on a
        // socket the server is already closing would be the client's race, not the server's fault).
        const burst = Array.from({ length: 20 }, (_, i) =>
          rawExchange(url, [`GET ${['/stats', '/players', '/events/settledGames', '/chart/plays'][i % 4]} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`], { waitMs: 15_000 }),
        );
        await new Promise((r) => setTimeout(r, 30));
        const sentAt = Date.now();
        child.kill(signal);

        const result = await exited;
        const tookMs = Date.now() - sentAt;
        expect(result.code, out.slice(-3000)).toBe(0);
        expect(tookMs, out.slice(-2000)).toBeLessThan(10_000);
        // The half-sent POST completed and was answered.
        const post = await slowPost;
        expect(post.status, post.text).toBe(202);
        expect(post.body.success).toBe(true);
        // Every query the server accepted got a complete answer: 200, or 503 when it arrived after
        // closing began; a connection refused after the listener closed has no answer at all.
        const answers = await Promise.all(burst);
        for (const r of answers) {
          if (r.status === undefined) continue;
          expect([200, 503], r.text).toContain(r.status);
          expect(r.body, r.text).toBeDefined();
        }
        // (How many were served before the listener closed is timing: not asserted.)
        // The open streams ended cleanly (a complete chunked body) when the server closed.
        for (const st of await Promise.all(streams.map((x) => x.done))) expect(st.clean, st.text.slice(-300)).toBe(true);
        // The stalled client was disconnected rather than holding the exit.
        expect((await stalled).closedAfterMs).toBeDefined();
        expect(out).toMatch(/shutting down/);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }

      // The store is consistent: resumed from its checkpoints, the indexer ends with exactly the truth.
      const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: db } });
      try {
        const before = await store.queries.counts();
        expect(before.totalSignatures).toBeGreaterThan(0);
        const indexer = buildIndexer({ rpcUrl: sim.rpcUrl, store, prices: simulatorPrices(sim), backfillDays: 7 });
        await indexer.start();
        await indexer.backfilled();
        await indexer.syncNow();
        await indexer.stop();
        const truth = await groundTruth(sim);
        expect(await storedEventLines(store, poolsOf(truth.events))).toEqual(expectedEventLines(truth.events));
      } finally {
        await store.close();
      }
    } finally {
      await sim.stop();
    }
  }, 120_000);
});
