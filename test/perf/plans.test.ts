/**
 * Query plans (SQLite EXPLAIN QUERY PLAN) of every read the store runs for every operation and
 * filter × order combination the spec allows: docs/design.md §7 "no endpoint scans all games". Each
 * statement the store prepares is recorded with its parameters, then explained on the same file.
 * A plan must not read a history-sized table without an index (`SCAN games` alone), and must
 * not sort raw events (games, pool changes) as a whole (`USE TEMP B-TREE FOR ORDER BY`; sorting only the
 * ties of an index prefix, "FOR LAST n TERMS OF ORDER BY", is fine: it stops at the page).
 * And the converse (migration 0005): every index is used by some read or update, or is the
 * conflict target of a write — an index nothing uses only slows the write path down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createStore, type SettledGamesOrderBy, type Store } from '../../src/store/index.js';
import { sqliteAdapter } from '../../src/store/dialect.js';
import { partVectorsOf } from '../../src/store/queries/part-vectors.js';
import { topWindow } from '../../src/store/queries/topn.js';
import { activePlayers } from '../../src/store/queries/window-players.js';
import type { Database } from '../../src/store/schema.js';
import { PLAYER_ROLLUP_TABLES, ROLLUP_TABLES } from '../../src/store/rollups/definitions.js';
import { loadFixture } from '../helpers/contract-world.js';
import { generateFixture, type Fixture } from '../helpers/fixture.js';

/** Tables whose size grows with history (games, players, days); ru_ctp / sync_state / pools stay small. */
const BIG: string[] = ['games', 'pool_changes', 'signatures', ...ROLLUP_TABLES.filter((t) => t !== 'ru_ctp'), 'ru_pool_hour', 'ru_fair_day', 'ru_fair_dg', 'ru_fair_bg', 'ru_day_rev', 'ru_active_day', 'ru_return_day', 'ru_return_block', 'prices'];
/** All-time per-player rollups: a leaderboard over one of them reads limit + offset index entries, never sorts (migration 0004). */
const PLAYER_ROLLUP = new RegExp(`\\bfrom (${PLAYER_ROLLUP_TABLES.join('|')})\\b[^()]*\\border by\\b`, 'i');
/** The pool list reads limit + 1 entries of a sort index of ru_pool (migration 0006), never sorts. */
const POOL_LIST = /\bfrom "?ru_pool"?\s[^()]*\border by\b/i;

/**
 * Whether the plan of `sqlText` (its EXPLAIN QUERY PLAN details) scans a history-sized table (BIG),
 * through an index or not. SQLite names a table by its alias in plans: aliases map back to tables first.
 */
function scansBigTable(sqlText: string, plan: readonly string[]): boolean {
  const aliases = new Map([...sqlText.matchAll(/\b(?:from|join)\s+"?(\w+)"?\s+(?:as\s+)?"?(\w+)"?/gi)].map((m) => [m[2]!.toLowerCase(), m[1]!.toLowerCase()]));
  return plan.some((d) => {
    const t = /^SCAN (\w+)/.exec(d)?.[1];
    return t !== undefined && BIG.includes(aliases.get(t.toLowerCase()) ?? t);
  });
}

const recorded = new Map<string, unknown[]>();
const proto = (BetterSqlite3 as unknown as { prototype: { prepare: (s: string) => any } }).prototype;
const originalPrepare = proto.prepare;

/** The steps (EXPLAIN QUERY PLAN details) of a recorded statement with its parameters, on `raw` (the unwrapped prepare). */
function planOf(raw: BetterSqlite3.Database, sqlText: string, params: unknown[]): string[] {
  return (originalPrepare.call(raw, `explain query plan ${sqlText}`).all(params) as { detail: string }[]).map((r) => r.detail);
}
let dir: string;
let path: string;
let store: Store;
let f: Fixture;

