import { AppError } from '../core/index.js';

/**
 * The service's configuration: one schema, parsed once from the environment into a frozen
 * typed object (docs/architecture.md "Layout"). CLI flags override env by passing `overrides`.
 * Every bad value fails start-up with a message naming the variable and the rule.
 */

/** Where the store lives: a SQLite file, or PostgreSQL (DATABASE_URL, optional schema and read replica). */
export type StoreConfig =
  | { kind: 'sqlite'; path: string }
  | {
      kind: 'postgres';
      /** Connection URL of the primary (writes, and reads when `readUrl` is unset), without `schema=`. */
      url: string;
      /** `?schema=NAME` of DATABASE_URL: tables live in this schema (created if missing); default `public`. */
      schema?: string;
      /** DATABASE_READ_URL: a read replica for the API's queries (same schema name). */
      readUrl?: string;
    };

/** What the API does for rate-limited routes when Redis cannot be reached (docs/deployment.md). */
export type RedisErrorPolicy = 'closed' | 'open';

/** The parsed, frozen configuration `loadConfig` returns (times in ms unless the name says otherwise). */
export interface Config {
  port: number;
  host: string;
  /** The API's address as its users reach it: the OpenAPI document's `servers` entry (PUBLIC_URL; default http://HOST:PORT). */
  publicUrl: string;
  store: StoreConfig;
  logLevel: string;
  /** Unset → the built-in simulator is started and indexed (demo mode, docs/design.md §1). */
  solanaRpcUrl: string | undefined;
  solanaWsUrl: string | undefined;
  /** How far back the backfill goes, in days (docs/design.md §5; default 365). */
  backfillDays: number;
  /** Max getTransaction requests in flight. */
  rpcConcurrency: number;
  /** Client-side cap on RPC requests per second (batch items count). */
  rpcMaxRps: number;
  /** HISTORY_SOURCE: how the backfill reads history — `rpc` (getSignaturesForAddress + getTransaction) or `helius` (getTransactionsForAddress); docs/indexer.md "Chain sources". */
  historySource: 'rpc' | 'helius';
  /** LIVE_SOURCE: how the tail learns of new transactions — `poll` (getSignaturesForAddress every POLL_INTERVAL_MS) or `yellowstone` (a Yellowstone gRPC stream, polling kept as the safety net). */
  liveSource: 'poll' | 'yellowstone';
  /** YELLOWSTONE_URL: the Yellowstone gRPC endpoint (http:// plaintext, https:// TLS); required with LIVE_SOURCE=yellowstone. */
  yellowstoneUrl: string | undefined;
  /** YELLOWSTONE_TOKEN: the provider's `x-token`. */
  yellowstoneToken: string | undefined;
  /** Live tail poll interval in ms. */
  pollIntervalMs: number;
  /** SYNC_MIN_INTERVAL_MS: minimum time between the starts of two passes triggered by POST /sync (docs/design.md §5). */
  syncMinIntervalMs: number;
  hermesUrl: string;
  pythApiKey: string | undefined;
  jupiterUrl: string;
  jupiterApiKey: string | undefined;
  priceOverridesFile: string | undefined;
  /** REDIS_URL: rate-limit buckets shared by every API process; undefined = in-process buckets. */
  redisUrl: string | undefined;
  /** RATE_LIMIT_ON_REDIS_ERROR: 'closed' (default) answers 503, 'open' lets requests through unlimited. */
  rateLimitOnRedisError: RedisErrorPolicy;
  /** Loopback Prometheus listener; undefined = off (docs/design.md §9). */
  metricsPort: number | undefined;
  /** Response cache TTL in ms (docs/design.md §5: ≤ 30 s). */
  cacheTtlMs: number;
  /** Live streams: heartbeat comment interval, ms (STREAM_HEARTBEAT_MS; docs/design.md §11). */
  streamHeartbeatMs: number;
  /** Live streams: open streams per API key in one API process (STREAM_MAX_PER_KEY; docs/design.md §11). */
  streamMaxPerKey: number;
  /** STORE_READERS: reader threads of the API's SQLite store (docs/architecture.md "Reader pool"; default 2). */
  storeReaders: number;
  /**
   * STORE_COPIES_MIB: in-memory part copies of the profit leaderboard per reader thread (SQLite) or
   * per API process (PostgreSQL), MiB; 0 turns them off (docs/design.md §7 "Part vectors"; default 24).
   */
  storeCopiesMiB: number;
  /** STORE_TIMEOUT_MS: deadline of one store read by the API and /ready, ms (docs/hardening.md "Store deadline"; default 2000). */
  storeTimeoutMs: number;
}

/** The accepted LOG_LEVEL values (pino's levels). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

function fail(name: string, rule: string, value: string): never {
  throw new AppError('CONFIG_INVALID', `${name}=${JSON.stringify(value)} is invalid: ${rule}`);
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw)) fail(name, `must be an integer between ${min} and ${max}`, raw);
  const n = Number(raw);
  if (n < min || n > max) fail(name, `must be an integer between ${min} and ${max}`, raw);
  return n;
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], def: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!(values as readonly string[]).includes(raw)) fail(name, `must be one of ${values.join(', ')}`, raw);
  return raw as T;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    fail(name, `must be a URL (${protocols.join(', ')})`, raw);
  }
  if (!protocols.includes(u.protocol)) fail(name, `must use one of ${protocols.join(', ')}`, raw);
  return raw;
}

/** PostgreSQL schema names we accept: plain identifiers, so they need no quoting anywhere. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Splits `?schema=NAME` off a postgres:// URL (pg itself would ignore it). */
function splitSchema(name: string, raw: string): { url: string; schema?: string } {
  const u = new URL(raw);
  const schema = u.searchParams.get('schema') ?? undefined;
  if (schema === undefined) return { url: raw };
  if (!SCHEMA_NAME.test(schema)) fail(name, 'schema= must be an identifier (letters, digits, _; not starting with a digit)', raw);
  u.searchParams.delete('schema');
  return { url: u.toString(), schema };
}

