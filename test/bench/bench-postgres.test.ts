import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl, testStore } from '../helpers/store.js';

const run = promisify(execFile);

/** An unusual dataset size, so the run's schema (`bench_<games>_…`) is told from any other. */
const GAMES = 2113;

/**
 * Smoke test of `npm run bench --store postgres` with only the "API under ingest" phase: the
 * dataset is built in a schema of its own, the phase measures the operation idle and while
 * `serve`'s indexer backfills its chain into that schema (no copy, no `data_version`), and the
 * schema is dropped at the end. Figures are not asserted (no timed assertions).
 */
describe.skipIf(testStore() !== 'postgres')('npm run bench --store postgres (smoke)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamba-bench-pg-smoke-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('measures the API under ingest on the run\'s own schema and drops it afterwards', async () => {
    const env = { ...process.env, DATABASE_URL: testDatabaseUrl(), BENCH_RESULTS_DIR: join(dir, 'results') };
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'bench/run.ts', '--store', 'postgres', '--games', String(GAMES), '--op', 'player', '--requests', '5', '--under-ingest-games', '2000', '--skip', 'api,isolation,neighbour,ingest,simulator,sources,freshness'],
      { env, timeout: 280_000, maxBuffer: 1 << 22 },
    );
    const files = readdirSync(join(dir, 'results')).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const r = JSON.parse(readFileSync(join(dir, 'results', files[0]!), 'utf8'));
    expect(r.dataset.store).toBe('postgres');
    const u = r.underIngest;
    expect(u.store).toBe('postgres');
    expect(u.writes).toBeNull();
    expect(stdout).toContain("into the dataset's schema (after the other phases)");
    expect(stdout).not.toContain('Writes beside the tails');
    expect(u.rows.map((x: { name: string }) => x.name)).toEqual(['player', 'player token']);
    expect(u.rounds).toBeGreaterThanOrEqual(1);
    for (const row of u.rows) {
      expect(row.idle.requests).toBe(5 * u.rounds);
      expect(row.underIngest.requests % 5).toBe(0);
      expect(row.underIngest.requests).toBeGreaterThan(0);
    }
    expect(u.rows.reduce((s: number, x: { commits: number }) => s + x.commits, 0)).toBe(u.commits);
    // The indexer wrote into the dataset's schema: the chain's games on top of the dataset's.
    expect(u.gamesIngested).toBeGreaterThan(1000);
    // The run's schema is gone.
    const client = new pg.Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    try {
      const left = await client.query(`select schema_name from information_schema.schemata where schema_name like 'bench\\_${GAMES}\\_%'`);
      expect(left.rows).toEqual([]);
    } finally {
      await client.end();
    }
  }, 300_000);
});