beforeAll(async () => {
  proto.prepare = function (this: unknown, sqlText: string) {
    const stmt = originalPrepare.call(this, sqlText);
    // Every statement the store runs (reads, writes, migrations), with the parameters of its last run.
    for (const method of ['all', 'run', 'get'] as const) {
      const fn = stmt[method].bind(stmt);
      stmt[method] = (params?: unknown[]) => {
        recorded.set(sqlText, params ?? []);
        return fn(params ?? []);
      };
    }
    return stmt;
  };
  dir = mkdtempSync(join(tmpdir(), 'gamba-plans-'));
  path = join(dir, 'gamba.db');
  store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path } });
  f = generateFixture({ seed: 3, games: 1500, poolChanges: 100 });
  // The migrations' statements (and 0004's rebuild, which reads everything by design) are not the store's reads or writes.
  recorded.clear();
  // Half the prices after the games: the write path stores them un-priced and putPrices re-prices them.
  await loadFixture(store, f, 'split');
  await runEveryRead();
  await writeReturningPlayers();
});
afterAll(async () => {
  proto.prepare = originalPrepare;
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * One more batch: for each of the fixture's players, a copy of its last game one day later, so each
 * player's new active day links to a stored one in its creator's group and in every game's (over
 * 256 links: the write path's largest chunk).
 */
async function writeReturningPlayers(): Promise<void> {
  const last = new Map<string, Fixture['events'][number]>();
  for (const e of f.events) if (e.name === 'GameSettled') last.set(e.data.user, e);
  const events = [...last.values()].map((e, i) => ({ ...e, signature: `${e.signature.slice(0, 80)}R${String(i).padStart(7, '0')}`, slot: e.slot + 300_000, blockTime: e.blockTime + 86_400, eventIndex: 0 }));
  expect(events.length).toBeGreaterThan(128);
  await store.writeBatch({ events, signatures: events.map((e) => ({ signature: e.signature, slot: e.slot, blockTime: e.blockTime, failed: false })) });
}

/** Every read the API and the indexer make, for every filter × order the spec allows (recorded by the hooked prepare). */
async function runEveryRead(): Promise<void> {
  const q = store.queries;
  const now = f.nowMs;
  const gameFilters = [
    {}, { creator: f.creators[3] }, { user: f.users[5] }, { token: f.tokens.USDC }, { pool: f.pools.SOL_B },
    { onlyJackpots: true }, { creator: f.creators[0], token: f.tokens.SOL }, { pool: f.pools.BONK, onlyJackpots: true },
    { user: f.users[0], creator: f.creators[0], token: f.tokens.SOL, pool: f.pools.SOL_A },
  ];
  for (const fl of gameFilters) {
    for (const orderBy of ['time', 'multiplier', 'usd_profit'] as SettledGamesOrderBy[]) {
      for (const sorting of ['ASC', 'DESC'] as const) {
        const base = { ...fl, onlyJackpots: fl.onlyJackpots === true, orderBy, sorting, itemsPerPage: 3 };
        const r = await q.settledGames({ ...base, page: 1 });
        const first = await q.settledGames({ ...base, page: 0 });
        if (first.next) await q.settledGames({ ...base, page: 0, after: first.next });
        expect(r.total).toBeGreaterThanOrEqual(0);
      }
    }
  }
  const playerFilters = [{}, { creator: f.creators[1] }, { token: f.tokens.SOL }, { pool: f.pools.SOL_A }, { creator: f.creators[1], token: f.tokens.SOL }, { creator: f.creators[0], pool: f.pools.BONK }, { startTime: now - 30 * 86_400_000 }, { startTime: now - 3_600_000, pool: f.pools.SOL_A },
    { startTime: now - 30 * 86_400_000, token: f.tokens.SOL }, { startTime: now - 30 * 86_400_000, creator: f.creators[1] }, { startTime: now - 30 * 86_400_000, creator: f.creators[1], token: f.tokens.SOL },
  ];
  for (const fl of playerFilters) {
    for (const sortBy of ['usd_profit', 'usd_volume', 'token_volume', 'token_profit'] as const) {
      // token_* sorts need one token (token or pool); the API answers 400 otherwise (docs/design.md §4).
      if (sortBy.startsWith('token_') && !('token' in fl) && !('pool' in fl)) continue;
      const page = await q.players({ ...fl, sortBy, limit: 10, offset: 10 });
      // Keyset continuation (docs/design.md §4 cursors on every list).
      if (page.next) await q.players({ ...fl, sortBy, limit: 10, offset: 0, after: page.next });
    }
  }
  // Long windows by USD volume or profit, of every player or one creator: the early-stopping top-N
  // (docs/design.md §7 "Top-N over a window's parts") reads each whole block's and edge day's
  // players in the sort key's order (migrations 0014 and 0017), open and closed windows; by USD
  // volume the long ones read the all-time leaderboard instead, and a window of one block and a few
  // days (fewer than 8 lists) the block's and days' lists.
  const block = Math.floor(now / 86_400_000 / 32) - 2;
  const fewLists = [(block * 32 - 2) * 86_400_000 + 5_000, ((block + 1) * 32 + 3) * 86_400_000 - 3_000] as const;
  for (const [startTime, endTime] of [[now - 200 * 86_400_000 - 5_000, undefined], [now - 300 * 86_400_000 + 7_000, now - 90 * 86_400_000 - 3_000], fewLists] as const) {
    for (const sortBy of ['usd_volume', 'usd_profit'] as const) {
      for (const creator of [undefined, f.creators[0]]) {
        const top = await q.players({ sortBy, creator, limit: 3, offset: 0, startTime, endTime });
        expect(top.results.length).toBe(3);
      }
    }
  }
  // Live streams (docs/design.md §11): pool changes ascending after a position.
  const changes = await q.poolChanges({ pool: f.pools.SOL_A, itemsPerPage: 3, page: 0, sorting: 'ASC' });
  if (changes.next) await q.poolChanges({ pool: f.pools.SOL_A, itemsPerPage: 3, page: 0, sorting: 'ASC', after: changes.next });
  await q.platforms({ limit: 3, days: 30, sortBy: 'usd_volume', now, after: { values: [1, f.creators[0]!] } });
  await q.tokens({ limit: 2, after: { values: [1, f.tokens.SOL!] } });
  await q.stats({ now });
  await q.stats({ now, creator: f.creators[0] });
  await q.stats({ now, startTime: now - 7 * 86_400_000 });
  await q.stats({ now, creator: f.creators[0], startTime: now - 7 * 86_400_000 });
  // Players active since a time, every way (window-players.ts activePlayers): on this small fixture
  // the cheapest is always the direct count, so the others are called by name.
  const reader = new BetterSqlite3(path, { readonly: true });
  reader.defaultSafeIntegers(true);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: reader }) });
  for (const way of ['direct', 'complement', 'days'] as const) {
    for (const shape of [{}, { byCreator: true }, { creator: f.creators[0] }]) await activePlayers(db, now - 40 * 86_400_000 - 5_000, shape, way);
  }
  // The window's own lists by USD volume (blocks, 8-day segments, days: migration 0026), which a
  // window of 8 days or more reads only when the all-time list gives up — never on this fixture.
  for (const creator of [undefined, f.creators[0]]) {
    // From the cut day before a block's second segment: its last 3 segments, then 3 days of the next block.
    const top = await topWindow(db, sqliteAdapter, { sortBy: 'usd_volume', creator }, (block * 32 + 8) * 86_400_000 - 5_000, ((block + 1) * 32 + 3) * 86_400_000 - 3_000, 3, undefined, 'parts');
    expect(top?.rows.length).toBe(3);
    // The part copies (part-vectors.ts): days' revs by key range, each part by its key prefix, a cut day's hours by its day.
    const byCopies = await topWindow(db, sqliteAdapter, { sortBy: 'usd_profit', creator }, (block * 32 + 8) * 86_400_000 - 5_000, ((block + 1) * 32 + 3) * 86_400_000 - 3_000, 3, undefined, 'vectors');
    expect(byCopies?.rows.length).toBe(3);
  }
  // Every player's cut hours (the scan; the vectors method when the bound leaves too many players)
  // through ru_hour_user_hour (migration 0030).
  const scanned = await topWindow(db, sqliteAdapter, { sortBy: 'usd_profit' }, (block * 32 + 8) * 86_400_000 - 5_000, ((block + 1) * 32 + 3) * 86_400_000 - 3_000, 3, undefined, 'scan');
  expect(scanned?.rows.length).toBe(3);
  // A copy read in keyset pages (the background reads of part-vectors.ts).
  const busiest = (originalPrepare.call(reader, 'select day from ru_day_user group by day order by count(*) desc limit 1').get() as { day: bigint }).day;
  const paged = await partVectorsOf(db).vectors(db, [{ table: 'ru_day_user', unit: 'day', n: Number(busiest), column: 'usd_profit' }], 2);
  expect(paged.vectors[0]!.players.length).toBeGreaterThan(2);
  await db.destroy();
  // Closed windows (docs/design.md §4 "Windows"): days, hours and sub-hour edges; per-player rows of the cut days.
  for (const [startTime, endTime] of [[now - 40 * 86_400_000 - 777_000, now - 3 * 86_400_000 + 999_000], [undefined, now - 200 * 86_400_000 + 12_345], [now - 3_600_000 - 5_000, now - 60_000]] as const) {
    await q.stats({ now, startTime, endTime });
    await q.stats({ now, creator: f.creators[0], startTime, endTime });
    await q.platforms({ limit: 10, days: 7, sortBy: 'usd_volume', now, startTime, endTime });
    for (const fl of [{}, { creator: f.creators[1] }, { pool: f.pools.SOL_A }]) await q.players({ ...fl, sortBy: 'usd_profit', limit: 10, offset: 0, startTime, endTime });
  }
  // Series in other zones and intervals: hour rollups and sub-hour slices (Asia/Kolkata: half-hour offset).
  for (const tz of ['Europe/Berlin', 'Asia/Kolkata']) {
    for (const interval of ['hour', 'day', 'week'] as const) {
      const days = interval === 'hour' ? 3 : 60;
      await q.chartPlays({ days, now, tz, interval });
      await q.chartDaoUsd({ days, now, tz, interval, creator: f.creators[0] });
      await q.daily({ pool: f.pools.SOL_A, days, now, tz, interval });
    }
  }
  await q.freshness();
  await q.platforms({ limit: 10, days: 7, sortBy: 'usd_volume', now });
  await q.platforms({ limit: 10, days: 30, sortBy: 'usd_revenue', now });
  await q.player({ user: f.users[0]! });
  await q.player({ user: f.users[0]!, creator: f.creators[0], token: f.tokens.SOL });
  await q.counts();
  await q.poolChanges({ pool: f.pools.SOL_A, page: 1, itemsPerPage: 5 });
  const pc = await q.poolChanges({ pool: f.pools.SOL_A, page: 0, itemsPerPage: 5 });
  await q.poolChanges({ pool: f.pools.SOL_A, page: 0, itemsPerPage: 5, after: pc.next! });
  await q.tokens({});
  await q.tokens({ creator: f.creators[0] });
  await q.total(f.pools.SOL_A);
  await q.daily({ pool: f.pools.SOL_A, days: 300, now });
  await q.ratio({ pool: f.pools.SOL_A, now });
  await q.chartPlays({ days: 30, now });
  await q.chartDaoUsd({ days: 30, now, creator: f.creators[0] });
  await q.platformsByPool(f.pools.SOL_A);
  for (const sortBy of ['tvl_usd', 'usd_volume', 'plays', 'pool_fees_usd', 'created_time'] as const) {
    for (const token of [undefined, f.tokens.USDC]) {
      const first = await q.pools({ sortBy, token, limit: 1 });
      expect(first.next).not.toBeNull();
      await q.pools({ sortBy, token, limit: 1, after: first.next! });
    }
  }
  const H = 3_600_000;
  const midnight = Math.floor(now / 86_400_000) * 86_400_000;
  for (const [startTime, endTime] of [[undefined, undefined], [now - H, now], [midnight - 30 * H, midnight + H], [now - 400 * 24 * H, now], [now - 90 * 24 * H, undefined], [undefined, now - 24 * H]] as const) {
    expect(await q.pool({ pool: f.pools.SOL_A, startTime, endTime })).toBeDefined();
  }
  // LP returns and house edge (docs/design.md §10): every groupBy × filter shape, all time and windowed.
  const windows = [[undefined, undefined], [now - H, now], [midnight - 30 * H, midnight + H], [now - 90 * 24 * H, undefined], [undefined, now - 24 * H]] as const;
  for (const groupBy of ['creator', 'pool', 'token', 'player', 'game'] as const) {
    for (const fl of [{}, { creator: f.creators[0] }, { pool: f.pools.SOL_A }, { token: f.tokens.SOL }, { user: f.users[0] }]) {
      for (const [startTime, endTime] of windows) {
        const first = await q.houseEdge({ groupBy, ...fl, startTime, endTime, limit: 1 });
        if (first.next) await q.houseEdge({ groupBy, ...fl, startTime, endTime, limit: 1, after: first.next });
      }
    }
  }
  for (const sortBy of ['multiplier', 'usd_profit'] as const) {
    for (const fl of [{}, { creator: f.creators[0] }, { pool: f.pools.SOL_A }, { user: f.users[0] }]) {
      for (const [startTime, endTime] of windows) await q.biggestWins({ sortBy, ...fl, startTime, endTime, limit: 10 });
    }
  }
  for (const fl of [{ token: f.tokens.SOL }, { pool: f.pools.SOL_A }, { token: f.tokens.SOL, user: f.users[0] }]) {
    for (const [startTime, endTime] of windows) await q.biggestWins({ sortBy: 'payout', ...fl, startTime, endTime, limit: 10 });
  }
  // Fairness audit (docs/design.md §14): every groupBy × filter shape, all time and windowed, and a violations page after a cursor.
  for (const groupBy of [undefined, 'creator', 'pool', 'player'] as const) {
    for (const fl of [{}, { creator: f.creators[0] }, { pool: f.pools.SOL_A }, { token: f.tokens.SOL }, { player: f.users[0] }]) {
      for (const [startTime, endTime] of windows) {
        // groupBy player needs startTime or player (the API answers 400 otherwise).
        if (groupBy === 'player' && startTime === undefined && !('player' in fl)) continue;
        const first = await q.fairnessAudit({ groupBy, ...fl, startTime, endTime, limit: 1 });
        if (first.next) await q.fairnessAudit({ groupBy, ...fl, startTime, endTime, limit: 1, after: first.next });
      }
    }
  }
  for (const interval of ['hour', 'day'] as const) await q.lpPrice({ pool: f.pools.SOL_A, interval, startTime: now - 30 * 24 * H, endTime: now });
  await q.poolReturns({ pool: f.pools.SOL_A, startTime: now - 30 * 24 * H, endTime: now });
  // Coverage (docs/design.md "Coverage and reconciliation"): storing a run, a day's signatures, the latest run, pages of its differences.
  const today = Math.floor(f.nowMs / (24 * H));
  const sigs = f.signatures.slice(0, 3);
  await store.putCoverage({
    run: { verifiedAtMs: f.nowMs, sinceDay: today - 1, untilDay: today, fromSlot: 0, toSlot: 1e9, daysVerified: 2, completeSinceDay: null, completeThroughDay: null, chainSignatures: 3, storeSignatures: 0, gaps: 3, surpluses: 0, listed: 3, durationMs: 1 },
    days: [{ day: today, chainTotal: 3, chainFailed: 0, storeEvents: 0, storeEmpty: 0, storeFailed: 0, gaps: 3, surpluses: 0, failedMismatches: 0 }],
    diffs: sigs.map((s) => ({ day: today, signature: s.signature, slot: s.slot, side: 'gap' as const, failed: false })),
  });
  await q.coverageSignatures({ day: today, fromSlot: 0, toSlot: 1e12, minBlockTime: 0 });
  await q.coverageSummary();
  for (const side of [undefined, 'gap', 'surplus'] as const) {
    const first = await q.coverageReport({ limit: 1, side });
    if (first?.next) await q.coverageReport({ limit: 1, side, after: first.next });
  }
  // The indexer's and the key service's reads and updates.
  await store.unpricedHours(10);
  await store.getPrices(f.tokens.SOL!, f.nowMs - 86_400_000, f.nowMs);
  await store.knownSignatures(f.signatures.slice(0, 20).map((s) => s.signature));
  await store.setState({ 'plans.test': '1' });
  await store.getState('plans.test');
  await store.keys.insert({ id: 'k1', name: 'plans', tier: 'standard', rpm: 100, burst: 200, keyHash: 'a'.repeat(64), createdAt: f.nowMs, expiresAt: null, revokedAt: null, scopes: ['read'], publishable: false, origins: [] });
  await store.keys.findByHash('a'.repeat(64));
  await store.keys.revoke('k1', f.nowMs);
  await store.keys.list();
}

