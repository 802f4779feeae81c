import { sql, type Kysely, type Transaction } from 'kysely';
import { splitU64 } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import { fixedChunks, runPrecompiled } from '../statement-cache.js';
import {
  blockOf,
  segOf,
  EXTREME_COLUMNS,
  EXTREMES,
  GAME_SUMS,
  POOL_SUMS,
  hasPoolSums,
  OTHER_DERIVED_KEYS,
  playerCounterName,
  playerCounterOf,
  POOL_SUM_COLUMNS,
  ROLLUP_KEYS,
  ROLLUP_TABLES,
  SUM_COLUMNS,
  type ExtremeColumn,
  type GameSumColumn,
  type PoolSumColumn,
  type RollupTable,
} from './definitions.js';

/**
 * The additive contribution of one or more games to a rollup row (rollups/definitions.ts: the
 * game sums, the pool sums — written only to rollups with `poolSums` — and the extremes).
 * Token amounts are 32-bit halves of smallest units; USD values are doubles; times are ms.
 */
export type GameDelta = Record<GameSumColumn | PoolSumColumn | ExtremeColumn, number>;

/** The raw facts of a game a delta is made from (token amounts in smallest units, time in ms). */
export interface GameFacts {
  timeMs: number;
  wager: bigint;
  payout: bigint;
  jackpot: bigint;
  poolFee: bigint;
  /** Expected payout (smallest units; store/edge.ts expectedPayout): may exceed u64 for bets above 1x on average. */
  expected: bigint;
  /** USD values (pricing.ts gameUsd). */
  usd: { wager: number; profit: number; creatorFee: number; gambaFee: number; net: number; poolFee: number; housePnl: number };
}

/** Delta of a newly stored game (counts and token sums included). */
export function gameDelta(g: GameFacts): GameDelta {
  const w = splitU64(g.wager);
  const p = splitU64(g.payout);
  const j = splitU64(g.jackpot);
  const f = splitU64(g.poolFee);
  const x = splitU64(g.expected);
  return {
    plays: 1,
    jackpots: g.jackpot > 0n ? 1 : 0,
    wager_hi: w.hi, wager_lo: w.lo,
    payout_hi: p.hi, payout_lo: p.lo,
    jackpot_hi: j.hi, jackpot_lo: j.lo,
    pool_fee_hi: f.hi, pool_fee_lo: f.lo,
    wins: g.payout > g.wager ? 1 : 0,
    expected_hi: x.hi, expected_lo: x.lo,
    ...usdPart(g),
  };
}

/** Every sum that is not USD (counts and token halves) at 0: what re-pricing adds to them. */
const NO_COUNTS_OR_TOKENS = Object.fromEntries(
  Object.entries({ ...GAME_SUMS, ...POOL_SUMS })
    .filter(([, kind]) => kind !== 'usd')
    .map(([c]) => [c, 0]),
) as Record<Exclude<GameSumColumn | PoolSumColumn, keyof ReturnType<typeof usdPart>>, number>;

/** Delta of re-pricing a stored game: only its USD values (docs/design.md §6). */
export function repriceDelta(g: GameFacts): GameDelta {
  return { ...NO_COUNTS_OR_TOKENS, ...usdPart(g) };
}

function usdPart(g: GameFacts) {
  return {
    usd_wager: g.usd.wager,
    usd_profit: g.usd.profit,
    usd_creator_fee: g.usd.creatorFee,
    usd_gamba_fee: g.usd.gambaFee,
    usd_net: g.usd.net,
    usd_pool_fee: g.usd.poolFee,
    usd_house_pnl: g.usd.housePnl,
    max_usd_profit: Math.max(0, g.usd.profit),
    min_usd_profit: Math.min(0, g.usd.profit),
    first_ms: g.timeMs,
    last_ms: g.timeMs,
  };
}

/**
 * A delta's columns in the accumulator's slabs: the game sums, the pool sums, then the extremes.
 * A slab row holds exactly the doubles a GameDelta holds, so sums are the same either way.
 */
const DELTA_COLUMNS: readonly (keyof GameDelta)[] = [...SUM_COLUMNS, ...POOL_SUM_COLUMNS, ...EXTREME_COLUMNS];
const WIDTH = DELTA_COLUMNS.length;
/** Slab positions of the additive columns, and of the extremes by how they merge. */
const ADDITIVE = SUM_COLUMNS.length + POOL_SUM_COLUMNS.length;
const PLAYS_AT = DELTA_COLUMNS.indexOf('plays');
const MAX_AT = DELTA_COLUMNS.flatMap((c, i) => (i >= ADDITIVE && EXTREMES[c as ExtremeColumn].merge === 'max' ? [i] : []));
const MIN_AT = DELTA_COLUMNS.flatMap((c, i) => (i >= ADDITIVE && EXTREMES[c as ExtremeColumn].merge === 'min' ? [i] : []));

