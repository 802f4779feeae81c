import { sql, type Kysely, type Transaction } from 'kysely';
import { splitU64 } from '../../core/index.js';
import { usdPerUnit } from '../pricing.js';
import type { Database } from '../schema.js';
import { fixedChunks } from '../statement-cache.js';
import { OTHER_DERIVED_KEYS, POOL_TOTAL_SUMS, type PoolTotalSum } from './definitions.js';

type Db = Transaction<Database> | Kysely<Database>;

/**
 * The per-pool rollup `ru_pool` (migration 0006; GET /pools, GET /pool): a batch's changes per
 * pool merged in memory, then one upsert per touched pool, in the write path's transaction.
 * Sums add; the latest liquidity and LP supply are taken by chain order key (order-key.ts), so
 * events may arrive in any order (the backfill goes newest first); creation and the latest event
 * time merge by coalesce/max. TVL (liquidity × the token's latest stored price) is refreshed for
 * the touched pools afterwards (refreshPoolTvl).
 */
type PoolRow = Record<PoolTotalSum, number> & {
  pool: string;
  token: string;
  authority: string | null;
  /** −1 = unknown (no PoolCreated indexed). */
  createdMs: number;
  liqKey: string | null;
  liquidity: bigint | null;
  lpKey: string | null;
  lpSupply: bigint | null;
  /** −1 = none yet. */
  lastMs: number;
};

const SUMS = POOL_TOTAL_SUMS;

/** A row's sums before its first event: every POOL_TOTAL_SUMS column at 0. */
const ZERO_SUMS = Object.fromEntries(SUMS.map((c) => [c, 0])) as Record<PoolTotalSum, number>;

/** A game's contribution: its token amounts (smallest units), USD values, and the liquidity it reported. */
export interface PoolGame {
  timeMs: number;
  wager: bigint;
  payout: bigint;
  poolFee: bigint;
  usd: { wager: number; poolFee: number; housePnl: number };
  /** Chain order key of the event (order-key.ts) and its GameSettled.poolLiquidity. */
  key: string;
  liquidity: bigint;
}

/**
 * Merges a batch's (or a rebuild chunk's) games, pool changes and creations per pool in memory;
 * `flush` upserts each touched ru_pool row once and refreshes its TVL.
 */
export class PoolAccumulator {
  private readonly rows = new Map<string, PoolRow>();

  private row(pool: string, token: string): PoolRow {
    let r = this.rows.get(pool);
    if (!r) {
      r = {
        pool, token, authority: null, createdMs: -1,
        ...ZERO_SUMS,
        liqKey: null, liquidity: null, lpKey: null, lpSupply: null, lastMs: -1,
      };
      this.rows.set(pool, r);
    }
    return r;
  }

  private liquidity(r: PoolRow, key: string, liquidity: bigint): void {
    if (r.liqKey === null || key > r.liqKey) {
      r.liqKey = key;
      r.liquidity = liquidity;
    }
  }

  /** A newly stored game. */
  game(pool: string, token: string, g: PoolGame): void {
    const r = this.row(pool, token);
    const w = splitU64(g.wager);
    const p = splitU64(g.payout);
    const f = splitU64(g.poolFee);
    r.plays += 1;
    r.wager_hi += w.hi;
    r.wager_lo += w.lo;
    r.payout_hi += p.hi;
    r.payout_lo += p.lo;
    r.pool_fee_hi += f.hi;
    r.pool_fee_lo += f.lo;
    this.reprice(pool, token, g.usd);
    this.liquidity(r, g.key, g.liquidity);
    r.lastMs = Math.max(r.lastMs, g.timeMs);
  }

  /** USD values added to a stored game's pool (re-pricing, docs/design.md §6). */
  reprice(pool: string, token: string, usd: PoolGame['usd']): void {
    const r = this.row(pool, token);
    r.usd_wager += usd.wager;
    r.usd_pool_fee += usd.poolFee;
    r.usd_house_pnl += usd.housePnl;
  }

  /** A newly stored PoolChange: its post liquidity and LP supply, by chain order key. */
  change(pool: string, token: string, timeMs: number, key: string, postLiquidity: bigint, lpSupply: bigint): void {
    const r = this.row(pool, token);
    this.liquidity(r, key, postLiquidity);
    if (r.lpKey === null || key > r.lpKey) {
      r.lpKey = key;
      r.lpSupply = lpSupply;
    }
    r.lastMs = Math.max(r.lastMs, timeMs);
  }

