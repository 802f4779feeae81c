import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import type { Reporter } from 'vitest/reporters';
import { planServices } from './test/helpers/services.js';

/**
 * The suite runs once per store backend (docs/deployment.md): project `sqlite` runs every test on SQLite;
 * project `postgres` runs the contract, end-to-end, ingest and store tests again with
 * TEST_STORE=postgres, each test run in a fresh schema it creates and drops
 * (test/helpers/store.ts), against TEST_DATABASE_URL (default: the `postgres` database on
 * 127.0.0.1:5432). test/scaleout needs PostgreSQL and Redis, so it runs in the `postgres` project only.
 *
 * The servers are probed once, here, with a short timeout (test/helpers/services.ts): suites
 * whose server does not answer are left out with one line at the end of the run, or the run
 * fails at once when they are required (CI, or TEST_DATABASE_URL / TEST_REDIS_URL set).
 * `TEST_DIALECTS=sqlite npm test` leaves the second project out without probing (`TEST_DIALECTS=postgres`, the first).
 */
export default defineConfig(async () => {
  const plan = await planServices();
  // test/dashboard drives Chromium (CHROMIUM_PATH, default Debian's /usr/bin/chromium): without it the
  // suite is left out with one line at the end, except with CI set, where the suite fails loudly.
  const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const ci = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';
  const browserNotice = !existsSync(chromiumPath) && !ci ? `Skipped test/dashboard: no Chromium at ${chromiumPath}. To run it, install chromium (apt-get install chromium) or set CHROMIUM_PATH.` : null;
  const noticeReporter: Reporter = {
    onTestRunEnd() {
      if (plan.notice) process.stdout.write(`\n${plan.notice}\n`);
      if (browserNotice) process.stdout.write(`\n${browserNotice}\n`);
    },
  };
  const sqlite = (process.env.TEST_DIALECTS ?? 'sqlite').split(',').some((d) => d.trim() === 'sqlite');
  const postgresInclude = ['test/contract/**/*.test.ts', 'test/hardening/store-deadline.test.ts', 'test/e2e/**/*.test.ts', 'test/ingest/**/*.test.ts', 'test/store/**/*.test.ts', 'test/bench/bench-postgres.test.ts'];
  // The chain-source suites test the RPC, Helius and Yellowstone sources, whose games reach the
  // store through the same write path as every other end-to-end suite's: once, on SQLite, is enough.
  const postgresExclude = ['test/e2e/sources.test.ts', 'test/e2e/yellowstone.test.ts'];
  return {
    test: {
      pool: 'forks',
      // Three workers even on two cores: most end-to-end files wait on child processes, the
      // simulator and the stores rather than compute, so one worker per spare core (vitest's
      // default) leaves the machine idle. The timeouts allow for the contention this brings.
      maxWorkers: 3,
      minWorkers: 1,
      // The CLI the suites start in child processes, bundled once from the sources (test/helpers/cli-bundle-setup.ts).
      globalSetup: ['test/helpers/cli-bundle-setup.ts'],
      testTimeout: 120_000,
      hookTimeout: 120_000,
      reporters: ['default', noticeReporter],
      projects: [
        ...(sqlite ? [{ extends: true as const, test: { name: 'sqlite', include: ['test/**/*.test.ts'], exclude: ['test/scaleout/**', ...(browserNotice ? ['test/dashboard/**'] : [])], env: { TEST_STORE: 'sqlite' } } }] : []),
        ...(plan.postgres
          ? [
              {
                extends: true as const,
                test: {
                  name: 'postgres',
                  // test/scaleout (PostgreSQL + Redis by nature) runs here only.
                  include: plan.scaleout ? [...postgresInclude, 'test/scaleout/**/*.test.ts'] : postgresInclude,
                  exclude: postgresExclude,
                  env: { TEST_STORE: 'postgres', TEST_DATABASE_URL: plan.postgresUrl, TEST_REDIS_URL: plan.redisUrl },
                },
              },
            ]
          : []),
      ],
    },
  };
});