/** The dimensions of one game a rollup row's key is taken from (day: UTC day number; hour_ms / quarter_ms: start of its UTC hour / quarter hour, Unix ms: core quarterOf). */
export interface GameDims {
  day: number;
  hour_ms: number;
  quarter_ms: number;
  creator: string;
  token: string;
  pool: string;
  player: string;
  /** Game kind from the metadata (store/edge.ts gameKindOf; migration 0008). */
  game_kind: string;
}

/** A rollup key column: a GameDims field, or `block` / `seg` (definitions.ts blockOf / segOf of the day). */
type KeyColumn = keyof GameDims | 'block' | 'seg';
/** Key columns in the order of a game's codes (RollupAccumulator.add). */
const CODED: readonly KeyColumn[] = ['day', 'hour_ms', 'quarter_ms', 'block', 'seg', 'creator', 'token', 'pool', 'player', 'game_kind'];

/** A key column's value for a game: its dims field, or the block or segment of its day. */
const keyValue = (d: GameDims, c: KeyColumn): string | number => (c === 'block' ? blockOf(d.day) : c === 'seg' ? segOf(d.day) : d[c]);

/** One rollup table's rows of a batch: row index by key, the game whose dims give the key, and the sums. */
class TableRows {
  readonly ids = new Map<string, number>();
  readonly dims: GameDims[] = [];
  sums = new Float64Array(WIDTH * 16);
  constructor(
    readonly table: RollupTable,
    /** Positions in CODED of the table's key columns. */
    readonly at: readonly number[],
  ) {}

  key(i: number): Record<string, string | number> {
    const d = this.dims[i]!;
    const key: Record<string, string | number> = {};
    for (const c of ROLLUP_KEYS[this.table]) key[c] = keyValue(d, c as KeyColumn);
    return key;
  }
}

/**
 * Accumulates deltas of a batch per rollup row in memory, then writes each touched row once
 * (a batch of games by few platforms/tokens collapses to few upserts). A row's identity is its
 * key columns as per-batch ordinals (each value numbered in order of first sight, two UTF-16
 * units each, so an identity is a short flat string), and its sums live in one Float64Array per
 * table: a game touches 30 rows, most of them per player, and building long string keys and a
 * delta object per row was most of the write path's JavaScript (docs/benchmarks.md "The rollup
 * accumulator and deferred rollup indexes").
 */
export class RollupAccumulator {
  private readonly tables = ROLLUP_TABLES.map((t) => new TableRows(t, ROLLUP_KEYS[t].map((c) => CODED.indexOf(c as KeyColumn))));
  /** Per key column: each value seen in this batch → its ordinal. */
  private readonly names = CODED.map(() => new Map<string | number, number>());
  private readonly codes: string[] = new Array(CODED.length).fill('');
  private readonly delta = new Float64Array(WIDTH);

  add(dims: GameDims, delta: GameDelta): void {
    const codes = this.codes;
    for (let i = 0; i < CODED.length; i++) {
      const c = CODED[i]!;
      const v = keyValue(dims, c);
      const names = this.names[i]!;
      let n = names.get(v);
      if (n === undefined) names.set(v, (n = names.size));
      codes[i] = String.fromCharCode(n >>> 16, n & 0xffff);
    }
    const d = this.delta;
    for (let c = 0; c < WIDTH; c++) d[c] = delta[DELTA_COLUMNS[c]!];
    for (const t of this.tables) {
      let id = '';
      for (const i of t.at) id += codes[i];
      const row = t.ids.get(id);
      if (row !== undefined) {
        const s = t.sums;
        const o = row * WIDTH;
        for (let c = 0; c < ADDITIVE; c++) s[o + c]! += d[c]!;
        for (const c of MAX_AT) s[o + c] = Math.max(s[o + c]!, d[c]!);
        for (const c of MIN_AT) s[o + c] = Math.min(s[o + c]!, d[c]!);
        continue;
      }
      const n = t.dims.length;
      t.ids.set(id, n);
      t.dims.push(dims);
      if ((n + 1) * WIDTH > t.sums.length) {
        const grown = new Float64Array(t.sums.length * 2);
        grown.set(t.sums);
        t.sums = grown;
      }
      t.sums.set(d, n * WIDTH);
    }
  }

