/**
 * rebuild == incremental (docs/benchmarks.md): the contract fixture is written through the write path the
 * way the indexer does (batches, half the prices late so the re-pricing path runs, one batch
 * replayed), then every derived table (rollups and counters) is read row by row, rebuilt from
 * raw events with `rebuildRollups`, and read again. Integers (plays, hi/lo token sums, times,
 * counters) must be identical; USD doubles may differ only by summation order (1e-9 relative).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ROLLUP_KEYS } from '../../src/store/rollups.js';
import { DERIVED_TABLES } from '../../src/store/write.js';
import { loadFixture } from '../contract/context.js';
import { generateFixture } from '../helpers/fixture.js';
import { testDialects } from '../helpers/store.js';

type Row = Record<string, unknown>;

/** Row order of each derived table: its key (the write path's own rollup keys, plus the two non-game tables). */
const KEYS: Record<(typeof DERIVED_TABLES)[number], readonly string[]> = {
  ...ROLLUP_KEYS,
  ru_pool_hour: ['pool', 'hour_ms'],
  ru_counter: ['name'],
};
const DOUBLES = new Set(['usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net', 'max_usd_profit', 'min_usd_profit']);

interface World {
  store: Store;
  /** Every row of a table ordered by its key (byte-wise text order on both engines). */
  rows(table: string): Promise<Row[]>;
  close(): Promise<void>;
}

async function openWorld(dialect: 'sqlite' | 'postgres'): Promise<World> {
  const common = createCommon();
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gamba-rebuild-'));
    const path = join(dir, 'gamba.db');
    const store = await createStore({ common, config: { kind: 'sqlite', path } });
    const raw = new BetterSqlite3(path, { readonly: true });
    raw.defaultSafeIntegers(true);
    return {
      store,
      rows: async (t) => raw.prepare(`select * from ${t} order by ${KEYS[t as keyof typeof KEYS].join(', ')}`).all() as Row[],
      async close() {
        raw.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.TEST_DATABASE_URL!;
  const schema = `rb_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const store = await createStore({ common, config: { kind: 'postgres', url, schema } as never, schema });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`set search_path = ${schema}`);
  return {
    store,
    rows: async (t) => (await client.query(`select * from ${t} order by ${KEYS[t as keyof typeof KEYS].join(', ')}`)).rows as Row[],
    async close() {
      await store.close();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

function expectSameRows(table: string, after: Row[], before: Row[]): void {
  expect(after.length, `${table} row count`).toBe(before.length);
  for (let i = 0; i < before.length; i++) {
    const a = after[i]!;
    const b = before[i]!;
    expect(Object.keys(a).sort(), table).toEqual(Object.keys(b).sort());
    for (const k of Object.keys(b)) {
      const label = `${table} row ${i} (${KEYS[table as keyof typeof KEYS].map((c) => String(b[c])).join(' ')}) column ${k}`;
      if (DOUBLES.has(k)) {
        const x = Number(a[k]);
        const y = Number(b[k]);
        expect(Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) + 1e-9, `${label}: ${x} vs ${y}`).toBe(true);
      } else {
        expect(a[k] === null ? null : String(a[k]), label).toBe(b[k] === null ? null : String(b[k]));
      }
    }
  }
}

describe.each(testDialects())('rollups rebuild (%s)', (dialect) => {
  it('rebuilding from raw events gives every derived table row for row', async () => {
    const w = await openWorld(dialect);
    try {
      const f = generateFixture({ seed: 99, games: 1500, poolChanges: 150 });
      await loadFixture(w.store, f, 'split');
      // A replayed batch (crash recovery) must change nothing.
      const replay = f.events.slice(0, 300);
      const sigs = [...new Set(replay.map((e) => e.signature))].map((s) => f.signatures.find((x) => x.signature === s)!);
      const again = await w.store.writeBatch({ events: replay, signatures: sigs });
      expect(again.gamesInserted + again.poolChangesInserted).toBe(0);

      const incremental = new Map<string, Row[]>();
      for (const t of DERIVED_TABLES) incremental.set(t, await w.rows(t));
      expect(incremental.get('ru_daily')!.length).toBeGreaterThan(500);
      expect(incremental.get('ru_counter')!.map((r) => r.name)).toEqual(expect.arrayContaining(['players', 'signatures', 'pool_changes', 'unpriced_games']));

      await w.store.rebuildRollups();
      for (const t of DERIVED_TABLES) expectSameRows(t, await w.rows(t), incremental.get(t)!);

      // Counters against plain counts of the fixture.
      const counter = (name: string) => Number(incremental.get('ru_counter')!.find((r) => r.name === name)?.n ?? 0);
      const games = f.events.filter((e) => e.name === 'GameSettled');
      expect(counter('players')).toBe(new Set(games.map((e) => (e.name === 'GameSettled' ? e.data.user : ''))).size);
      // Per-filter player counters (the leaderboards' totals) against distinct players of the fixture.
      const distinct = (pick: (d: { user: string; creator: string; tokenMint: string; pool: string }) => string) => {
        const m = new Map<string, Set<string>>();
        for (const e of games) if (e.name === 'GameSettled') {
          const k = pick(e.data);
          if (!m.has(k)) m.set(k, new Set());
          m.get(k)!.add(e.data.user);
        }
        return m;
      };
      const shapes: [string, (d: { creator: string; tokenMint: string; pool: string }) => string][] = [
        ['c', (d) => d.creator],
        ['t', (d) => d.tokenMint],
        ['p', (d) => d.pool],
        ['ct', (d) => `${d.creator}:${d.tokenMint}`],
        ['cp', (d) => `${d.creator}:${d.pool}`],
      ];
      for (const [shape, pick] of shapes) {
        const expected = distinct(pick);
        expect(expected.size, shape).toBeGreaterThan(1);
        for (const [k, players] of expected) expect(counter(`players:${shape}:${k}`), `players:${shape}:${k}`).toBe(players.size);
      }
      expect(counter('signatures')).toBe(f.signatures.length);
      expect(counter('pool_changes')).toBe(f.events.filter((e) => e.name === 'PoolChange').length);
      const unpriced = games.filter((e) => e.name === 'GameSettled' && (f.priceOf(e.data.tokenMint, Math.floor(e.blockTime / 3600) * 3_600_000) === undefined || f.decimalsOf(e.data.tokenMint) === undefined)).length;
      expect(counter('unpriced_games')).toBe(unpriced);
      expect(unpriced).toBeGreaterThan(0);
    } finally {
      await w.close();
    }
  });
});
