/**
 * Two indexers on one PostgreSQL database (docs/deployment.md): one leads and writes, the other stands
 * by; the leader is SIGKILLed mid-backfill; the standby takes over within 15 s and the store
 * ends with exactly the simulator's ground-truth events (no loss, no duplicate).
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { leaderLockName } from '../../src/store/index.js';
import { startSimulator } from '../../src/simulator/index.js';
import { groundTruth } from '../helpers/ground-truth.js';
import { setupTestDatabase, testDatabaseUrl } from '../helpers/store.js';
import { expectedEventLines, poolsOf, storedEventLines } from '../helpers/stored.js';
import { waitFor } from '../helpers/indexer-setup.js';
import { spawnProc, type Proc } from '../helpers/scaleout.js';
import { bundledEntry } from '../helpers/cli-bundle.js';

function spawnIndexer(env: Record<string, string>): Proc {
  return spawnProc(process.execPath, bundledEntry('elected-indexer-child'), { ...process.env, ...env });
}

/** Backends holding the schema's leader lock (pg_locks splits the 64-bit key into classid/objid). */
async function lockHolders(schema: string): Promise<number> {
  const c = new pg.Client({ connectionString: testDatabaseUrl() });
  await c.connect();
  try {
    const key = BigInt.asUintN(64, BigInt((await c.query('select hashtextextended($1, 0)::text as k', [leaderLockName(schema)])).rows[0].k));
    const r = await c.query(
      `select count(*)::int as n from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())
         and classid::bigint = $1 and objid::bigint = $2 and objsubid = 1`,
      [String(key >> 32n), String(key & 0xffffffffn)],
    );
    return r.rows[0].n;
  } finally {
    await c.end();
  }
}

describe('leader election (two indexers, one PostgreSQL)', () => {
  it('one writes; SIGKILL the leader mid-backfill; the standby takes over and ends with exactly the ground truth', async () => {
    const sim = await startSimulator({ seed: 606, days: 14, playsPerDay: 150, liveRate: 0 });
    const { store, db } = await setupTestDatabase('postgres');
    const schema = (db.config as { schema: string }).schema;
    const env = {
      SOLANA_RPC_URL: sim.rpcUrl,
      HERMES_URL: sim.hermesUrl,
      JUPITER_URL: sim.jupiterUrl,
      DATABASE_URL: db.databaseUrl,
      BACKFILL_DAYS: '3650',
      PAGE_SIZE: '100',
      COMMIT_SIGNATURES: '200',
      POLL_INTERVAL_MS: '200',
      RPC_MAX_RPS: '100000',
      LEADER_POLL_MS: '500',
    };
    const a = spawnIndexer(env);
    let b: Proc | undefined;
    try {
      await a.waitFor(/^LEADER$/m, 30_000);
      b = spawnIndexer(env);
      await b.waitFor(/^STANDBY$/m, 30_000);
      expect(await lockHolders(schema)).toBe(1);

      // Kill the leader once it has written some pages, well before the backfill is done.
      await waitFor(async () => (await store.queries.counts()).totalSignatures >= 200, 30_000, 'the leader to write');
      expect(b.output()).not.toMatch(/^LEADER$/m);
      a.proc.kill('SIGKILL');
      const killedAt = Date.now();
      expect((await a.exited).signal).toBe('SIGKILL');
      const atKill = (await store.queries.counts()).totalSignatures;

      await b.waitFor(/^LEADER$/m, 15_000);
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      await b.waitFor(/^DONE$/m, 60_000);
      expect((await b.exited).code).toBe(0);

      const truth = await groundTruth(sim);
      const counts = await store.queries.counts();
      // The kill landed mid-backfill, and the final store is exactly the chain's events.
      expect(atKill).toBeLessThan(counts.totalSignatures);
      expect(await storedEventLines(store, poolsOf(truth.events))).toEqual(expectedEventLines(truth.events));
      expect(counts.totalGames).toBe(truth.events.filter((e) => e.name === 'GameSettled').length);
      expect(counts.totalPoolChanges).toBe(truth.events.filter((e) => e.name === 'PoolChange').length);
      expect(counts.unpricedGames).toBe(0);
      expect(await lockHolders(schema)).toBe(0);
    } finally {
      await a.stop('SIGKILL');
      await b?.stop('SIGKILL');
      await sim.stop();
    }
  });
});
