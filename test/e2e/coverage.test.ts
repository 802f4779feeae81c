/**
 * Coverage and reconciliation (docs/design.md "Coverage and reconciliation"): the indexer records
 * every processed signature with its UTC day and kind; `verifyCoverage` (gamba-analytics verify)
 * walks the simulator's signatures over real JSON-RPC and reports per day chain vs store counts,
 * gaps and surpluses by signature. Each case is checked against the simulator's own listing
 * (fetched here with plain JSON-RPC paging) and its ground-truth events, not against the code.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommon, dayToDate, decodeCursor } from '../../src/core/index.js';
import { STATE_KEYS, verifyCoverage } from '../../src/ingest/index.js';
import { GAMBA_PROGRAM_ID } from '../../src/protocol/index.js';
import { createRpcClient } from '../../src/solana/index.js';
import type { Simulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/index.js';
import { http as httpGet } from '../helpers/api-operations.js';
import { buildTestApp } from '../helpers/app.js';
import { groundTruth, simulatorPrices } from '../helpers/ground-truth.js';
import { buildIndexer } from '../helpers/indexer-setup.js';
import { allSignatures, startTestSimulator, type SignatureInfo } from '../helpers/simulator.js';
import { setupTestDatabase, type TestDatabase } from '../helpers/store.js';
import { bundledEntry } from '../helpers/cli-bundle.js';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s();
});

const dayOfSig = (s: SignatureInfo) => Math.floor(s.blockTime! / 86_400);

/** The chain's truth per UTC day: every signature (newest first from the simulator's own listing), failed ones, ones carrying events (ground truth). */
interface ChainTruth {
  sigs: SignatureInfo[];
  byDay: Map<number, SignatureInfo[]>;
  withEvents: Set<string>;
}

async function chainTruth(sim: Simulator): Promise<ChainTruth> {
  const sigs = await allSignatures(sim.rpcUrl, GAMBA_PROGRAM_ID, { commitment: 'confirmed' });
  const byDay = new Map<number, SignatureInfo[]>();
  for (const s of sigs) {
    const d = dayOfSig(s);
    if (!byDay.has(d)) byDay.set(d, []);
    byDay.get(d)!.push(s);
  }
  const truth = await groundTruth(sim);
  const withEvents = new Set(truth.events.map((e) => e.signature));
  return { sigs, byDay, withEvents };
}

async function indexInto(store: Store, rpcUrl: string, sim: Simulator): Promise<void> {
  const indexer = buildIndexer({ rpcUrl, store, prices: simulatorPrices(sim), options: { pageSize: 200 } });
  await indexer.start();
  await indexer.backfilled();
  await indexer.syncNow();
  await indexer.stop();
}

function verifier(store: Store, rpcUrl: string) {
  const common = createCommon();
  const rpc = createRpcClient({ common, url: rpcUrl, concurrency: 4, maxRps: 100_000, timeoutMs: 5000, retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 8 } });
  return (o: { sinceDay?: number; untilDay?: number } = {}) => verifyCoverage({ common, store, rpc, pageSize: 300, ...o });
}

