import pg from 'pg';
import { sleep, type Common } from '../core/index.js';

/**
 * The leader lock: the store owns this driver connection as it owns its others. Exactly one active indexer per PostgreSQL database and schema (docs/deployment.md, docs/design.md §1): the
 * leader holds a session-level advisory lock on a dedicated connection. PostgreSQL releases
 * it when that session ends — the process exits or is killed (the kernel closes its socket),
 * or the server drops the connection — so a standby polling `pg_try_advisory_lock` takes
 * over within one poll interval. SQLite needs none of this: one process owns the file.
 */
export interface LeaderLockOptions {
  common: Common;
  /** The primary's connection URL (DATABASE_URL without `schema=`). */
  url: string;
  /** The store's schema: one leader per schema (default `public`). */
  schema?: string;
  /** Standby poll interval, ms (default 3000: takeover well within docs/deployment.md's 15 s). */
  pollIntervalMs?: number;
  /** Leader's liveness check of its lock connection, ms (default 5000). */
  heartbeatMs?: number;
}

/** The leader lock of one database and schema (createLeaderLock). */
export interface LeaderLock {
  /**
   * Resolves once this process holds the lock; polls every `pollIntervalMs` meanwhile
   * (connection errors are logged and retried). Rejects when `signal` aborts (its reason, or AppError ABORTED while waiting between polls).
   */
  acquire(signal: AbortSignal): Promise<Leadership>;
}

/** The lock, held: lost when its connection fails, released by the holder. */
export interface Leadership {
  /** Resolves (with the reason) when the lock connection is lost: stop writing at once. */
  readonly lost: Promise<Error>;
  /** Unlocks and closes the lock connection (idempotent). */
  release(): Promise<void>;
}

/** The lock's name: per schema, so test schemas (and tenants) in one database don't collide. */
export function leaderLockName(schema: string | undefined): string {
  return `gamba-analytics:indexer:${schema ?? 'public'}`;
}

/**
 * A leader lock on PostgreSQL (a session-level advisory lock, PostgreSQL documentation "Advisory
 * Locks") on its own connection; nothing connects until `acquire`.
 */
export function createLeaderLock(o: LeaderLockOptions): LeaderLock {
  const { logger } = o.common;
  const pollIntervalMs = o.pollIntervalMs ?? 3000;
  const heartbeatMs = o.heartbeatMs ?? 5000;
  const lockName = leaderLockName(o.schema);

  function connect(): pg.Client {
    // keepAlive: a vanished peer is noticed by TCP too, not only by the heartbeat.
    return new pg.Client({ connectionString: o.url, keepAlive: true, connectionTimeoutMillis: 5000, query_timeout: Math.max(2000, heartbeatMs) });
  }

  async function tryLock(client: pg.Client): Promise<boolean> {
    // hashtextextended: the 64-bit key of the lock's name (PostgreSQL ≥ 11).
    const r = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as ok', [lockName]);
    return r.rows[0]?.ok === true;
  }

  function hold(client: pg.Client): Leadership {
    let released = false;
    let signalLost!: (err: Error) => void;
    const lost = new Promise<Error>((resolve) => (signalLost = resolve));
    const onLost = (err: Error) => {
      if (released) return;
      released = true;
      clearInterval(timer);
      logger.error({ err }, 'indexer leadership lost (lock connection failed): stopping writes');
      client.end().catch(() => undefined);
      signalLost(err);
    };
    client.on('error', onLost);
    client.on('end', () => onLost(new Error('lock connection closed')));
    const timer = setInterval(() => {
      client.query('select 1').catch((err: Error) => onLost(err));
    }, heartbeatMs);
    timer.unref();
    return {
      lost,
      async release() {
        if (released) return;
        released = true;
        clearInterval(timer);
        await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [lockName]).catch(() => undefined);
        await client.end().catch(() => undefined);
      },
    };
  }

  return {
    async acquire(signal) {
      let client: pg.Client | undefined;
      let announced = false;
      for (;;) {
        signal.throwIfAborted();
        try {
          if (!client) {
            client = connect();
            // Until it holds the lock an error only means "reconnect on the next poll".
            client.on('error', () => undefined);
            await client.connect();
          }
          if (await tryLock(client)) {
            client.removeAllListeners('error');
            logger.info({ lock: lockName }, 'indexer leadership acquired');
            return hold(client);
          }
          if (!announced) logger.info({ lock: lockName, poll_ms: pollIntervalMs }, 'indexer on standby: another process holds the leader lock');
          announced = true;
        } catch (err) {
          logger.warn({ err, lock: lockName }, 'leader election: cannot reach PostgreSQL; retrying');
          await client?.end().catch(() => undefined);
          client = undefined;
        }
        try {
          await sleep(pollIntervalMs, signal);
        } catch (err) {
          await client?.end().catch(() => undefined);
          throw err;
        }
      }
    },
  };
}
