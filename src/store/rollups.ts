import { sql, type Kysely, type Transaction } from 'kysely';
import { splitU64 } from '../core/index.js';
import type { DialectAdapter } from './dialect.js';
import type { Database } from './schema.js';
import { fixedChunks, runPrecompiled } from './statement-cache.js';

/** The additive contribution of one or more games to a rollup row (schema.ts GameSums). */
export interface GameDelta {
  plays: number;
  /** Games with a jackpot payout (is_jackpot = 1): /events/settledGames?onlyJackpots totals. */
  jackpots: number;
  wager_hi: number;
  wager_lo: number;
  payout_hi: number;
  payout_lo: number;
  jackpot_hi: number;
  jackpot_lo: number;
  usd_wager: number;
  usd_profit: number;
  usd_creator_fee: number;
  usd_gamba_fee: number;
  usd_net: number;
  max_usd_profit: number;
  min_usd_profit: number;
  first_ms: number;
  last_ms: number;
  /** Σ poolFee halves, its USD and the house PnL in USD (kept by ru_pool_day only: POOL_SUM_TABLES). */
  pool_fee_hi: number;
  pool_fee_lo: number;
  usd_pool_fee: number;
  usd_house_pnl: number;
}

/** Pool-side sums (schema.ts PoolSums, migration 0006), written only to the tables of POOL_SUM_TABLES. */
export const POOL_SUM_COLUMNS = ['pool_fee_hi', 'pool_fee_lo', 'usd_pool_fee', 'usd_house_pnl'] as const;

export const SUM_COLUMNS = [
  'plays', 'jackpots', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'jackpot_hi', 'jackpot_lo',
  'usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net',
] as const;

/** The raw facts of a game a delta is made from. */
export interface GameFacts {
  timeMs: number;
  wager: bigint;
  payout: bigint;
  jackpot: bigint;
  poolFee: bigint;
  /** USD values (pricing.ts gameUsd). */
  usd: { wager: number; profit: number; creatorFee: number; gambaFee: number; net: number; poolFee: number; housePnl: number };
}

/** Delta of a newly stored game (counts and token sums included). */
export function gameDelta(g: GameFacts): GameDelta {
  const w = splitU64(g.wager);
  const p = splitU64(g.payout);
  const j = splitU64(g.jackpot);
  const f = splitU64(g.poolFee);
  return {
    plays: 1,
    jackpots: g.jackpot > 0n ? 1 : 0,
    wager_hi: w.hi, wager_lo: w.lo,
    payout_hi: p.hi, payout_lo: p.lo,
    jackpot_hi: j.hi, jackpot_lo: j.lo,
    pool_fee_hi: f.hi, pool_fee_lo: f.lo,
    ...usdPart(g),
  };
}