/**
 * Parses DATABASE_URL (and DATABASE_READ_URL): unset → ./data/gamba.db; `sqlite:PATH` /
 * `file:PATH` → SQLite; `postgres://…[?schema=NAME]` → PostgreSQL, tables in schema NAME
 * (default `public`). A read URL is only valid with PostgreSQL (one SQLite file has no replica).
 */
export function parseDatabaseUrl(raw: string | undefined, readRaw?: string): StoreConfig {
  const hasRead = readRaw !== undefined && readRaw !== '';
  if (raw === undefined || raw === '' || /^(sqlite|file):/.test(raw)) {
    if (hasRead) fail('DATABASE_READ_URL', 'needs a postgres:// DATABASE_URL', readRaw);
  }
  if (raw === undefined || raw === '') return { kind: 'sqlite', path: './data/gamba.db' };
  const m = /^(sqlite|file):(.+)$/.exec(raw);
  if (m) {
    const path = m[2]!.replace(/^\/\/(?=\/)/, '');
    return { kind: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    const { url, schema } = splitSchema('DATABASE_URL', raw);
    if (!hasRead) return { kind: 'postgres', url, ...(schema ? { schema } : {}) };
    if (!/^postgres(ql)?:\/\//.test(readRaw)) fail('DATABASE_READ_URL', 'must be postgres://…', readRaw);
    // The replica holds the same tables: the primary's schema applies (a schema= on the read URL is ignored).
    const readUrl = splitSchema('DATABASE_READ_URL', readRaw).url;
    return { kind: 'postgres', url, ...(schema ? { schema } : {}), readUrl };
  }
  fail('DATABASE_URL', 'must be sqlite:PATH, file:PATH or postgres://…', raw);
}

/** Reads the configuration from `env` (default process.env). Throws AppError CONFIG_INVALID. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Readonly<Config> {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) fail('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`, logLevel);
  const host = env.HOST || '127.0.0.1';
  const metricsPortRaw = env.METRICS_PORT;
  const port = int(env, 'PORT', 3000, 0, 65535);
  const config: Config = {
    port,
    host,
    publicUrl: (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    store: parseDatabaseUrl(env.DATABASE_URL, env.DATABASE_READ_URL),
    logLevel,
    solanaRpcUrl: url(env, 'SOLANA_RPC_URL', ['http:', 'https:']),
    solanaWsUrl: url(env, 'SOLANA_WS_URL', ['ws:', 'wss:']),
    backfillDays: int(env, 'BACKFILL_DAYS', 365, 1, 3650),
    rpcConcurrency: int(env, 'RPC_CONCURRENCY', 8, 1, 256),
    rpcMaxRps: int(env, 'RPC_MAX_RPS', 50, 1, 100_000),
    historySource: oneOf(env, 'HISTORY_SOURCE', ['rpc', 'helius'] as const, 'rpc'),
    liveSource: oneOf(env, 'LIVE_SOURCE', ['poll', 'yellowstone'] as const, 'poll'),
    yellowstoneUrl: url(env, 'YELLOWSTONE_URL', ['http:', 'https:']),
    yellowstoneToken: env.YELLOWSTONE_TOKEN || undefined,
    pollIntervalMs: int(env, 'POLL_INTERVAL_MS', 2000, 100, 600_000),
    syncMinIntervalMs: int(env, 'SYNC_MIN_INTERVAL_MS', 10_000, 0, 3_600_000),
    hermesUrl: url(env, 'HERMES_URL', ['http:', 'https:']) ?? 'https://hermes.pyth.network',
    pythApiKey: env.PYTH_API_KEY || undefined,
    jupiterUrl: url(env, 'JUPITER_URL', ['http:', 'https:']) ?? 'https://api.jup.ag/price/v3',
    jupiterApiKey: env.JUPITER_API_KEY || undefined,
    priceOverridesFile: env.PRICE_OVERRIDES_FILE || undefined,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    rateLimitOnRedisError: oneOf(env, 'RATE_LIMIT_ON_REDIS_ERROR', ['closed', 'open'] as const, 'closed'),
    metricsPort: metricsPortRaw ? int(env, 'METRICS_PORT', 0, 1, 65535) : undefined,
    cacheTtlMs: int(env, 'CACHE_TTL_MS', 5000, 0, 30_000),
    streamHeartbeatMs: int(env, 'STREAM_HEARTBEAT_MS', 15_000, 1000, 120_000),
    streamMaxPerKey: int(env, 'STREAM_MAX_PER_KEY', 5, 1, 1000),
    storeReaders: int(env, 'STORE_READERS', 2, 1, 64),
    storeCopiesMiB: int(env, 'STORE_COPIES_MIB', 24, 0, 1024),
    storeTimeoutMs: int(env, 'STORE_TIMEOUT_MS', 2000, 100, 600_000),
    ...overrides,
  };
  if (config.liveSource === 'yellowstone' && !config.yellowstoneUrl) fail('LIVE_SOURCE', 'yellowstone needs YELLOWSTONE_URL (the gRPC endpoint)', 'yellowstone');
  return Object.freeze(config);
}
