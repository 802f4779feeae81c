/**
 * DATABASE_READ_URL (docs/deployment.md): the store's queries read the replica; writes, keys and sync
 * state go to the primary. The "replica" here is a second database on the same server holding
 * different data, so the test can tell which one answered.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, parseDatabaseUrl } from '../../src/config/index.js';
import { createCommon } from '../../src/core/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { loadFixture } from '../helpers/contract-world.js';
import { generateFixture } from '../helpers/fixture.js';
import { testDatabaseUrl } from '../helpers/store.js';

const replicaDb = `gamba_replica_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const schema = `r_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const admin = () => new pg.Client({ connectionString: testDatabaseUrl() });
const replicaUrl = () => {
  const u = new URL(testDatabaseUrl());
  u.pathname = `/${replicaDb}`;
  return u.toString();
};
const stores: Store[] = [];

beforeAll(async () => {
  const c = admin();
  await c.connect();
  await c.query(`create database ${replicaDb}`);
  await c.end();
});

afterAll(async () => {
  for (const s of stores) await s.close();
  const c = admin();
  await c.connect();
  await c.query(`drop schema if exists ${schema} cascade`);
  await c.query(`drop database if exists ${replicaDb} with (force)`);
  await c.end();
});

describe('DATABASE_READ_URL', () => {
  it('parses: ?schema= is split off, the read URL needs a postgres:// primary', () => {
    expect(parseDatabaseUrl('postgres://u@h:5432/db?schema=tenant_1&sslmode=disable', 'postgres://u@replica:5432/db')).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h:5432/db?sslmode=disable',
      schema: 'tenant_1',
      readUrl: 'postgres://u@replica:5432/db',
    });
    expect(() => loadConfig({ DATABASE_URL: 'sqlite:./x.db', DATABASE_READ_URL: 'postgres://h/db' })).toThrow(/DATABASE_READ_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db?schema=1bad' })).toThrow(/schema=/);
    expect(() => loadConfig({ RATE_LIMIT_ON_REDIS_ERROR: 'maybe' })).toThrow(/RATE_LIMIT_ON_REDIS_ERROR/);
    expect(loadConfig({}).rateLimitOnRedisError).toBe('closed');
  });

  it('queries answer from the replica, writes and state land on the primary', async () => {
    const common = createCommon();
    const fixture = generateFixture({ seed: 4242, games: 60, poolChanges: 6 });
    // The "replica" holds the fixture; the primary starts empty.
    const replica = await createStore({ common, config: { kind: 'postgres', url: replicaUrl(), schema } });
    stores.push(replica);
    await loadFixture(replica, fixture);
    const split = await createStore({ common, config: { kind: 'postgres', url: testDatabaseUrl(), schema, readUrl: replicaUrl() } });
    stores.push(split);
    const primary = await createStore({ common, config: { kind: 'postgres', url: testDatabaseUrl(), schema } });
    stores.push(primary);

    const games = fixture.events.filter((e) => e.name === 'GameSettled').length;
    expect((await split.queries.counts()).totalGames).toBe(games);
    expect((await primary.queries.counts()).totalGames).toBe(0);

    // Writes go to the primary: the split store's own queries (replica) do not see them.
    await split.upsertMints(fixture.mints);
    const first = fixture.events.filter((e) => e.signature === fixture.events[0]!.signature);
    await split.writeBatch({ events: first, signatures: fixture.signatures.filter((s) => s.signature === first[0]!.signature) });
    await split.setState({ scaleout_probe: '1' });
    expect((await primary.queries.counts()).totalSignatures).toBe(1);
    expect(await primary.getState('scaleout_probe')).toBe('1');
    expect(await split.getState('scaleout_probe')).toBe('1');
    expect((await split.queries.counts()).totalGames).toBe(games);
    await split.ping();
  });
});
