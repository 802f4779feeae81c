import { Redis, type RedisOptions } from 'ioredis';
import { AppError, systemClock, type Clock, type Logger } from '../core/index.js';
import { type BucketState, UNITS_PER_TOKEN, assertLimits, decide } from './bucket.js';
import type { BucketLimits, RateLimitDecision, RateLimiter } from './types.js';
import { createRedisUsageCounter } from './usage.js';

/**
 * The state transition of src/ratelimit/bucket.ts (`refill`, then take one token) as one
 * atomic Redis script, so every API process shares one budget per bucket (docs/deployment.md). It
 * returns the state it found and the time it used; the caller derives the decision from them
 * with the same `decide` the memory limiter uses, so both answer identically
 * (test/scaleout/redis-limiter.test.ts property-tests the two against that model).
 *
 * KEYS[1] bucket hash {l = level in 1/UNITS_PER_TOKEN tokens, t = updated Unix ms}.
 * ARGV: rpm, burst, take (1|0), now ms ('' = Redis server TIME), units per token.
 * Returns {found (0|1), level, updated, now} as decimal strings (all integers < 2^53).
 * Writes only on take; the key expires when the bucket would be full again (a full bucket
 * equals a missing one).
 */
const SCRIPT = `
local rpm = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local take = ARGV[3] == '1'
local unit = tonumber(ARGV[5])
local now
if ARGV[4] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[4])
end
local capacity = burst * unit
local prev = redis.call('HMGET', KEYS[1], 'l', 't')
local found = prev[1] and prev[2]
local level, updated
if found then
  local pl = tonumber(prev[1])
  local pt = tonumber(prev[2])
  local elapsed = math.max(0, now - pt)
  level = math.min(capacity, math.min(pl, capacity) + elapsed * rpm)
  updated = math.max(now, pt)
else
  level = capacity
  updated = now
end
if take then
  if level >= unit then level = level - unit end
  redis.call('HSET', KEYS[1], 'l', string.format('%.0f', level), 't', string.format('%.0f', updated))
  redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - level) / rpm) + 1000)
end
if found then
  return {1, prev[1], prev[2], string.format('%.0f', now)}
end
return {0, '0', '0', string.format('%.0f', now)}
`;

/** What to do when Redis cannot be reached (RATE_LIMIT_ON_REDIS_ERROR; docs/deployment.md). */
export type RedisErrorPolicy = 'closed' | 'open';

/** What the Redis limiter needs: a Redis URL or client, the clock (default: Redis TIME), timeouts, key prefix and the error policy. */
export interface RedisRateLimiterDeps {
  /** REDIS_URL; a client is created and owned (closed by `close()`). Give `url` or `client`. */
  url?: string;
  /** An existing ioredis client (not closed by `close()`). */
  client?: Redis;
  /**
   * Time source. Default: the Redis server's TIME, read inside the script, so every API
   * process on every host refills against one clock (host clock skew would otherwise hand a
   * fast host extra tokens). Give a clock to control time (tests, ManualClock).
   */
  clock?: Clock;
  /** Prefix of every Redis key (default `gamba:rl:`); bucket ids follow (`key:<id>`, `authfail:<ip>`). */
  keyPrefix?: string;
  /**
   * 'closed' (default): while Redis is unreachable, `consume`/`peek` reject with AppError
   * SERVICE_UNAVAILABLE (the API answers 503) — no traffic goes through unlimited.
   * 'open': they allow the request as if the bucket were full (and log a warning once per outage).
   */
  onError?: RedisErrorPolicy;
  logger?: Logger;
  /** Per-command timeout, ms (default 1000): a hung Redis becomes a fast 503, not a hung request. */
  commandTimeoutMs?: number;
}

/** ioredis options for a limiter's own connection: fail fast while disconnected, reconnect forever. */
export function limiterRedisOptions(commandTimeoutMs: number): RedisOptions {
  return {
    // Commands must not queue while disconnected: a queued request would hang instead of getting its 503.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    // Reconnect forever, at most a second apart, so service resumes soon after Redis returns.
    retryStrategy: (times) => Math.min(times * 100, 1000),
  };
}

