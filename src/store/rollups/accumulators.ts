import { sql, type Kysely, type Transaction } from 'kysely';
import { splitU64 } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import { fixedChunks, runPrecompiled } from '../statement-cache.js';
import {
  blockOf,
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

/** The extremes by how they merge (hoisted out of the per-row loop). */
const MAX_COLUMNS = EXTREME_COLUMNS.filter((c) => EXTREMES[c].merge === 'max');
const MIN_COLUMNS = EXTREME_COLUMNS.filter((c) => EXTREMES[c].merge === 'min');

function merge(into: GameDelta, d: GameDelta): void {
  for (const c of SUM_COLUMNS) into[c] += d[c];
  for (const c of POOL_SUM_COLUMNS) into[c] += d[c];
  for (const c of MAX_COLUMNS) into[c] = Math.max(into[c], d[c]);
  for (const c of MIN_COLUMNS) into[c] = Math.min(into[c], d[c]);
}

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

/**
 * Accumulates deltas of a batch per rollup row in memory, then writes each touched row once
 * (a batch of games by few platforms/tokens collapses to few upserts).
 */
export class RollupAccumulator {
  private readonly rows = new Map<RollupTable, Map<string, { key: Record<string, string | number>; delta: GameDelta }>>();

  add(dims: GameDims, delta: GameDelta): void {
    const block = blockOf(dims.day);
    for (const table of ROLLUP_TABLES) {
      const cols = ROLLUP_KEYS[table];
      // The row's identity as one string, built without an intermediate array; the key object
      // only for a row this batch has not touched yet (most games merge into existing rows).
      let id = '';
      for (const c of cols) id += (c === 'block' ? block : dims[c as keyof GameDims]) + '\u0000';
      let m = this.rows.get(table);
      if (!m) this.rows.set(table, (m = new Map()));
      const row = m.get(id);
      if (row) {
        merge(row.delta, delta);
        continue;
      }
      const key: Record<string, string | number> = {};
      for (const c of cols) key[c] = c === 'block' ? block : dims[c as keyof GameDims];
      m.set(id, { key, delta: { ...delta } });
    }
  }

  get size(): number {
    let n = 0;
    for (const m of this.rows.values()) n += m.size;
    return n;
  }

  /**
   * Writes every touched row once (multi-row upserts in fixed-size chunks: few distinct SQL
   * texts, so prepared statements are reused) and counts rows created in the per-player
   * rollups into `counters` (definitions.ts playerCounterName), so no reader ever counts players.
   */
  async flush(trx: Transaction<Database> | Kysely<Database>, a: DialectAdapter, counters?: CounterAccumulator): Promise<void> {
    for (const [table, m] of this.rows) {
      const rows = [...m.values()];
      const countNew = counters !== undefined && playerCounterOf(table) !== undefined;
      // Bound-parameter limits: SQLite 32766, PostgreSQL 65535; ≤ 32 columns × 256 rows stays under both.
      for (const chunk of fixedChunks(rows)) {
        const fresh = await upsertRollups(trx, a, table, chunk, countNew);
        if (countNew) for (const k of fresh) counters!.add(playerCounterName(table, k)!, 1);
      }
    }
    this.rows.clear();
  }
}

/**
 * Upserts rollup rows; with `countNew`, returns the keys of the rows it created (a row is new
 * when its stored play count equals the delta's, which is only possible for a fresh row since
 * stored rows always have ≥ 1 play).
 */
async function upsertRollups(
  db: Transaction<Database> | Kysely<Database>,
  a: DialectAdapter,
  table: RollupTable,
  rows: { key: Record<string, string | number>; delta: GameDelta }[],
  countNew: boolean,
): Promise<Record<string, string | number>[]> {
  const keyCols = ROLLUP_KEYS[table];
  const sums: readonly string[] = hasPoolSums(table) ? [...SUM_COLUMNS, ...POOL_SUM_COLUMNS] : SUM_COLUMNS;
  const cols = [...keyCols, ...sums, ...EXTREME_COLUMNS];
  const params: unknown[] = [];
  for (const { key, delta } of rows) for (const c of cols) params.push(c in key ? key[c] : delta[c as keyof GameDelta]);
  const t = sql.raw(table);
  const ref = (c: string) => sql.raw(`${table}.${c}`);
  const ex = (c: string) => sql.raw(`excluded.${c}`);
  const updates = [
    ...sums.map((c) => sql`${sql.raw(c)} = ${ref(c)} + ${ex(c)}`),
    ...EXTREME_COLUMNS.map((c) => sql`${sql.raw(c)} = ${(EXTREMES[c].merge === 'max' ? a.greatest : a.least)(ref(c), ex(c))}`),
  ];
  const anyPlays = rows.some((r) => r.delta.plays > 0);
  const returning = countNew && anyPlays ? sql` returning ${sql.raw(keyCols.join(', '))}, plays` : sql``;
  // One SQL text per (dialect, table, row count, returning): compiled once (statement-cache.ts).
  const build = () => {
    let i = 0;
    const tuples = rows.map(() => sql`(${sql.join(cols.map(() => params[i++]))})`);
    return sql`insert into ${t} (${sql.raw(cols.join(', '))}) values ${sql.join(tuples)}
    on conflict (${sql.raw(keyCols.join(', '))}) do update set ${sql.join(updates)}${returning}`.compile(db);
  };
  const res = await runPrecompiled<Record<string, unknown>>(db, `${a.kind}:${table}:${rows.length}:${countNew && anyPlays}`, build, params);
  if (!countNew || !anyPlays) return [];
  const byKey = new Map(rows.map((r) => [keyCols.map((c) => String(r.key[c])).join('\u0000'), r]));
  const fresh: Record<string, string | number>[] = [];
  for (const r of res.rows) {
    const row = byKey.get(keyCols.map((c) => String(r[c])).join('\u0000'));
    if (row !== undefined && row.delta.plays > 0 && Number(r.plays) === row.delta.plays) fresh.push(row.key);
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
