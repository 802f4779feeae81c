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
 * the harness builds the dataset through the write path, runs the API server child, and its
 * JSON agrees with the store it built. Figures are not asserted (no timed assertions).
 */
describe('npm run bench (smoke)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamba-bench-smoke-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds a tiny dataset, measures one operation and writes a JSON result that matches the store', async () => {
    const env = { ...process.env, BENCH_DATA_DIR: join(dir, 'data'), BENCH_RESULTS_DIR: join(dir, 'results') };
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'bench/run.ts', '--games', '3000', '--op', 'player', '--requests', '5', '--duration', '1', '--soak', '0', '--skip', 'ingest,simulator'],
      { env, timeout: 150_000, maxBuffer: 1 << 22 },
    );
    expect(stdout).toMatch(/\| player \| [\d.]+ \| [\d.]+ \| [\d,]+ \|/);
    const files = readdirSync(join(dir, 'results')).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const r = JSON.parse(readFileSync(join(dir, 'results', files[0]!), 'utf8'));
    expect(r.operations.map((o: { name: string }) => o.name)).toEqual(['player', 'player token']);
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
    // The dataset's own count equals what the store holds (games written through writeBatch).
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
  }, 180_000);
});
