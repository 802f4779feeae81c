/**
 * The read-only store (docs/architecture.md "Reader pool", docs/hardening.md "Store deadline"): what
 * crosses the reader threads' boundary (exact BigInt, our AppErrors), what a read-only store
 * refuses, and reads held by a real lock of another connection answering STORE_UNAVAILABLE
 * within the deadline, then recovering by themselves; a reader thread's connection settings
 * (src/store/readers/connection.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { AppError, createCommon } from '../../src/core/index.js';
import { createStore } from '../../src/store/index.js';
import { openReaderDatabase, READER_TEMP_STORE } from '../../src/store/readers/connection.js';
import { generateFixture, loadFixture } from '../helpers/fixture.js';
import { holdExclusiveLock, useRollbackJournal } from '../helpers/sqlite-lock.js';
import { createTestDatabase, openWriterStore, readonlyTwin, registerCleanup, testDatabaseUrl, testStore } from '../helpers/store.js';

const dialect = testStore();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** A migrated database with a small fixture, its writer, and a read-only store on it. */
async function world(opts: { readers?: number; timeoutMs?: number } = {}) {
  const db = createTestDatabase(dialect);
  const writer = await openWriterStore(db.config);
  const fixture = generateFixture({ seed: 7, games: 300, poolChanges: 40 });
  await loadFixture(writer, fixture);
  const reader = (await readonlyTwin(writer, opts))!;
  registerCleanup(async () => {
    await reader.close();
    await writer.close();
    await db.drop();
  });
  return { db, writer, reader, fixture };
}

/** Resolves with the error `p` rejects with and how long that took, ms. */
async function failure(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = Date.now();
  try {
    await p;
  } catch (err) {
    return { err, ms: Date.now() - started };
  }
  throw new Error('expected a rejection');
}

