import { defineConfig } from 'vitest/config';

/**
 * The suite runs once per store backend (docs/deployment.md): project `sqlite` runs every test on SQLite;
 * project `postgres` runs the contract, end-to-end, ingest and store tests again with
 * TEST_STORE=postgres, each test run in a fresh schema it creates and drops
 * (test/helpers/store.ts), against TEST_DATABASE_URL (default the local `test` database).
 * test/scaleout needs PostgreSQL and Redis, so it runs in the `postgres` project only.
 * `TEST_DIALECTS=sqlite npm test` (no PostgreSQL/Redis at hand) leaves the second project out.
 */
const dialects = (process.env.TEST_DIALECTS ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const postgresUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    projects: [
      ...(dialects.includes('sqlite')
        ? [{ extends: true as const, test: { name: 'sqlite', include: ['test/**/*.test.ts'], exclude: ['test/scaleout/**'], env: { TEST_STORE: 'sqlite' } } }]
        : []),
      ...(dialects.includes('postgres')
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                // test/scaleout (PostgreSQL + Redis by nature) runs here only.
                include: ['test/contract/**/*.test.ts', 'test/hardening/store-deadline.test.ts', 'test/e2e/**/*.test.ts', 'test/ingest/**/*.test.ts', 'test/store/**/*.test.ts', 'test/scaleout/**/*.test.ts'],
                env: { TEST_STORE: 'postgres', TEST_DATABASE_URL: postgresUrl },
              },
            },
          ]
        : []),
    ],
  },
});
