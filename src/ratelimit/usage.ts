import type { Redis } from 'ioredis';
import { AppError, MS_PER_DAY, type Logger } from '../core/index.js';

/**
 * Requests per key per operation per UTC day, for `GET /usage` (docs/design.md §4 "Usage"). A
 * count is a side record: `count` never throws nor waits; `read` answers the key's counts of
 * the UTC day containing `nowMs`, by operation id (`getPlayers`, `postSync`, …).
 */
export interface UsageCounter {
  /** Adds one request of `operation` by key `keyId` on the UTC day of `nowMs` (Unix ms). Errors are logged, never thrown. */
  count(keyId: string, operation: string, nowMs: number): void;
  /** The key's counts by operation on the UTC day of `nowMs`. Rejects with AppError SERVICE_UNAVAILABLE when Redis cannot be read. */
  read(keyId: string, nowMs: number): Promise<Record<string, number>>;
}

/** The UTC day of a Unix ms time, `YYYY-MM-DD` (the counters' day; they roll over at 00:00 UTC). */
export function utcDay(nowMs: number): string {
  // Once per day, not per request: every counted request asks (docs/benchmarks.md, cached throughput).
  const n = Math.floor(nowMs / MS_PER_DAY);
  if (n !== lastDay.n) lastDay = { n, text: new Date(nowMs).toISOString().slice(0, 10) };
  return lastDay.text;
}
let lastDay = { n: Number.NaN, text: '' };

/**
 * Counts in this process's memory (the default without REDIS_URL). Limits (docs/design.md §4
 * "Usage"): one count per process — with `serve --workers N` each worker counts the requests it
 * answered, so /usage shows one worker's share; counts are lost on restart; only today's counts are
 * kept (yesterday's go at the first count after midnight UTC); at most `maxKeys` keys per day are
 * tracked (default 100 000; later keys are not counted that day).
 */
export function createMemoryUsageCounter(opts: { maxKeys?: number } = {}): UsageCounter {
  const maxKeys = opts.maxKeys ?? 100_000;
  let day = '';
  let byKey = new Map<string, Map<string, number>>();
  return {
    count(keyId, operation, nowMs) {
      const d = utcDay(nowMs);
      if (d !== day) {
        if (d < day) return; // a clock stepping back does not reopen a finished day
        day = d;
        byKey = new Map();
      }
      let ops = byKey.get(keyId);
      if (ops === undefined) {
        if (byKey.size >= maxKeys) return;
        ops = new Map();
        byKey.set(keyId, ops);
      }
      ops.set(operation, (ops.get(operation) ?? 0) + 1);
    },
    async read(keyId, nowMs) {
      const ops = utcDay(nowMs) === day ? byKey.get(keyId) : undefined;
      return ops === undefined ? {} : Object.fromEntries(ops);
    },
  };
}

/** Seconds a day's Redis hash is kept: two days, so the whole UTC day stays readable in every time zone's "today". */
const REDIS_USAGE_TTL_S = 2 * 86_400;

/**
 * Counts in Redis (with REDIS_URL; shared by every API process): one hash per key and UTC day,
 * `<prefix>usage:<YYYY-MM-DD>:<keyId>`, field = operation id, HINCRBY per request (not awaited
 * by the request), expiring after two days. A failed count is logged once per outage and lost.
 */
export function createRedisUsageCounter(deps: { client: Redis; keyPrefix?: string; logger?: Logger }): UsageCounter {
  const { client, logger } = deps;
  const prefix = deps.keyPrefix ?? 'gamba:rl:';
  let failing = false;
  const keyOf = (keyId: string, nowMs: number) => `${prefix}usage:${utcDay(nowMs)}:${keyId}`;
  return {
    count(keyId, operation, nowMs) {
      const k = keyOf(keyId, nowMs);
      client
        .multi()
        .hincrby(k, operation, 1)
        .expire(k, REDIS_USAGE_TTL_S)
        .exec()
        .then(
          () => {
            failing = false;
          },
          (err: unknown) => {
            if (!failing) logger?.warn({ err }, 'usage counter: Redis call failed; counts are lost meanwhile');
            failing = true;
          },
        );
    },
    async read(keyId, nowMs) {
      let raw: Record<string, string>;
      try {
        raw = await client.hgetall(keyOf(keyId, nowMs));
      } catch (err) {
        throw new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable: the usage counter cannot reach Redis', { retryable: true, cause: err });
      }
      return Object.fromEntries(Object.entries(raw).map(([op, n]) => [op, Number(n)]));
    },
  };
}