/** Delta of re-pricing a stored game: only its USD values (docs/design.md §6). */
export function repriceDelta(g: GameFacts): GameDelta {
  return { plays: 0, jackpots: 0, wager_hi: 0, wager_lo: 0, payout_hi: 0, payout_lo: 0, jackpot_hi: 0, jackpot_lo: 0, pool_fee_hi: 0, pool_fee_lo: 0, ...usdPart(g) };
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

function merge(into: GameDelta, d: GameDelta): void {
  for (const c of SUM_COLUMNS) into[c] += d[c];
  for (const c of POOL_SUM_COLUMNS) into[c] += d[c];
  into.max_usd_profit = Math.max(into.max_usd_profit, d.max_usd_profit);
  into.min_usd_profit = Math.min(into.min_usd_profit, d.min_usd_profit);
  into.first_ms = Math.min(into.first_ms, d.first_ms);
  into.last_ms = Math.max(into.last_ms, d.last_ms);
}

export type RollupTable =
  | 'ru_daily' | 'ru_day' | 'ru_day_c' | 'ru_pool_day' | 'ru_ctp'
  | 'ru_user_ctp' | 'ru_user' | 'ru_user_c' | 'ru_user_t' | 'ru_user_tp' | 'ru_user_ct' | 'ru_day_user' | 'ru_block_user';

/**
 * Days per block of ru_block_user: an unfiltered `startTime` window reads whole blocks after
 * the start day's block, then the start block's remaining days from ru_day_user, then the raw
 * games of the partial start day (queries/common.ts windowSource). Blocks are internal: day
 * numbers since the epoch divided by 32, not calendar months.
 */
export const BLOCK_DAYS = 32;

/** Rollups that also keep the pool-side sums (POOL_SUM_COLUMNS): windows of GET /pool (migration 0006). */
const POOL_SUM_TABLES: ReadonlySet<RollupTable> = new Set(['ru_pool_day']);
export const blockOf = (day: number | bigint): number => Math.floor(Number(day) / BLOCK_DAYS);

export const ROLLUP_KEYS: Record<RollupTable, readonly string[]> = {
  ru_daily: ['day', 'creator', 'token', 'pool', 'player'],
  ru_day: ['day'],
  ru_day_c: ['day', 'creator'],
  ru_pool_day: ['pool', 'day', 'token'],
  ru_ctp: ['creator', 'token', 'pool'],
  ru_user_ctp: ['player', 'creator', 'token', 'pool'],
  ru_user: ['player'],
  ru_user_c: ['player', 'creator'],
  ru_user_t: ['player', 'token'],
  ru_user_tp: ['player', 'token', 'pool'],
  ru_user_ct: ['player', 'creator', 'token'],
  ru_day_user: ['day', 'player'],
  ru_block_user: ['block', 'player'],
};

const ROLLUP_TABLES = Object.keys(ROLLUP_KEYS) as RollupTable[];

/**
 * Player counters kept per per-player rollup (the `total` of /players and /stats players, read
 * without counting rows): a player's first row in the table adds 1 to the counter named here.
 * Names: 'players' (all), 'players:c:<creator>', 'players:t:<token>', 'players:p:<pool>',
 * 'players:ct:<creator>:<token>', 'players:cp:<creator>:<pool>'.
 */
export const PLAYER_COUNTERS: Partial<Record<RollupTable, (k: Record<string, string | number>) => string>> = {
  ru_user: () => 'players',
  ru_user_c: (k) => `players:c:${k.creator}`,
  ru_user_t: (k) => `players:t:${k.token}`,
  ru_user_tp: (k) => `players:p:${k.pool}`,
  ru_user_ct: (k) => `players:ct:${k.creator}:${k.token}`,
  ru_user_ctp: (k) => `players:cp:${k.creator}:${k.pool}`,
};

export interface GameDims {
  day: number;
  creator: string;
  token: string;
  pool: string;
  player: string;
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
   * rollups into `counters` (PLAYER_COUNTERS), so no reader ever counts players.
   */
  async flush(trx: Transaction<Database> | Kysely<Database>, a: DialectAdapter, counters?: CounterAccumulator): Promise<void> {
    for (const [table, m] of this.rows) {
      const rows = [...m.values()];
      const name = counters ? PLAYER_COUNTERS[table] : undefined;
      // Bound-parameter limits: SQLite 32766, PostgreSQL 65535; 22 columns × 256 rows stays under both.
      for (const chunk of fixedChunks(rows)) {
        const fresh = await upsertRollups(trx, a, table, chunk, name !== undefined);
        if (name) for (const k of fresh) counters!.add(name(k), 1);
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
  const sums: readonly string[] = POOL_SUM_TABLES.has(table) ? [...SUM_COLUMNS, ...POOL_SUM_COLUMNS] : SUM_COLUMNS;
  const cols = [...keyCols, ...sums, 'max_usd_profit', 'min_usd_profit', 'first_ms', 'last_ms'];
  const params: unknown[] = [];
  for (const { key, delta } of rows) for (const c of cols) params.push(c in key ? key[c] : delta[c as keyof GameDelta]);
  const t = sql.raw(table);
  const ref = (c: string) => sql.raw(`${table}.${c}`);
  const ex = (c: string) => sql.raw(`excluded.${c}`);
  const updates = [
    ...sums.map((c) => sql`${sql.raw(c)} = ${ref(c)} + ${ex(c)}`),
    sql`max_usd_profit = ${a.greatest(ref('max_usd_profit'), ex('max_usd_profit'))}`,
    sql`min_usd_profit = ${a.least(ref('min_usd_profit'), ex('min_usd_profit'))}`,
    sql`first_ms = ${a.least(ref('first_ms'), ex('first_ms'))}`,
    sql`last_ms = ${a.greatest(ref('last_ms'), ex('last_ms'))}`,
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
 * 'pool_changes', 'pool_changes:<pool>', 'unpriced_games', and the player counters (PLAYER_COUNTERS).
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
        on conflict (name) do update set n = ru_counter.n + excluded.n`.execute(db);
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
        on conflict (pool, hour_ms) do update set
          liquidity = case when excluded.liq_key > ru_pool_hour.liq_key then excluded.liquidity else ru_pool_hour.liquidity end,
          liq_key = case when excluded.liq_key > ru_pool_hour.liq_key then excluded.liq_key else ru_pool_hour.liq_key end,
          lp_supply = case when excluded.lp_key is not null and (ru_pool_hour.lp_key is null or excluded.lp_key > ru_pool_hour.lp_key) then excluded.lp_supply else ru_pool_hour.lp_supply end,
          lp_key = case when excluded.lp_key is not null and (ru_pool_hour.lp_key is null or excluded.lp_key > ru_pool_hour.lp_key) then excluded.lp_key else ru_pool_hour.lp_key end`.execute(db);
    }
    this.rows.clear();
  }
}