/** Raw SQL on the test database, as an operator's restore or a foreign writer would change it. */
async function rawExec(db: TestDatabase, statements: string[]): Promise<void> {
  if (db.config.kind === 'sqlite') {
    const raw = new BetterSqlite3(db.config.path);
    try {
      for (const s of statements) raw.prepare(s).run();
    } finally {
      raw.close();
    }
    return;
  }
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: db.config.url });
  await c.connect();
  try {
    await c.query(`set search_path to "${db.config.schema}"`);
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

describe('coverage: verify against the chain', () => {
  let sim: Simulator;
  let truth: ChainTruth;
  let store: Store;
  let db: TestDatabase;

  beforeAll(async () => {
    ({ sim } = await startTestSimulator({ days: 3, playsPerDay: 120 }));
    stops.push(() => sim.stop());
    await sim.ready();
    truth = await chainTruth(sim);
    ({ store, db } = await setupTestDatabase());
    await indexInto(store, sim.rpcUrl, sim);
  }, 60_000);

  it('a complete store: every day matches the chain, by kind, no gap or surplus; GET /audit/coverage and /status say so', async () => {
    expect(truth.sigs.length).toBeGreaterThan(500);
    expect(truth.sigs.some((s) => s.err !== null), 'the chain has failed transactions').toBe(true);
    const r = await verifier(store, sim.rpcUrl)();
    const days = [...truth.byDay.keys()].sort((a, b) => b - a);
    expect(r.days.map((d) => d.day)).toEqual(days);
    for (const d of r.days) {
      const sigs = truth.byDay.get(d.day)!;
      const failed = sigs.filter((s) => s.err !== null).length;
      const events = sigs.filter((s) => truth.withEvents.has(s.signature)).length;
      expect(d, dayToDate(d.day)).toEqual({ day: d.day, chainTotal: sigs.length, chainFailed: failed, storeEvents: events, storeEmpty: sigs.length - failed - events, storeFailed: failed, gaps: 0, surpluses: 0, failedMismatches: 0 });
      // Play transactions carry no event: every day has some.
      expect(d.storeEmpty).toBeGreaterThan(0);
    }
    expect(r.diffs).toEqual([]);
    expect(r.run).toMatchObject({ gaps: 0, surpluses: 0, chainSignatures: truth.sigs.length, storeSignatures: truth.sigs.length, completeSinceDay: days.at(-1), completeThroughDay: days[0], untilDay: days[0] });
    expect(r.run.daysVerified).toBe(r.run.untilDay - r.run.sinceDay + 1);

    const t = await buildTestApp({ store });
    stops.push(() => t.close());
    const res = await httpGet(t.baseUrl, '/audit/coverage', { key: t.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ verifiedAt: new Date(r.run.verifiedAtMs).toISOString(), until: dayToDate(days[0]!), completeSince: dayToDate(days.at(-1)!), gaps: 0, surpluses: 0, diffs: [], nextCursor: null });
    expect(res.body.days.map((d: { date: string; chain: { total: number }; complete: boolean }) => [d.date, d.chain.total, d.complete])).toEqual(days.map((d) => [dayToDate(d), truth.byDay.get(d)!.length, true]));
    const status = await httpGet(t.baseUrl, '/status', { key: t.key });
    expect(status.body.coverage).toEqual({ lastVerifiedAt: new Date(r.run.verifiedAtMs).toISOString(), completeSince: dayToDate(days.at(-1)!), gaps: 0 });
  }, 60_000);

  it('one day deleted (a restore from an old backup): exactly that day is the gap, with exactly its signatures; a surplus signature is listed', async () => {
    const days = [...truth.byDay.keys()].sort((a, b) => b - a);
    const lost = days[1]!;
    await rawExec(db, [
      `delete from games where day = ${lost}`,
      `delete from pool_changes where signature in (select signature from signatures where day = ${lost})`,
      `delete from signatures where day = ${lost}`,
    ]);
    // A record the chain does not know (inside the verified range: the newest day, an indexed slot).
    const newest = truth.byDay.get(days[0]!)!.at(-1)!;
    const fake = '1111111111111111111111111111111111111111111111111111111111111111';
    await store.writeBatch({ events: [], signatures: [{ signature: fake, slot: newest.slot, blockTime: newest.blockTime!, failed: false }] });

    const r = await verifier(store, sim.rpcUrl)();
    const expectedGaps = truth.byDay.get(lost)!.map((s) => s.signature).sort();
    expect(r.diffs.filter((d) => d.side === 'gap').map((d) => d.signature).sort()).toEqual(expectedGaps);
    expect(r.diffs.filter((d) => d.side === 'gap').every((d) => d.day === lost)).toBe(true);
    expect(r.diffs.filter((d) => d.side === 'surplus')).toEqual([{ day: days[0], signature: fake, slot: newest.slot, side: 'surplus', failed: false }]);
    for (const d of r.days) {
      const n = truth.byDay.get(d.day)!.length;
      expect([d.gaps, d.surpluses], dayToDate(d.day)).toEqual(d.day === lost ? [n, 0] : d.day === days[0] ? [0, 1] : [0, 0]);
    }
    expect(r.run).toMatchObject({ gaps: expectedGaps.length, surpluses: 1, completeSinceDay: null, completeThroughDay: days[2] });
    expect(days.length).toBe(4);

    // The API lists the same differences, paged by cursor.
    const t = await buildTestApp({ store });
    stops.push(() => t.close());
    const listed: { signature: string; side: string; date: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await httpGet(t.baseUrl, `/audit/coverage?limit=50${cursor ? `&cursor=${cursor}` : ''}`, { key: t.key });
      expect(res.status, res.text).toBe(200);
      listed.push(...res.body.diffs);
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(listed.filter((d) => d.side === 'gap').map((d) => d.signature).sort()).toEqual(expectedGaps);
    expect(listed.filter((d) => d.side === 'surplus').map((d) => [d.signature, d.date])).toEqual([[fake, dayToDate(days[0]!)]]);
    const onlySurplus = await httpGet(t.baseUrl, '/audit/coverage?side=surplus', { key: t.key });
    expect(onlySurplus.body.diffs.map((d: { signature: string }) => d.signature)).toEqual([fake]);
    const status = await httpGet(t.baseUrl, '/status', { key: t.key });
    expect(status.body.coverage).toMatchObject({ completeSince: null, gaps: expectedGaps.length });
    const bad = await httpGet(t.baseUrl, '/audit/coverage?cursor=nope', { key: t.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.details?.parameter ?? bad.text).toContain('cursor');

    // --since/--until narrow the days compared.
    const narrowed = await verifier(store, sim.rpcUrl)({ sinceDay: days[0], untilDay: days[0] });
    expect(narrowed.days.map((d) => d.day)).toEqual([days[0]]);
    expect(narrowed.run).toMatchObject({ gaps: 0, surpluses: 1, chainSignatures: truth.byDay.get(days[0]!)!.length });
  }, 60_000);

  it('gamba-analytics verify: the same result as a process (JSON), exit code 2 on differences, 1 on a bad option', async () => {
    const days = [...truth.byDay.keys()].sort((a, b) => b - a);
    const env = { DATABASE_URL: db.databaseUrl, SOLANA_RPC_URL: sim.rpcUrl, LOG_LEVEL: 'warn' };
    const r = await runCli(['verify', '--json'], env);
    expect(r.code, r.err).toBe(2);
    const out = JSON.parse(r.out) as { run: { gaps: number; surpluses: number }; diffs: { side: string; signature: string }[] };
    expect(out.run).toMatchObject({ gaps: truth.byDay.get(days[1]!)!.length, surpluses: 1 });
    expect(out.diffs.filter((d) => d.side === 'gap').map((d) => d.signature).sort()).toEqual(truth.byDay.get(days[1]!)!.map((s) => s.signature).sort());
    const table = await runCli(['verify', '--since', dayToDate(days[0]!), '--list', '5'], env);
    expect(table.code, table.err).toBe(2);
    expect(table.out).toContain(`${dayToDate(days[0]!)}  `);
    expect(table.out).toMatch(/surplus\s+\d{4}-\d{2}-\d{2}\s+slot \d+\s+1{64}/);
    const clean = await runCli(['verify', '--since', dayToDate(days[2]!), '--until', dayToDate(days[2]!)], env);
    expect(clean.code, clean.err).toBe(0);
    for (const bad of [['--since', '2025-13-01'], ['--every', '5s']]) {
      const b = await runCli(['verify', ...bad], env);
      expect(b.code, bad.join(' ')).toBe(1);
    }
    // --every: a run at once, stored; SIGTERM ends the schedule with exit 0.
    const before = (await store.queries.coverageSummary())!.verifiedAtMs;
    const every = runCli(['verify', '--every', '1h', '--json'], env, (out, proc) => {
      if (out.includes('\n')) proc.kill('SIGTERM');
    });
    const e = await every;
    expect(e.code, e.err).toBe(0);
    expect((JSON.parse(e.out.split('\n')[0]!) as { run: { gaps: number } }).run.gaps).toBe(truth.byDay.get(days[1]!)!.length);
    expect((await store.queries.coverageSummary())!.verifiedAtMs).toBeGreaterThan(before);
  }, 120_000);

  it('a node that skips part of a signature page: the indexer misses exactly those, verify lists exactly them', async () => {
    // Ground truth: a run of 37 signatures in the middle of the history, hidden from the indexer.
    const hidden = new Set(truth.sigs.slice(410, 447).map((s) => s.signature));
    const proxy = await startDroppingProxy(sim.rpcUrl, hidden);
    stops.push(() => proxy.close());
    const { store: other } = await setupTestDatabase();
    await indexInto(other, proxy.url, sim);
    const r = await verifier(other, sim.rpcUrl)();
    expect(r.diffs.map((d) => [d.side, d.signature]).sort()).toEqual([...hidden].map((s) => ['gap', s]).sort());
    expect(proxy.dropped()).toBeGreaterThanOrEqual(hidden.size);
    const hiddenDays = new Set(truth.sigs.filter((s) => hidden.has(s.signature)).map(dayOfSig));
    for (const d of r.days) expect(d.gaps, dayToDate(d.day)).toBe(truth.byDay.get(d.day)!.filter((s) => hidden.has(s.signature)).length);
    expect(r.days.filter((d) => d.gaps > 0).map((d) => d.day).sort()).toEqual([...hiddenDays].sort());
  }, 60_000);
});

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs the CLI as an operator does (a process, configuration from the environment); resolves with its exit code and output. */
function runCli(args: string[], env: Record<string, string>, onOut?: (out: string, proc: ReturnType<typeof spawn>) => void): Promise<{ code: number | null; out: string; err: string }> {
  const proc = spawn(process.execPath, [...bundledEntry('run-cli'), ...args], {
    cwd: path.resolve(here, '../..'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => {
    out += d;
    onOut?.(out, proc);
  });
  proc.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, out, err })));
}

describe('coverage: the chain moved on after the last sync', () => {
  it('signatures newer than the tail checkpoint are pending, not gaps', async () => {
    const { sim, clock } = await startTestSimulator({ days: 1, playsPerDay: 120, liveRate: 2 });
    stops.push(() => sim.stop());
    await sim.ready();
    const { store } = await setupTestDatabase();
    await indexInto(store, sim.rpcUrl, sim);
    clock.advance(30_000);
    const listing = await allSignatures(sim.rpcUrl, GAMBA_PROGRAM_ID, { commitment: 'confirmed' });
    const tail = decodeCursor(await store.getState(STATE_KEYS.tailCursor))!;
    const newer = listing.findIndex((s) => s.signature === tail.signature);
    expect(newer).toBeGreaterThan(10);
    const r = await verifier(store, sim.rpcUrl)();
    expect(r.pending).toBe(newer);
    expect(r.run).toMatchObject({ gaps: 0, surpluses: 0, chainSignatures: listing.length - newer, toSlot: tail.slot });
  }, 60_000);
});

/**
 * A JSON-RPC HTTP proxy in front of the simulator whose getSignaturesForAddress answers silently
 * omit `hidden` signatures (it asks the node for more so pages stay full and paging goes on):
 * a node that skipped part of a page.
 */
async function startDroppingProxy(target: string, hidden: Set<string>): Promise<{ url: string; dropped(): number; close(): Promise<void> }> {
  let dropped = 0;
  const rewrite = (call: { method?: string; params?: unknown[] }) => {
    if (call.method !== 'getSignaturesForAddress') return undefined;
    const cfg = { ...((call.params?.[1] as Record<string, unknown>) ?? {}) };
    const limit = Number(cfg.limit ?? 1000);
    cfg.limit = Math.min(1000, limit + hidden.size);
    call.params = [call.params?.[0], cfg];
    return limit;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const calls = Array.isArray(body) ? body : [body];
      const limits = calls.map(rewrite);
      const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(Array.isArray(body) ? calls : calls[0]) });
      const text = await upstream.text();
      let answer: unknown = text;
      try {
        const parsed = JSON.parse(text);
        const replies = Array.isArray(parsed) ? parsed : [parsed];
        replies.forEach((reply: { id?: unknown; result?: unknown }) => {
          const i = calls.findIndex((c: { id?: unknown }) => c.id === reply.id);
          const limit = limits[i];
          if (limit === undefined || !Array.isArray(reply.result)) return;
          const kept = (reply.result as SignatureInfo[]).filter((s) => !hidden.has(s.signature));
          dropped += reply.result.length - kept.length;
          reply.result = kept.slice(0, limit);
        });
        answer = JSON.stringify(Array.isArray(parsed) ? replies : replies[0]);
      } catch {
        /* not JSON: pass through */
      }
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(answer as string);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, dropped: () => dropped, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