  /** A PoolCreated (authority, creation time in ms). */
  created(pool: string, token: string, authority: string | null, timeMs: number | null): void {
    const r = this.row(pool, token);
    if (authority !== null) r.authority = authority;
    if (timeMs !== null) {
      r.createdMs = timeMs;
      r.lastMs = Math.max(r.lastMs, timeMs);
    }
  }

  get size(): number {
    return this.rows.size;
  }

  /** Upserts every touched pool once, then refreshes their TVL. */
  async flush(db: Db): Promise<void> {
    if (this.rows.size === 0) return;
    const rows = [...this.rows.values()];
    this.rows.clear();
    for (const chunk of fixedChunks(rows)) {
      const tuples = chunk.map((r) => sql`(${r.pool}, ${r.token}, ${r.authority}, ${r.createdMs}, ${sql.join(SUMS.map((c) => r[c]))},
        ${r.liqKey}, ${r.liquidity === null ? null : r.liquidity.toString()}, ${r.lpKey}, ${r.lpSupply === null ? null : r.lpSupply.toString()}, ${r.lastMs}, 0)`);
      const later = (k: string) => sql.raw(`excluded.${k} is not null and (ru_pool.${k} is null or excluded.${k} > ru_pool.${k})`);
      await sql`insert into ru_pool (pool, token, authority, created_ms, ${sql.raw(SUMS.join(', '))}, liq_key, liquidity, lp_key, lp_supply, last_ms, tvl_usd)
        values ${sql.join(tuples)}
        on conflict (${sql.raw(OTHER_DERIVED_KEYS.ru_pool.join(', '))}) do update set
          authority = coalesce(excluded.authority, ru_pool.authority),
          created_ms = case when excluded.created_ms >= 0 then excluded.created_ms else ru_pool.created_ms end,
          ${sql.join(SUMS.map((c) => sql.raw(`${c} = ru_pool.${c} + excluded.${c}`)))},
          liquidity = case when ${later('liq_key')} then excluded.liquidity else ru_pool.liquidity end,
          liq_key = case when ${later('liq_key')} then excluded.liq_key else ru_pool.liq_key end,
          lp_supply = case when ${later('lp_key')} then excluded.lp_supply else ru_pool.lp_supply end,
          lp_key = case when ${later('lp_key')} then excluded.lp_key else ru_pool.lp_key end,
          last_ms = case when excluded.last_ms > ru_pool.last_ms then excluded.last_ms else ru_pool.last_ms end`.execute(db);
    }
    await refreshPoolTvl(db, { pools: rows.map((r) => r.pool) });
  }
}

/**
 * Recomputes `tvl_usd` = liquidity × USD per smallest unit of the token's latest stored price
 * (the newest hour in `prices`; price / 10^decimals, docs/design.md §6), 0 without a price,
 * decimals or liquidity — for the given pools, the pools of the given tokens, or every pool.
 * Called after liquidity changes (write path), after new prices (putPrices) or decimals
 * (upsertMints), and by the rebuild. Reads one row per pool and one price per token.
 */
export async function refreshPoolTvl(db: Db, scope: { pools?: string[]; tokens?: string[] } = {}): Promise<void> {
  let q = db.selectFrom('ru_pool').leftJoin('mints', 'mints.mint', 'ru_pool.token').select(['ru_pool.pool', 'ru_pool.token', 'ru_pool.liquidity', 'ru_pool.tvl_usd', 'mints.decimals']);
  if (scope.pools) {
    if (scope.pools.length === 0) return;
    q = q.where('ru_pool.pool', 'in', scope.pools);
  }
  if (scope.tokens) {
    if (scope.tokens.length === 0) return;
    q = q.where('ru_pool.token', 'in', scope.tokens);
  }
  const rows = await q.execute();
  const perUnit = new Map<string, number | null>();
  for (const r of rows) {
    if (!perUnit.has(r.token)) {
      const price = await db.selectFrom('prices').select('usd_price').where('mint', '=', r.token).orderBy('hour_ms', 'desc').limit(1).executeTakeFirst();
      perUnit.set(r.token, usdPerUnit(price === undefined ? undefined : Number(price.usd_price), r.decimals === null ? undefined : Number(r.decimals)));
    }
    const p = perUnit.get(r.token) ?? null;
    const tvl = r.liquidity === null || p === null ? 0 : Number(r.liquidity) * p;
    if (tvl !== Number(r.tvl_usd)) await db.updateTable('ru_pool').set({ tvl_usd: tvl }).where('pool', '=', r.pool).execute();
  }
}
