/**
 * Which server-backed suites this test run can run (vitest.config.ts; README "Development").
 * The SQLite suite needs nothing. The `postgres` project needs a PostgreSQL server, and its
 * test/scaleout also a Redis server and the `redis-server` binary. Each server is probed once,
 * with a short connect timeout, before any test starts:
 * - answering → its suites run;
 * - not answering, on a laptop → its suites are left out and the run ends with ONE line saying
 *   what was skipped and how to enable it;
 * - not answering, when required → the run fails before any test starts, naming the server. The
 *   servers are required when `CI` is set (CI runs both backends, .ci/run), or when the user
 *   named them (`TEST_DATABASE_URL`, `TEST_REDIS_URL`). `TEST_SERVICES=required|optional`
 *   overrides that choice.
 * `TEST_DIALECTS=sqlite` leaves the PostgreSQL suites out without probing (and without a line).
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { Redis } from 'ioredis';

/** A database every fresh PostgreSQL install has (tests work in schemas they create and drop). */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_TEST_REDIS_URL = 'redis://127.0.0.1:6379';
/** Connect timeout of each probe, ms: a server on this machine answers in a few ms. */
export const PROBE_TIMEOUT_MS = 2_000;

export interface ServicePlan {
  postgresUrl: string;
  redisUrl: string;
  /** Run the `postgres` project (contract, e2e, ingest and store tests on PostgreSQL). */
  postgres: boolean;
  /** Run test/scaleout (PostgreSQL, Redis and a private redis-server). */
  scaleout: boolean;
  /** The one line telling what was skipped and how to enable it; null when nothing was. */
  notice: string | null;
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

function reason(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return reason(err.errors[0]);
  const e = err as { code?: string; message?: string };
  return e?.message || e?.code || String(err);
}

/** null when PostgreSQL at `url` answers `select 1`, else why not. */
export async function probePostgres(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (err) {
    return reason(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** null when Redis at `url` answers PING, else why not. No retries, no queued commands. */
export async function probeRedis(url: string): Promise<string | null> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: PROBE_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  let last: unknown;
  redis.on('error', (err) => (last = err));
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG' ? null : 'PING did not answer PONG';
  } catch (err) {
    return reason(last ?? err);
  } finally {
    redis.disconnect();
  }
}

/** null when `redis-server` (test/scaleout starts private ones) runs, else why not. */
export function probeRedisServerBinary(): string | null {
  const r = spawnSync('redis-server', ['--version'], { stdio: 'ignore', timeout: PROBE_TIMEOUT_MS });
  if (r.error) return `redis-server is not on PATH (${reason(r.error)})`;
  return r.status === 0 ? null : `redis-server --version exited with ${r.status}`;
}

/**
 * Decides what runs from the environment (`TEST_DIALECTS`, `TEST_DATABASE_URL`, `TEST_REDIS_URL`,
 * `TEST_SERVICES`, `CI`), probing the servers as needed; `defaults` are the URLs used when the
 * environment names none (tests point them at closed ports to play a laptop without servers).
 * Throws when a required server does not answer, with a message naming each one and why.
 */
export async function planServices(
  env: NodeJS.ProcessEnv = process.env,
  defaults: { postgresUrl: string; redisUrl: string } = { postgresUrl: DEFAULT_TEST_DATABASE_URL, redisUrl: DEFAULT_TEST_REDIS_URL },
): Promise<ServicePlan> {
  const postgresUrl = env.TEST_DATABASE_URL || defaults.postgresUrl;
  const redisUrl = env.TEST_REDIS_URL || defaults.redisUrl;
  const dialects = (env.TEST_DIALECTS ?? 'sqlite,postgres').split(',').map((s) => s.trim());
  if (!dialects.includes('postgres')) return { postgresUrl, redisUrl, postgres: false, scaleout: false, notice: null };

  const mode = env.TEST_SERVICES;
  if (mode !== undefined && mode !== '' && mode !== 'required' && mode !== 'optional') {
    throw new Error(`TEST_SERVICES="${mode}" is invalid: must be required or optional`);
  }
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  const required = mode ? mode === 'required' : ci || !!env.TEST_DATABASE_URL || !!env.TEST_REDIS_URL;

  const [pgDown, redisDown] = await Promise.all([probePostgres(postgresUrl), probeRedis(redisUrl)]);
  const binaryMissing = probeRedisServerBinary();
  const down: string[] = [];
  if (pgDown) down.push(`PostgreSQL at ${redactUrl(postgresUrl)}: ${pgDown}`);
  if (redisDown) down.push(`Redis at ${redactUrl(redisUrl)}: ${redisDown}`);
  if (binaryMissing) down.push(binaryMissing);

  if (down.length > 0 && required) {
    const why = mode === 'required' ? 'TEST_SERVICES=required' : ci ? 'CI is set' : 'TEST_DATABASE_URL/TEST_REDIS_URL name them';
    throw new Error(
      `The PostgreSQL/Redis test suites cannot run (${why}):\n  - ${down.join('\n  - ')}\n` +
        'Start the servers (or fix the URLs), or run without them: TEST_DIALECTS=sqlite npm test',
    );
  }
  const postgres = !pgDown;
  const scaleout = postgres && !redisDown && !binaryMissing;
  let notice: string | null = null;
  if (!postgres) {
    notice =
      `Skipped the PostgreSQL and Redis suites (project postgres, test/scaleout): ${down.join('; ')}. ` +
      'To run them, start the servers or set TEST_DATABASE_URL=postgres://… TEST_REDIS_URL=redis://… (TEST_DIALECTS=sqlite skips them silently).';
  } else if (!scaleout) {
    notice = `Skipped test/scaleout: ${down.join('; ')}. To run it, start Redis (and put redis-server on PATH) or set TEST_REDIS_URL=redis://….`;
  }
  return { postgresUrl, redisUrl, postgres, scaleout, notice };
}