  get size(): number {
    let n = 0;
    for (const t of this.tables) n += t.dims.length;
    return n;
  }

  /**
   * Writes every touched row once (multi-row upserts in fixed-size chunks: few distinct SQL
   * texts, so prepared statements are reused) and counts rows created in the per-player
   * rollups into `counters` (definitions.ts playerCounterName), so no reader ever counts players.
   */
  async flush(trx: Transaction<Database> | Kysely<Database>, a: DialectAdapter, counters?: CounterAccumulator): Promise<void> {
    // Every day whose rollups this flush changes is bumped in ru_day_rev (migration 0029), in the
    // same transaction: readers' in-memory copies of a part's rows are stamped with it.
    const days = [...new Set(this.tables.find((t) => t.table === 'ru_day')!.dims.map((d) => d.day))];
    for (const chunk of fixedChunks(days)) await bumpDayRevisions(trx, a, chunk);
    for (const t of this.tables) {
      if (t.dims.length === 0) continue;
      const rows = t.dims.map((_, i) => i);
      const countNew = counters !== undefined && playerCounterOf(t.table) !== undefined;
      // Bound-parameter limits: SQLite 32766, PostgreSQL 65535; ≤ 32 columns × 256 rows stays under both.
      for (const chunk of fixedChunks(rows)) {
        const fresh = await upsertRollups(trx, a, t, chunk, countNew);
        if (countNew) for (const k of fresh) counters!.add(playerCounterName(t.table, k)!, 1);
      }
    }
    this.clear();
  }

  private clear(): void {
    for (const t of this.tables) {
      t.ids.clear();
      t.dims.length = 0;
    }
    for (const m of this.names) m.clear();
  }
}

/** Adds 1 to `rev` of each of `days` in ru_day_rev (a missing day starts at 1); one prepared text per chunk size. */
async function bumpDayRevisions(db: Transaction<Database> | Kysely<Database>, a: DialectAdapter, days: readonly number[]): Promise<void> {
  const build = () =>
    sql`insert into ru_day_rev (day, rev) values ${sql.join(days.map((d) => sql`(${d}, 1)`))}
    on conflict (day) do update set rev = ru_day_rev.rev + 1`.compile(db);
  await runPrecompiled(db, `${a.kind}:ru_day_rev:${days.length}`, build, [...days]);
}

/**
 * Upserts rows `rows` (indexes into `t`) of one table; with `countNew`, returns the keys of the
 * rows it created (a row is new when its stored play count equals the delta's, which is only
 * possible for a fresh row since stored rows always have ≥ 1 play).
 */
async function upsertRollups(
  db: Transaction<Database> | Kysely<Database>,
  a: DialectAdapter,
  t: TableRows,
  rows: readonly number[],
  countNew: boolean,
): Promise<Record<string, string | number>[]> {
  const table = t.table;
  const keyCols = ROLLUP_KEYS[table];
  const sums: readonly string[] = hasPoolSums(table) ? [...SUM_COLUMNS, ...POOL_SUM_COLUMNS] : SUM_COLUMNS;
  const valueCols = [...sums, ...EXTREME_COLUMNS];
  const slabAt = valueCols.map((c) => DELTA_COLUMNS.indexOf(c as keyof GameDelta));
  const cols = [...keyCols, ...valueCols];
  const params: unknown[] = [];
  const keys = rows.map((i) => t.key(i));
  rows.forEach((row, r) => {
    for (const c of keyCols) params.push(keys[r]![c]);
    for (const at of slabAt) params.push(t.sums[row * WIDTH + at]);
  });
  const plays = (row: number) => t.sums[row * WIDTH + PLAYS_AT]!;
  const anyPlays = rows.some((row) => plays(row) > 0);
  const returning = countNew && anyPlays ? sql` returning ${sql.raw(keyCols.join(', '))}, plays` : sql``;
  // One SQL text per (dialect, table, row count, returning): compiled once (statement-cache.ts).
  const build = () => {
    const ref = (c: string) => sql.raw(`${table}.${c}`);
    const ex = (c: string) => sql.raw(`excluded.${c}`);
    const updates = [
      ...sums.map((c) => sql`${sql.raw(c)} = ${ref(c)} + ${ex(c)}`),
      ...EXTREME_COLUMNS.map((c) => sql`${sql.raw(c)} = ${(EXTREMES[c].merge === 'max' ? a.greatest : a.least)(ref(c), ex(c))}`),
    ];
    let i = 0;
    const tuples = rows.map(() => sql`(${sql.join(cols.map(() => params[i++]))})`);
    return sql`insert into ${sql.raw(table)} (${sql.raw(cols.join(', '))}) values ${sql.join(tuples)}
    on conflict (${sql.raw(keyCols.join(', '))}) do update set ${sql.join(updates)}${returning}`.compile(db);
  };
  const res = await runPrecompiled<Record<string, unknown>>(db, `${a.kind}:${table}:${rows.length}:${countNew && anyPlays}`, build, params);
  if (!countNew || !anyPlays) return [];
  const byKey = new Map(rows.map((_, r) => [keyCols.map((c) => String(keys[r]![c])).join('\u0000'), r]));
  const fresh: Record<string, string | number>[] = [];
  for (const stored of res.rows) {
    const r = byKey.get(keyCols.map((c) => String(stored[c])).join('\u0000'));
    if (r !== undefined && plays(rows[r]!) > 0 && Number(stored.plays) === plays(rows[r]!)) fresh.push(keys[r]!);
  }
  return fresh;
}

