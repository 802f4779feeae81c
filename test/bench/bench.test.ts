import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createStore } from '../../src/store/index.js';

const run = promisify(execFile);

/**
 * Smoke test of `npm run bench` on a tiny dataset (one operation, no ingest/simulator phases):
 * the harness builds the dataset through the write path, runs the API server child, the
 * "API under ingest" phase (whose indexer writes into a copy, never the cached dataset) and the
 * "noisy neighbour" phase, and its JSON agrees with the store it built. Figures are not
 * asserted (no timed assertions).
 */
describe('npm run bench (smoke)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamba-bench-smoke-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds a tiny dataset, measures one operation and writes a JSON result that matches the store', async () => {
    const env = { ...process.env, BENCH_DATA_DIR: join(dir, 'data'), BENCH_RESULTS_DIR: join(dir, 'results') };
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'bench/run.ts', '--games', '3000', '--op', 'player', '--requests', '5', '--duration', '1', '--soak', '0', '--under-ingest-games', '2000', '--skip', 'ingest,simulator,sources,freshness'],
      { env, timeout: 240_000, maxBuffer: 1 << 22 },
    );
    expect(stdout).toMatch(/\| player \| [\d.]+ \| [\d.]+ \| [\d,]+ \|/);
    const files = readdirSync(join(dir, 'results')).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const r = JSON.parse(readFileSync(join(dir, 'results', files[0]!), 'utf8'));
    expect(r.operations.map((o: { name: string }) => o.name)).toEqual(['player', 'player token']);
    // The API server children ran the compiled CLI over dist/, as `npm start` does.
    expect(r.apiRuntime).toBe('dist');
    expect(stdout).toContain('API server children: the compiled CLI');
    // The dataset file was read into the OS page cache before measuring, and the header says so.
    expect(r.dataset.pageCache).toBe('read');
    expect(stdout).toContain('Read once into the OS page cache before measuring.');
    expect(r.operations[0].uncached.requests).toBe(5);
    // Every sampled user has games: /player answers 200 for all of them.
    expect(r.operations[0].uncached.non2xx).toBe(0);
    expect(r.operations[0].cached.reqPerSec).toBeGreaterThan(0);
    expect(r.hello.reqPerSec).toBeGreaterThan(0);
    // The key-isolation phase measured key B alone and during another key's flood, every answer 2xx.
    expect(r.isolation.alone.requests).toBe(5);
    expect(r.isolation.duringFlood.requests).toBe(5);
    expect(r.isolation.alone.non2xx + r.isolation.duringFlood.non2xx).toBe(0);
    // "% of hello" is against the hello-world run made right before that operation's run.
    const c0 = r.operations[0].cached;
    expect(c0.helloReqPerSec).toBeGreaterThan(0);
    expect(c0.percentOfHello).toBe(Math.round((100 * c0.reqPerSec) / c0.helloReqPerSec));
    // API under ingest: the same operations idle and while `serve`'s indexer backfilled its chain.
    expect(stdout).toMatch(/\| player \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \d+ \| ([✓✗]|ended) \|/);
    expect(r.underIngest.store).toBe('sqlite');
    expect(r.underIngest.rows.map((x: { name: string }) => x.name)).toEqual(['player', 'player token']);
    // Rounds of 5 requests per row: idle ones, then as many under ingest unless the backfill ended
    // first (then every row the same number, the last round's rows after the end); every commit seen is some row's.
    expect(r.underIngest.rounds).toBeGreaterThanOrEqual(1);
    for (const row of r.underIngest.rows) {
      expect(row.idle.requests).toBe(5 * r.underIngest.rounds);
      expect(row.underIngest.requests % 5).toBe(0);
      expect(row.underIngest.requests).toBeGreaterThan(0);
      expect(row.underIngest.requests).toBeLessThanOrEqual(row.idle.requests);
    }
    expect(r.underIngest.rows.reduce((s: number, x: { commits: number }) => s + x.commits, 0)).toBe(r.underIngest.commits);
    // Writes beside the tails: every request under ingest is classed, each row has at least one
    // request at or above its p99, and every commit counted above is one of the writes seen.
    const w = r.underIngest.writes;
    expect(w.requests).toBe(r.underIngest.rows.reduce((s: number, x: { underIngest: { requests: number } }) => s + x.underIngest.requests, 0));
    expect(w.tails).toBeGreaterThanOrEqual(r.underIngest.rows.length);
    expect(w.tails).toBeLessThanOrEqual(w.requests);
    expect(w.tailsBesideWrite).toBeLessThanOrEqual(w.tails);
    expect(w.requestsBesideWrite).toBeGreaterThanOrEqual(w.tailsBesideWrite);
    expect(w.requestsBesideWrite).toBeLessThanOrEqual(w.requests);
    expect(w.writes).toBeGreaterThanOrEqual(r.underIngest.commits);
    expect(stdout).toContain(`had a write at most 500 ms before them or while they were answered, against ${w.requestsBesideWrite} of all ${w.requests} requests`);
    expect(r.underIngest.chainGames).toBe(2000);
    expect(r.underIngest.gamesIngested).toBeGreaterThan(1000);
    // Noisy neighbour: key B's three operations, alone and beside key A's load.
    expect(r.noisyNeighbour.rows.map((x: { name: string }) => x.name)).toEqual(['stats', 'player', 'settledGames']);
    for (const row of r.noisyNeighbour.rows) expect([row.alone.requests, row.withNeighbour.requests]).toEqual([5, 5]);
    expect(r.noisyNeighbour.aOperations).toHaveLength(3);
    expect(r.noisyNeighbour.aReqPerSec).toBeGreaterThan(0);
    // The dataset's own count equals what the store holds (games written through writeBatch; the
    // under-ingest phase's indexer wrote into a copy).
    const db = readdirSync(join(dir, 'data')).find((f) => f.endsWith('.db'))!;
    const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'data', db) } });
    try {
      const c = await store.queries.counts();
      expect(c.totalGames).toBe(r.dataset.games);
      expect(c.totalGames).toBeGreaterThan(2000);
      expect(c.unpricedGames).toBe(0);
    } finally {
      await store.close();
    }
  }, 300_000);
});
