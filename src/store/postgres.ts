import { PostgresDialect, Kysely, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { breaksConnection } from './driver-errors.js';

/** Connections of one store's pool: the API's store slots on PostgreSQL (docs/hardening.md "Per-key share"). */
export const POSTGRES_POOL_SIZE = 10;

/** Connect wait of a read-write store (the indexer's, the CLI's), ms: an unreachable server is an error, not a hang. */
const WRITER_CONNECT_TIMEOUT_MS = 5000;

/** TCP keep-alive probes start after this idle time, ms: a peer that vanished (host down, network cut) is noticed. */
const KEEPALIVE_DELAY_MS = 10_000;

/** Options of openPostgres: where to connect, the schema, and a read-only store's deadline and session mode. */
export interface PostgresOptions {
  url: string;
  schema: string | undefined;
  /**
   * Read-only stores: the store deadline, ms. Sets the server's `statement_timeout`, the client's
   * `query_timeout` (a server that stopped answering) and the connect wait (docs/hardening.md "Store deadline").
   */
  timeoutMs?: number;
  /** Read-only sessions (`default_transaction_read_only`): a write statement fails on the server too. */
  readonly?: boolean;
}

/**
 * A pool of PostgreSQL connections behind Kysely. A connection whose query failed in a way that
 * leaves it unusable (breaksConnection: a client-side timeout while the server is silent, a
 * reset) is destroyed on release instead of going back to the pool, so a stall that ends leaves
 * no stuck connection behind.
 */
export function openPostgres(o: PostgresOptions): Kysely<Database> {
  // search_path (and read-only sessions) as startup options, so every pooled connection has them from its first query.
  const settings = [...(o.schema ? [`-c search_path=${o.schema.replace(/[^A-Za-z0-9_]/g, '')}`] : []), ...(o.readonly ? ['-c default_transaction_read_only=on'] : [])];
  const options = settings.length > 0 ? settings.join(' ') : undefined;
  const timeouts =
    o.timeoutMs === undefined
      ? { connectionTimeoutMillis: WRITER_CONNECT_TIMEOUT_MS }
      : // The server cancels a slow read itself (57014, connection kept); the client gives up a little later when the server says nothing at all.
        { connectionTimeoutMillis: o.timeoutMs, statement_timeout: o.timeoutMs, query_timeout: o.timeoutMs + 1000 };
  const pool = new pg.Pool({
    connectionString: o.url,
    max: POSTGRES_POOL_SIZE,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...timeouts,
    ...(options ? { options } : {}),
  });
  // An idle client whose server went away emits 'error' on the pool; unhandled, it would crash
  // the process. The next query gets a fresh connection (or fails → 503), so nothing to do here.
  pool.on('error', () => undefined);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: discardingBroken(pool) }) });
}

function discardingBroken(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken: Error | undefined;
      return {
        query: ((...args: unknown[]) => {
          const result = (client.query as (...a: unknown[]) => unknown)(...args);
          if (result instanceof Promise) {
            return result.catch((err: unknown) => {
              if (breaksConnection(err)) broken = err instanceof Error ? err : new Error(String(err));
              throw err;
            });
          }
          return result; // a cursor (streaming), not used by our queries
        }) as PostgresPoolClient['query'],
        // release(err) removes the client from the pool and closes its socket (pg-pool).
        release: () => client.release(broken),
      };
    },
    end: () => pool.end(),
  };
}