describe('query plans (SQLite)', () => {
  it('every read of every operation uses an index on history-sized tables', async () => {
    const reads = new Map([...recorded].filter(([sqlText]) => /^\s*select/i.test(sqlText)));
    expect(reads.size).toBeGreaterThan(40);
    // The checker itself flags what it must (a COUNT over history, a full sort of raw games).
    reads.set('select count(*) as n from games', []);
    reads.set('select signature from games where creator = ? order by wager limit 5', [f.creators[0]]);
    reads.set('select player from ru_user_t where token = ? order by usd_net desc limit 5', [f.tokens.SOL]);
    reads.set('select pool from ru_pool order by usd_house_pnl desc limit 5', []);
    const raw = new BetterSqlite3(path, { readonly: true });
    const bad: string[] = [];
    try {
      for (const [sqlText, params] of reads) {
        const plan = planOf(raw, sqlText, params);
        const text = plan.join(' | ');
        // A SCAN of a big table (even through an index) reads all of it, unless LIMIT stops an ordered scan.
        const limited = /\blimit\b/i.test(sqlText);
        const fullScan = scansBigTable(sqlText, plan) && !limited;
        // A windowed leaderboard sorts its grouped window rows (bounded by the window), not raw games.
        // The indexer's re-pricing job reads un-priced rows through the partial indexes on them:
        // bounded by the un-priced backlog, not by history.
        const backlog = /\busing (covering )?index (g|pc)_unpriced\b/i.test(text);
        // GET /house-edge/wins with a filter or a window sorts that filter's games of the window (its index
        // range): no index orders games by multiplier or USD profit within a creator, pool or player
        // (docs/design.md §10 says so); unfiltered and all time it reads the ordering's index with LIMIT.
        const winsOfRange = /^\s*select signature, time_ms, player, creator, token, pool, game_kind\b/.test(sqlText) && /^SEARCH games USING INDEX g_(time|creator_time|pool_time|player_time|token_time) /.test(plan[0] ?? '');
        // So does one inside a single UTC day (its raw games only, bounded on both sides of time_ms, grouped per player first).
        const groupedWindow = /\btime_ms>\? AND time_ms<\?/.test(text) && plan.includes('USE TEMP B-TREE FOR GROUP BY');
        const rawSort = /\b(games|pool_changes)\b/.test(text) && !/\b(ru_daily|ru_block_user)\b/.test(text) && !backlog && !winsOfRange && !groupedWindow && plan.includes('USE TEMP B-TREE FOR ORDER BY');
        const leaderboardSort = (PLAYER_ROLLUP.test(sqlText) || POOL_LIST.test(sqlText)) && plan.some((d) => d.startsWith('USE TEMP B-TREE FOR ORDER BY'));
        if (fullScan || rawSort || leaderboardSort) bad.push(`${sqlText.replace(/\s+/g, ' ').slice(0, 160)}\n    ${text}`);
      }
    } finally {
      raw.close();
    }
    expect(bad.length, bad.join('\n')).toBe(4);
    expect(bad[0]).toMatch(/^select count\(\*\) as n from games/);
    expect(bad[1]).toMatch(/order by wager/);
    expect(bad[2]).toMatch(/order by usd_net/);
    expect(bad[3]).toMatch(/order by usd_house_pnl/);
  });
  it("a window top-N's page rows read each cut day in time order (g_time, or g_creator_time for one creator), not one player at a time", () => {
    // topn.ts randomAccess: a page's players hold most of a day's games, so per-player reads went
    // over the day's table pages again and again (docs/benchmarks.md "The page's rows at 10M").
    const pageRows = [...recorded].filter(([sqlText]) => /^\s*select player, sum\(plays\)/i.test(sqlText) && /\bfrom games where day = \?/.test(sqlText));
    expect(pageRows.length).toBeGreaterThan(0);
    const raw = new BetterSqlite3(path, { readonly: true });
    try {
      for (const [sqlText, params] of pageRows) {
        const plan = planOf(raw, sqlText, params);
        const gamesSteps = plan.filter((d) => /\bgames\b/.test(d));
        expect(gamesSteps.length, sqlText).toBeGreaterThan(0);
        for (const d of gamesSteps) expect(d).toMatch(/^SEARCH games USING INDEX (g_time \(|g_creator_time \(creator=\? AND )time_ms>\? AND time_ms<\?\)/);
      }
    } finally {
      raw.close();
    }
  });
  it("one creator's top-N sums its candidates' cut-day games from g_player_time alone (player, time), the creator read from the index", () => {
    // topn.ts valueParts with a creator and a list of players (sortValues): through g_creator_time
    // every game of the creator's cut part was found, and each game's row read for its player and
    // value (migration 0031; docs/benchmarks.md "One creator's leaderboard at ten million games").
    const creatorCuts = [...recorded].filter(([sqlText]) => /\bfrom games\s+where time_ms >= \? and time_ms < \? and \+creator = \? and player in\b/.test(sqlText));
    expect(creatorCuts.length).toBeGreaterThan(0);
    const raw = new BetterSqlite3(path, { readonly: true });
    try {
      for (const [sqlText, params] of creatorCuts) {
        const gamesSteps = planOf(raw, sqlText, params).filter((d) => /\bgames\b/.test(d));
        expect(gamesSteps.length, sqlText).toBeGreaterThan(0);
        for (const d of gamesSteps) expect(d).toBe('SEARCH games USING COVERING INDEX g_player_time (player=? AND time_ms>? AND time_ms<?)');
      }
    } finally {
      raw.close();
    }
  });
  it("a part copy's keyset pages each search the part's sort index from the last row read", () => {
    // part-vectors.ts read with pageRows: `value <= last and (value < last or player > last player)`
    // bounds the index range; without the first term SQLite reads the part from its start each page.
    const pages = [...recorded].filter(([sqlText]) => /\bfrom ru_day_user\s+where 1=1 and day = \?\s+and usd_profit <= \? and \(usd_profit < \? or player > \?\)/.test(sqlText));
    expect(pages.length).toBeGreaterThan(0);
    const raw = new BetterSqlite3(path, { readonly: true });
    try {
      for (const [sqlText, params] of pages) {
        const steps = planOf(raw, sqlText, params);
        expect(steps, sqlText).toEqual(['SEARCH ru_day_user USING COVERING INDEX ru_day_user_profit (day=? AND usd_profit<?)']);
      }
    } finally {
      raw.close();
    }
  });
  it("a window page's and the top-N's random access's cut-day hours search ru_hour_user_t by (day, player), one search per player", () => {
    // topn.ts randomAccess and sortValues, and house-edge.ts playersPage: the whole hours of a cut
    // day for the page's or the candidates' players (docs/design.md §7 "Hours of the cut days"); a
    // scan of the day's rows would read every player's hours, and so would the range of the narrow
    // index ru_hour_user_hour (migration 0030), which the hours term (`+hour_ms`) is kept out of.
    const hourReads = [...recorded].filter(([sqlText]) => /\bfrom ru_hour_user_t where day = \?( and \+?hour_ms >= \? and \+?hour_ms < \?)? and player in\b/.test(sqlText));
    expect(hourReads.some(([sqlText]) => /^\s*select player, sum\(plays\)/i.test(sqlText))).toBe(true);
    expect(hourReads.some(([sqlText]) => /^\s*select player, token\b/i.test(sqlText))).toBe(true);
    expect(hourReads.some(([sqlText]) => /\bselect player, usd_(wager|profit) as v\b/i.test(sqlText))).toBe(true);
    const raw = new BetterSqlite3(path, { readonly: true });
    try {
      for (const [sqlText, params] of hourReads) {
        const steps = planOf(raw, sqlText, params).filter((d) => /\bru_hour_user_t\b/.test(d));
        expect(steps.length, sqlText).toBeGreaterThan(0);
        for (const d of steps) expect(d, sqlText).toMatch(/^SEARCH ru_hour_user_t USING PRIMARY KEY \(day=\? AND player=\?[) ]/);
      }
    } finally {
      raw.close();
    }
  });
  it('every update, delete and WITH statement finds its rows of history-sized tables through an index', () => {
    // With no table statistics, SQLite plans a join of a VALUES list (a WITH) with a table by the
    // list's length alone: the write path's chunks of 256 rows must search, not scan (returns.ts
    // linkDays). The reads above are the statements starting with SELECT.
    const writes = [...recorded].filter(([sqlText]) => /^\s*(with|update|delete)\b/i.test(sqlText));
    expect(writes.length).toBeGreaterThan(10);
    expect(writes.some(([sqlText, params]) => /\bupdate ru_active_day\b/.test(sqlText) && params.length === 4 * 256)).toBe(true);
    const raw = new BetterSqlite3(path, { readonly: true });
    const bad: string[] = [];
    try {
      for (const [sqlText, params] of writes) {
        const plan = planOf(raw, sqlText, params);
        if (scansBigTable(sqlText, plan)) bad.push(`${sqlText.replace(/\s+/g, ' ').slice(0, 160)}\n    ${plan.join(' | ')}`);
      }
    } finally {
      raw.close();
    }
    expect(bad, bad.join('\n')).toEqual([]);
  });
  it('every index is used by some read or update, or is the conflict target of a write', () => {
    const raw = new BetterSqlite3(path, { readonly: true });
    try {
      const used = new Set<string>();
      for (const [sqlText, params] of recorded) {
        if (/^\s*insert/i.test(sqlText)) {
          // An upsert's conflict target needs the unique index on exactly those columns.
          const table = /^\s*insert into "?(\w+)"?/i.exec(sqlText)?.[1];
          const target = /\bon conflict \(([^)]*)\)/i.exec(sqlText)?.[1];
          if (table && target) used.add(`${table}(${target.replace(/["\s]/g, '')})`);
          continue;
        }
        if (!/^\s*(select|update|delete|with)\b/i.test(sqlText)) continue;
        for (const detail of planOf(raw, sqlText, params)) {
          const m = /USING (?:COVERING )?INDEX (\w+)/.exec(detail);
          if (m) used.add(m[1]!);
        }
      }
      const indexes = originalPrepare.call(raw, `select name, tbl_name as tbl from sqlite_master where type = 'index'`).all([]) as { name: string; tbl: string }[];
      const columns = (name: string) => (originalPrepare.call(raw, `select name from pragma_index_info(?) order by seqno`).all([name]) as { name: string }[]).map((c) => c.name).join(',');
      const unused = indexes
        // Kysely's own migration bookkeeping is not ours.
        .filter((i) => !i.tbl.startsWith('schema_migrations'))
        .filter((i) => !used.has(i.name) && !used.has(`${i.tbl}(${columns(i.name)})`))
        .map((i) => `${i.tbl}.${i.name} (${columns(i.name)})`);
      expect(indexes.length).toBeGreaterThan(60);
      expect(unused, `indexes nothing uses: ${unused.join(', ')}`).toEqual([]);
      // The check itself sees an index nothing uses.
      const spare = new BetterSqlite3(path);
      try {
        spare.exec('create index plans_test_spare on games (slot, payout)');
      } finally {
        spare.close();
      }
      const after = originalPrepare.call(raw, `select name from sqlite_master where type = 'index' and name = 'plans_test_spare'`).all([]) as { name: string }[];
      expect(after.map((i) => i.name).filter((n) => !used.has(n))).toEqual(['plans_test_spare']);
    } finally {
      raw.close();
    }
  });
});