/**
 * Named counters (table ru_counter) accumulated per batch and added in one upsert: totals
 * that would otherwise be COUNT(*) over history (docs/design.md §7). Names: 'signatures',
 * 'pool_changes', 'pool_changes:<pool>', 'unpriced_games', and the player counters (definitions.ts playerCounterName).
 */
export class CounterAccumulator {
  private readonly counts = new Map<string, number>();

  add(name: string, n: number): void {
    if (n !== 0) this.counts.set(name, (this.counts.get(name) ?? 0) + n);
  }

  async flush(db: Transaction<Database> | Kysely<Database>): Promise<void> {
    const rows = [...this.counts].filter(([, n]) => n !== 0);
    for (const chunk of fixedChunks(rows)) {
      await sql`insert into ru_counter (name, n) values ${sql.join(chunk.map(([name, n]) => sql`(${name}, ${n})`))}
        on conflict (${sql.raw(OTHER_DERIVED_KEYS.ru_counter.join(', '))}) do update set n = ru_counter.n + excluded.n`.execute(db);
    }
    this.counts.clear();
  }
}

/** Per (pool, hour) last liquidity and LP supply of a batch, merged by chain order key. */
export class PoolHourAccumulator {
  private readonly rows = new Map<string, { pool: string; hourMs: number; liqKey: string; liquidity: bigint; lpKey: string | null; lpSupply: bigint | null }>();

  add(pool: string, hourMs: number, key: string, liquidity: bigint, lpSupply: bigint | null): void {
    const id = `${pool} ${hourMs}`;
    const row = this.rows.get(id);
    if (!row) {
      this.rows.set(id, { pool, hourMs, liqKey: key, liquidity, lpKey: lpSupply === null ? null : key, lpSupply });
      return;
    }
    if (key > row.liqKey) {
      row.liqKey = key;
      row.liquidity = liquidity;
    }
    if (lpSupply !== null && (row.lpKey === null || key > row.lpKey)) {
      row.lpKey = key;
      row.lpSupply = lpSupply;
    }
  }

  async flush(db: Transaction<Database> | Kysely<Database>): Promise<void> {
    for (const chunk of fixedChunks([...this.rows.values()])) {
      const tuples = chunk
        .map((r) => sql`(${r.pool}, ${r.hourMs}, ${r.liqKey}, ${r.liquidity.toString()}, ${r.lpKey}, ${r.lpSupply === null ? null : r.lpSupply.toString()})`);
      await sql`insert into ru_pool_hour (pool, hour_ms, liq_key, liquidity, lp_key, lp_supply)
        values ${sql.join(tuples)}
        on conflict (${sql.raw(OTHER_DERIVED_KEYS.ru_pool_hour.join(', '))}) do update set
          liquidity = case when excluded.liq_key > ru_pool_hour.liq_key then excluded.liquidity else ru_pool_hour.liquidity end,
          liq_key = case when excluded.liq_key > ru_pool_hour.liq_key then excluded.liq_key else ru_pool_hour.liq_key end,
          lp_supply = case when excluded.lp_key is not null and (ru_pool_hour.lp_key is null or excluded.lp_key > ru_pool_hour.lp_key) then excluded.lp_supply else ru_pool_hour.lp_supply end,
          lp_key = case when excluded.lp_key is not null and (ru_pool_hour.lp_key is null or excluded.lp_key > ru_pool_hour.lp_key) then excluded.lp_key else ru_pool_hour.lp_key end`.execute(db);
    }
    this.rows.clear();
  }
}