type ScriptReply = [number, string, string, string];

/**
 * Token buckets in Redis (docs/design.md §1 scale-out, docs/deployment.md): the same math and answers as
 * `createMemoryRateLimiter`, shared by every process that uses the same Redis and prefix.
 * Throws TypeError at creation without `url` or `client`; connection problems surface per call
 * according to `onError`.
 */
export function createRedisRateLimiter(deps: RedisRateLimiterDeps): RateLimiter {
  if (!deps.client && !deps.url) throw new TypeError('createRedisRateLimiter needs url or client');
  const commandTimeoutMs = deps.commandTimeoutMs ?? 1000;
  const owned = !deps.client;
  const redis = deps.client ?? new Redis(deps.url!, limiterRedisOptions(commandTimeoutMs));
  const prefix = deps.keyPrefix ?? 'gamba:rl:';
  const policy = deps.onError ?? 'closed';
  const { logger, clock } = deps;
  let everReady = redis.status === 'ready';
  let outage = false;

  // Without a listener ioredis reports connection errors on stderr; the state is tracked here instead.
  const onError = (err: Error) => {
    if (!outage) logger?.warn({ err, policy }, 'rate limiter: Redis unreachable');
    outage = true;
  };
  const onReady = () => {
    everReady = true;
    if (outage) logger?.info('rate limiter: Redis reachable again');
    outage = false;
  };
  redis.on('error', onError);
  redis.on('ready', onReady);
  // EVALSHA with a fallback to EVAL on NOSCRIPT (ioredis defineCommand): the script is sent once per server.
  if (!('gambaTokenBucket' in redis)) redis.defineCommand('gambaTokenBucket', { numberOfKeys: 1, lua: SCRIPT });
  const bucketCommand = (redis as unknown as { gambaTokenBucket(...args: (string | number)[]): Promise<ScriptReply> }).gambaTokenBucket.bind(redis);

  /** Right after start-up the first connection may still be opening: wait for it briefly (only then). */
  let firstWait: Promise<void> | undefined;
  function firstConnection(): Promise<void> | undefined {
    if (everReady || redis.status === 'ready') return undefined;
    firstWait ??= new Promise<void>((resolve) => {
      const timer = setTimeout(done, commandTimeoutMs);
      function done() {
        clearTimeout(timer);
        redis.off('ready', done);
        firstWait = undefined;
        resolve();
      }
      redis.once('ready', done);
    });
    return firstWait;
  }

  async function run(bucketId: string, limits: BucketLimits, take: boolean): Promise<RateLimitDecision> {
    assertLimits(limits);
    let reply: ScriptReply;
    try {
      await firstConnection();
      const now = clock ? String(clock.now()) : '';
      reply = await bucketCommand(prefix + bucketId, limits.rpm, limits.burst, take ? 1 : 0, now, UNITS_PER_TOKEN);
    } catch (err) {
      if (!outage) logger?.warn({ err, policy }, 'rate limiter: Redis call failed');
      outage = true;
      // Redis (whose TIME the script would read) is unreachable: the injected clock, else this host's.
      if (policy === 'open') return decide(undefined, limits, (clock ?? systemClock).now(), take).decision;
      throw new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable: the rate limiter cannot reach Redis', { retryable: true, cause: err });
    }
    const [found, level, updated, now] = reply;
    const previous: BucketState | undefined = Number(found) === 1 ? { level: Number(level), updatedMs: Number(updated) } : undefined;
    return decide(previous, limits, Number(now), take).decision;
  }

  return {
    consume: (bucketId, limits) => run(bucketId, limits, true),
    peek: (bucketId, limits) => run(bucketId, limits, false),
    usage: createRedisUsageCounter({ client: redis, keyPrefix: prefix, logger }),
    async close() {
      redis.off('error', onError);
      redis.off('ready', onReady);
      if (owned) {
        // Keep a listener: a late connection error after close must not reach the default handler.
        redis.on('error', () => undefined);
        redis.disconnect();
      }
    },
  };
}
