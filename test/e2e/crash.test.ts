/**
 * Crash safety (issue 4): the indexer runs in its own process and is killed with SIGKILL at
 * random points during the backfill, several times, restarted each time; the store must end
 * with exactly the chain's events — no loss, no duplicate. The chain here is the controlled
 * ledger (with a little latency so kills land mid-backfill); crash-simulator.test.ts does the
 * same against the chain simulator's ground truth.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { STATE_KEYS } from '../../src/ingest/index.js';
import { createStore } from '../../src/store/index.js';
import { generateFixture } from '../helpers/fixture.js';
import { fixtureTransactions, startLedger } from '../ingest/ledger.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../ingest/stored.js';
import { spawnIndexerChild } from './child.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gamba-crash-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('crash safety (SIGKILL during backfill, controlled chain)', () => {
  it('ends with exactly the chain events after repeated kill -9 and restarts', async () => {
    const fixture = generateFixture({ seed: 99, games: 1500, poolChanges: 150 });
    const { txs } = fixtureTransactions(fixture.events);
    const ledger = await startLedger({ txs, mints: fixture.mints, finalizedDepth: 10, delayMs: 10 });
    const db = path.join(dir, 'gamba.db');
    const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: db } });
    const base = ledger.url.replace(/\/$/, '');
    const env = {
      SOLANA_RPC_URL: ledger.url,
      DATABASE_URL: `sqlite:${db}`,
      BACKFILL_DAYS: '3650',
      HERMES_URL: base,
      JUPITER_URL: `${base}/jup`,
      PAGE_SIZE: '50',
      POLL_INTERVAL_MS: '200',
      RPC_MAX_RPS: '100000',
      CHILD_LOG_LEVEL: 'warn',
    };
    try {
      const progress: number[] = [];
      for (let kill = 0; kill < 5; kill++) {
        const child = spawnIndexerChild(env);
        await child.waitForLine('STARTED');
        await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 700)));
        child.proc.kill('SIGKILL');
        const { signal } = await child.exited;
        expect(signal).toBe('SIGKILL');
        progress.push((await store.queries.counts()).totalSignatures);
        if ((await store.getState(STATE_KEYS.backfillDone)) !== undefined) break;
      }
      // Each restart resumed (progress never went back) and at least two kills hit mid-backfill.
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.filter((n) => n > 0 && n < txs.length).length).toBeGreaterThanOrEqual(2);

      const last = spawnIndexerChild(env);
      await last.waitForLine('DONE', 50_000);
      expect((await last.exited).code).toBe(0);

      expect(await storedEventLines(store, poolsOf(fixture.events))).toEqual(expectedEventLines(fixture.events));
      const counts = await store.queries.counts();
      expect(counts.totalSignatures).toBe(txs.length);
      expect(counts.totalGames).toBe(fixture.events.filter((e) => e.name === 'GameSettled').length);
      expect(counts.totalPoolChanges).toBe(fixture.events.filter((e) => e.name === 'PoolChange').length);
    } finally {
      await store.close();
      await ledger.close();
    }
  });
});