describe(`read-only store (${dialect})`, () => {
  it('answers as the writer does, token sums past 2^64 exact (BigInt across the thread boundary)', async () => {
    const { reader, writer, fixture } = await world();
    expect(reader.access).toBe('readonly');
    // Brute force over the fixture's events: Σ wager per pool.
    const volume = new Map<string, bigint>();
    for (const e of fixture.events) if (e.name === 'GameSettled') volume.set(e.data.pool, (volume.get(e.data.pool) ?? 0n) + e.data.wager);
    const bonk = fixture.pools.BONK;
    expect(volume.get(bonk)! > 2n ** 64n).toBe(true);
    for (const [pool, sum] of volume) {
      const t = await reader.queries.total(pool);
      expect(typeof t.volume).toBe('bigint');
      expect(t.volume).toBe(sum);
    }
    // Every kind of answer survives the trip unchanged (structured clone keeps BigInt, null, nested arrays).
    const now = fixture.nowMs;
    expect(await reader.queries.counts()).toEqual(await writer.queries.counts());
    expect(await reader.queries.players({ sortBy: 'token_volume', token: fixture.tokens.BONK, limit: 20, offset: 0 })).toEqual(
      await writer.queries.players({ sortBy: 'token_volume', token: fixture.tokens.BONK, limit: 20, offset: 0 }),
    );
    const games = { itemsPerPage: 50, page: 0, onlyJackpots: false, orderBy: 'time', sorting: 'DESC' } as const;
    expect(await reader.queries.settledGames(games)).toEqual(await writer.queries.settledGames(games));
    expect(await reader.queries.ratio({ pool: bonk, now })).toEqual(await writer.queries.ratio({ pool: bonk, now }));
    expect(await reader.queries.player({ user: 'So11111111111111111111111111111111111111112' })).toBeUndefined();
  });

  it('an AppError thrown by a query arrives as the same AppError (a keyset position of the wrong shape: INVALID_KEYSET with its details)', async () => {
    const { reader } = await world();
    const { err } = await failure(reader.queries.settledGames({ itemsPerPage: 10, page: 0, after: { values: ['not', 'a', 'key'] }, onlyJackpots: false, orderBy: 'time', sorting: 'DESC' }));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'INVALID_KEYSET', details: { kinds: ['integer', 'string', 'integer'] } });
    expect((err as Error).message).toMatch(/keyset position does not match/);
  });

  it('refuses every write and migrations (STORE_READ_ONLY), and leaves the database unchanged', async () => {
    const { reader, writer } = await world();
    const before = await writer.queries.counts();
    for (const call of [
      () => reader.migrate(),
      () => reader.writeBatch({ events: [] }),
      () => reader.setState({ a: 'b' }),
      () => reader.upsertMints([{ mint: 'x', decimals: 1 }]),
      () => reader.putPrices([]),
      () => reader.rebuildRollups(),
      () => reader.keys.revoke('key_x', 1),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'STORE_READ_ONLY' });
    }
    expect(await writer.queries.counts()).toEqual(before);
    // Reads of the store's state work.
    expect(await reader.getMints()).toEqual(expect.arrayContaining(await writer.getMints()));
  });

  it.runIf(dialect === 'sqlite')('SQLite: never creates a database (file missing → STORE_UNAVAILABLE at open)', async () => {
    const db = createTestDatabase('sqlite');
    registerCleanup(() => db.drop());
    await expect(createStore({ common: createCommon(), config: db.config, access: 'readonly' })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it.runIf(dialect === 'sqlite')('SQLite: a reader held by another connection\'s exclusive lock → STORE_UNAVAILABLE within the deadline, later reads too (the reader is still waiting); all recover when the lock ends', async () => {
    const db = createTestDatabase('sqlite');
    const writer = await openWriterStore(db.config);
    await loadFixture(writer, generateFixture({ seed: 3, games: 100, poolChanges: 10 }));
    const expected = await writer.queries.counts();
    await writer.close();
    const path = (db.config as { path: string }).path;
    useRollbackJournal(path);
    const timeoutMs = 400;
    // Readers would wait 30 s for the lock: only the deadline can end the wait in time.
    const reader = await createStore({ common: createCommon(), config: db.config, access: 'readonly', readers: 1, timeoutMs, busyTimeoutMs: 30_000 });
    registerCleanup(async () => {
      await reader.close();
      await db.drop();
    });
    expect(await reader.queries.counts()).toEqual(expected);
    const lock = holdExclusiveLock(path);
    try {
      for (const q of [() => reader.queries.counts(), () => reader.queries.stats({ now: Date.now() }), () => reader.ping()]) {
        const { err, ms } = await failure(q());
        expect(err).toMatchObject({ code: 'STORE_UNAVAILABLE', retryable: true });
        // ping's first half (this thread's connection) waits at most 30 s too: bounded by the deadline as well.
        expect(ms).toBeLessThan(timeoutMs + 3000);
      }
    } finally {
      lock.release();
    }
    // The abandoned reader got the lock, finished, and serves again.
    await expect.poll(() => reader.queries.counts().catch((e: unknown) => e), { timeout: 35_000, interval: 200 }).toEqual(expected);
    await reader.ping();
  });

  it.runIf(dialect === 'postgres')('PostgreSQL: a read held by another session\'s lock → STORE_UNAVAILABLE within the deadline (statement_timeout), then reads recover', async () => {
    const { reader, db } = await world({ timeoutMs: 500 });
    const expected = await reader.queries.counts();
    const locker = new pg.Client({ connectionString: testDatabaseUrl() });
    await locker.connect();
    try {
      const schema = (db.config as { schema: string }).schema;
      await locker.query('begin');
      await locker.query(`lock table "${schema}".ru_counter in access exclusive mode`);
      const { err, ms } = await failure(reader.queries.counts());
      expect(err).toMatchObject({ code: 'STORE_UNAVAILABLE', retryable: true });
      expect(ms).toBeLessThan(500 + 3000);
      await locker.query('rollback');
    } finally {
      await locker.end();
    }
    expect(await reader.queries.counts()).toEqual(expected);
  });

  it.runIf(dialect === 'sqlite')('SQLite: compiled to JavaScript (as bin/gamba-analytics.js runs it), the reader threads load their entry without tsx', async () => {
    const { db, writer } = await world();
    const expected = await writer.queries.counts();
    // A private build of src/ (dist/ may be stale while developing), with the project's packages
    // beside it: each module transpiled to its own .js file, the layout tsc gives dist/ (the
    // compiler's type checks run in `npm run build`, which test/install runs on the release).
    const dir = mkdtempSync(join(tmpdir(), 'gamba-dist-'));
    registerCleanup(async () => rmSync(dir, { recursive: true, force: true }));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const src = join(ROOT, 'src');
    const modules = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => join(src, f));
    await build({ entryPoints: modules, outdir: join(dir, 'dist'), outbase: src, format: 'esm', platform: 'node', target: 'node20', bundle: false, logLevel: 'error' });
    const script = `
      import { createStore } from './dist/store/index.js';
      import { createCommon } from './dist/core/index.js';
      const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: process.argv[2] }, access: 'readonly' });
      const c = await store.queries.counts();
      await store.close();
      process.stdout.write(JSON.stringify({ execArgv: process.execArgv, counts: c }));`;
    writeFileSync(join(dir, 'count.js'), script);
    // No --import tsx anywhere: plain node, as in production.
    const { stdout } = await run(process.execPath, [join(dir, 'count.js'), (db.config as { path: string }).path], { cwd: dir, timeout: 60_000 });
    const out = JSON.parse(stdout) as { execArgv: string[]; counts: unknown };
    expect(out.execArgv).toEqual([]);
    expect(out.counts).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it.runIf(dialect === 'sqlite')('SQLite: a reader thread\'s connection is query_only, keeps its sorts and temp B-trees in files past a bounded cache, maps no memory', async () => {
    const db = createTestDatabase('sqlite');
    await (await openWriterStore(db.config)).close();
    registerCleanup(() => db.drop());
    const conn = openReaderDatabase({ path: (db.config as { path: string }).path, busyTimeoutMs: 1234, cacheMiB: 1 });
    registerCleanup(async () => void conn.close());
    const pragma = (name: string) => Number(conn.pragma(name, { simple: true }));
    expect(pragma('query_only')).toBe(1);
    expect(pragma('busy_timeout')).toBe(1234);
    // Negative: KiB (docs/architecture.md "Reader pool": each thread's own page cache).
    expect(pragma('cache_size')).toBe(-1024);
    // 1 = FILE: temp B-trees cannot grow the heap without bound (docs/benchmarks.md "Reader threads' temp storage").
    expect(READER_TEMP_STORE).toBe('FILE');
    expect(pragma('temp_store')).toBe(1);
    expect(pragma('mmap_size')).toBe(0);
    expect(() => conn.exec('create table t (a)')).toThrow(/readonly/);
    // A GROUP BY whose sort outgrows the 1 MiB cache spills to a temp file and still answers right.
    const row = conn
      .prepare(
        `with recursive n(i) as (select 1 union all select i + 1 from n where i < 200000)
         select count(*) as groups, sum(c) as total from (select i % 150001 as k, count(*) as c, max(printf('%080d', i)) as pad from n group by k)`,
      )
      .get() as { groups: bigint; total: bigint };
    expect(row).toEqual({ groups: 150001n, total: 200000n });
  });

  it('a closed read-only store answers STORE_UNAVAILABLE', async () => {
    const { reader } = await world();
    await reader.close();
    await expect(reader.queries.counts()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(reader.keys.findByHash('0'.repeat(64))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(reader.ping()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});


