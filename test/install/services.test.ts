/**
 * `npm test` anywhere (README "Development", test/helpers/services.ts): without PostgreSQL and
 * Redis the SQLite suite runs and the run ends with one line naming what was skipped and how to
 * enable it; when the servers are required (CI, or their URLs given) and do not answer, the run
 * fails at once. Servers "not there" are closed ports on this machine; vitest runs as a child
 * process, as `npm test` would.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { DEFAULT_TEST_DATABASE_URL, planServices, probePostgres } from '../helpers/services.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
/** A store test file that both projects include: it shows which projects ran. */
const BOTH_PROJECTS_FILE = 'test/store/migrations.test.ts';

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function closedUrls(): Promise<{ postgresUrl: string; redisUrl: string }> {
  return { postgresUrl: `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`, redisUrl: `redis://127.0.0.1:${await closedPort()}` };
}

/** Runs vitest on `files` with this environment, less this run's own vitest and TEST_* variables. */
function vitest(files: string[], extra: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; ms: number }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VITEST|TEST_)/.test(k) && k !== 'CI' && k !== 'NODE_ENV') env[k] = v;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run', ...files], { cwd: ROOT, env: { ...env, ...extra, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += String(c)));
    child.stderr.on('data', (c) => (out += String(c)));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, ms: Date.now() - started }));
  });
}

/** Whether this machine's PostgreSQL (the one the postgres project would use) answers. */
const machinePostgresUp = (await probePostgres(process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL)) === null;

const skipLines = (out: string) => out.split('\n').filter((l) => l.startsWith('Skipped '));

describe('npm test without PostgreSQL and Redis', () => {
  test('the SQLite suite runs, the server suites are skipped with one line saying how to enable them', async () => {
    const { postgresUrl, redisUrl } = await closedUrls();
    const r = await vitest([BOTH_PROJECTS_FILE], { TEST_SERVICES: 'optional', TEST_DATABASE_URL: postgresUrl, TEST_REDIS_URL: redisUrl });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(new RegExp(`\\|sqlite\\| ${BOTH_PROJECTS_FILE}`));
    expect(r.out).not.toContain('|postgres|');
    const lines = skipLines(r.out);
    expect(lines, r.out).toHaveLength(1);
    expect(lines[0]).toContain(postgresUrl);
    expect(lines[0]).toContain(redisUrl);
    expect(lines[0]).toMatch(/TEST_DATABASE_URL=postgres:\/\/… TEST_REDIS_URL=redis:\/\/…/);
    // Refused connections are noticed at once: nothing waits out a test or hook timeout (60 s).
    expect(r.ms).toBeLessThan(60_000);
  }, 120_000);

  test('under CI=true an unreachable PostgreSQL fails the run before any test, naming the server', async () => {
    const { postgresUrl, redisUrl } = await closedUrls();
    const r = await vitest([BOTH_PROJECTS_FILE], { CI: 'true', TEST_DATABASE_URL: postgresUrl, TEST_REDIS_URL: redisUrl });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('The PostgreSQL/Redis test suites cannot run (CI is set)');
    expect(r.out).toContain(`PostgreSQL at ${postgresUrl}: connect ECONNREFUSED`);
    expect(r.out).not.toContain(`|sqlite| ${BOTH_PROJECTS_FILE}`);
    expect(skipLines(r.out)).toEqual([]);
  }, 120_000);
});

describe('planServices decides what runs', () => {
  test('a laptop (no CI, no URLs given) with no servers: skip the server suites with a notice', async () => {
    const plan = await planServices({}, await closedUrls());
    expect(plan).toMatchObject({ postgres: false, scaleout: false });
    expect(plan.notice).toMatch(/^Skipped the PostgreSQL and Redis suites/);
  });

  test.each([
    ['CI=true', { CI: 'true' }],
    ['TEST_SERVICES=required', { TEST_SERVICES: 'required' }],
  ])('%s with no servers: fail, naming both', async (_name, env) => {
    const urls = await closedUrls();
    await expect(planServices(env, urls)).rejects.toThrow(new RegExp(`PostgreSQL at ${urls.postgresUrl}.*\\n.*Redis at ${urls.redisUrl}`));
  });

  test('a URL given explicitly makes its server required', async () => {
    const urls = await closedUrls();
    await expect(planServices({ TEST_REDIS_URL: urls.redisUrl }, urls)).rejects.toThrow(/TEST_DATABASE_URL\/TEST_REDIS_URL name them/);
  });

  test('TEST_DIALECTS=sqlite probes nothing and says nothing, even under CI', async () => {
    const plan = await planServices({ TEST_DIALECTS: 'sqlite', CI: 'true' }, await closedUrls());
    expect(plan).toMatchObject({ postgres: false, scaleout: false, notice: null });
  });

  test('CI=false and CI=0 are not CI', async () => {
    for (const CI of ['false', '0']) expect((await planServices({ CI }, await closedUrls())).postgres).toBe(false);
  });

  test('a bad TEST_SERVICES value is an error naming the rule', async () => {
    await expect(planServices({ TEST_SERVICES: 'maybe' }, await closedUrls())).rejects.toThrow('TEST_SERVICES="maybe" is invalid: must be required or optional');
  });

  // Needs the machine's PostgreSQL; on a laptop without it there is nothing to split.
  test.runIf(machinePostgresUp)(
    'PostgreSQL up and Redis down: the postgres project runs, test/scaleout is skipped with its own notice',
    async () => {
      const { redisUrl } = await closedUrls();
      const plan = await planServices({ TEST_SERVICES: 'optional', TEST_REDIS_URL: redisUrl, ...(process.env.TEST_DATABASE_URL ? { TEST_DATABASE_URL: process.env.TEST_DATABASE_URL } : {}) });
      expect(plan).toMatchObject({ postgres: true, scaleout: false });
      expect(plan.notice).toMatch(new RegExp(`^Skipped test/scaleout: Redis at ${redisUrl}`));
    },
  );
});
