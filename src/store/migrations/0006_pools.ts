import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * Pools an API client can list and read (GET /pools, GET /pool; docs/design.md §3–§4):
 * - ru_pool: one row per pool, all time — game sums (plays, Σ wager, Σ payout, Σ poolFee as
 *   32-bit halves; their USD at each game's price), the pool's latest liquidity and LP supply
 *   (with the chain-order key of the event that reported them), its creation (authority,
 *   created_ms, −1 when unknown), the time of its latest event, and tvl_usd = latest liquidity ×
 *   the token's latest stored USD price (0 without one). Indexed on (sort key desc, pool) and
 *   (token, sort key desc, pool) for each `sortBy` of GET /pools, so a page reads `limit` entries.
 * - ru_pool_day gains the pool-fee and house-PnL sums, so a window of GET /pool reads whole
 *   days there and only the raw games of its partial first and last days.
 * Both are filled here from the raw events by plain SQL (frozen with this migration,
 * docs/architecture.md convention 12), as the write path keeps them incrementally.
 */
export function migration0006(a: DialectAdapter) {
  const dbl = a.double;
  const big = a.bigint;
  /**
   * 32-bit halves of a u64 held as decimal text, exact on both engines (SQLite casts saturate at
   * 2^63): text = A·10^9 + B with B its last 9 digits; A = q·2^32 + r; then
   * hi = q·10^9 + (r·10^9 + B) div 2^32 and lo = (r·10^9 + B) mod 2^32, every step below 2^63.
   */
  const hiLo = (col: string): [string, string] => {
    const A = `(case when length(${col}) > 9 then cast(substr(${col}, 1, length(${col}) - 9) as ${big}) else 0 end)`;
    const B = `cast(case when length(${col}) > 9 then substr(${col}, length(${col}) - 8) else ${col} end as ${big})`;
    const t = `((${A} % 4294967296) * 1000000000 + ${B})`;
    return [`((${A} / 4294967296) * 1000000000 + ${t} / 4294967296)`, `(${t} % 4294967296)`];
  };
  const [feeHi, feeLo] = hiLo('pool_fee');
  // USD of a game's pool fee and of its house PnL (wager − payout) at its price; 0 un-priced.
  const usdPoolFee = `coalesce(cast(pool_fee as ${dbl}) * usd_per_unit, 0)`;
  const usdHousePnl = `coalesce((cast(wager as ${dbl}) - cast(payout as ${dbl})) * usd_per_unit, 0)`;
  const key = (slot: string, sig: string, idx: string) =>
    `substr('000000000000' || ${slot}, length('000000000000' || ${slot}) - 11) || ' ' || ${sig} || ' ' || substr('0000' || ${idx}, length('0000' || ${idx}) - 3)`;
  const latest = 'row_number() over (partition by pool order by slot desc, signature desc, event_index desc)';
  const max3 = (x: string, y: string, z: string) =>
    `(case when ${x} >= ${y} and ${x} >= ${z} then ${x} when ${y} >= ${z} then ${y} else ${z} end)`;

  const fill = async (db: Kysely<any>): Promise<void> => {
    // ru_pool_day again, with the new columns, from the raw games.
    await sql.raw('delete from ru_pool_day').execute(db);
    await sql.raw(`insert into ru_pool_day (pool, day, token, plays, jackpots, wager_hi, wager_lo, payout_hi, payout_lo, jackpot_hi, jackpot_lo,
        usd_wager, usd_profit, usd_creator_fee, usd_gamba_fee, usd_net, max_usd_profit, min_usd_profit, first_ms, last_ms,
        pool_fee_hi, pool_fee_lo, usd_pool_fee, usd_house_pnl)
      select pool, day, token, count(*), sum(is_jackpot), sum(wager_hi), sum(wager_lo), sum(payout_hi), sum(payout_lo), sum(jackpot_hi), sum(jackpot_lo),
        sum(usd_wager), sum(usd_profit), sum(usd_creator_fee), sum(usd_gamba_fee), sum(usd_net),
        case when max(usd_profit) > 0 then max(usd_profit) else 0 end, case when min(usd_profit) < 0 then min(usd_profit) else 0 end,
        min(time_ms), max(time_ms), sum(${feeHi}), sum(${feeLo}), sum(${usdPoolFee}), sum(${usdHousePnl})
      from games group by pool, day, token`).execute(db);

    await sql.raw(`insert into ru_pool (pool, token, authority, created_ms, plays, wager_hi, wager_lo, payout_hi, payout_lo, pool_fee_hi, pool_fee_lo,
        usd_wager, usd_pool_fee, usd_house_pnl, liq_key, liquidity, lp_key, lp_supply, last_ms, tvl_usd)
      select p.pool, p.token, p.authority, coalesce(p.created_time_ms, -1),
        coalesce(g.plays, 0), coalesce(g.wager_hi, 0), coalesce(g.wager_lo, 0), coalesce(g.payout_hi, 0), coalesce(g.payout_lo, 0),
        coalesce(g.pool_fee_hi, 0), coalesce(g.pool_fee_lo, 0), coalesce(g.usd_wager, 0), coalesce(g.usd_pool_fee, 0), coalesce(g.usd_house_pnl, 0),
        l.k, l.liquidity, c.k, c.lp_supply,
        ${max3('coalesce(g.last_ms, -1)', 'coalesce(ch.last_ms, -1)', 'coalesce(p.created_time_ms, -1)')},
        coalesce(cast(l.liquidity as ${dbl}) * (pr.usd_price / power(10, m.decimals)), 0)
      from pools p
      left join (select pool, count(*) as plays, sum(wager_hi) as wager_hi, sum(wager_lo) as wager_lo, sum(payout_hi) as payout_hi, sum(payout_lo) as payout_lo,
          sum(${feeHi}) as pool_fee_hi, sum(${feeLo}) as pool_fee_lo, sum(usd_wager) as usd_wager, sum(${usdPoolFee}) as usd_pool_fee,
          sum(${usdHousePnl}) as usd_house_pnl, max(time_ms) as last_ms
        from games group by pool) g on g.pool = p.pool
      left join (select pool, ${key('slot', 'signature', 'event_index')} as k, liquidity, ${latest} as rn
        from (select pool, slot, signature, event_index, pool_liquidity as liquidity from games
              union all
              select pool, slot, signature, event_index, post_liquidity as liquidity from pool_changes) ev) l on l.pool = p.pool and l.rn = 1
      left join (select pool, ${key('slot', 'signature', 'event_index')} as k, lp_supply, ${latest} as rn from pool_changes) c on c.pool = p.pool and c.rn = 1
      left join (select pool, max(time_ms) as last_ms from pool_changes group by pool) ch on ch.pool = p.pool
      left join mints m on m.mint = p.token
      left join (select mint, usd_price, row_number() over (partition by mint order by hour_ms desc) as rn from prices) pr on pr.mint = p.token and pr.rn = 1`).execute(db);
  };

  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const c of ['pool_fee_hi', 'pool_fee_lo']) await db.schema.alterTable('ru_pool_day').addColumn(c, big, (col) => col.notNull().defaultTo(0)).execute();
      for (const c of ['usd_pool_fee', 'usd_house_pnl']) await db.schema.alterTable('ru_pool_day').addColumn(c, dbl, (col) => col.notNull().defaultTo(0)).execute();

      let t = db.schema
        .createTable('ru_pool')
        .addColumn('pool', a.text, (c) => c.primaryKey())
        .addColumn('token', a.text, (c) => c.notNull())
        .addColumn('authority', a.text)
        .addColumn('created_ms', big, (c) => c.notNull());
      for (const c of ['plays', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'pool_fee_hi', 'pool_fee_lo']) t = t.addColumn(c, big, (col) => col.notNull());
      for (const c of ['usd_wager', 'usd_pool_fee', 'usd_house_pnl']) t = t.addColumn(c, dbl, (col) => col.notNull());
      await t
        .addColumn('liq_key', a.text)
        .addColumn('liquidity', a.text)
        .addColumn('lp_key', a.text)
        .addColumn('lp_supply', a.text)
        .addColumn('last_ms', big, (c) => c.notNull())
        .addColumn('tvl_usd', dbl, (c) => c.notNull())
        .execute();
      // GET /pools sortBy → column (tvl_usd, usd_volume, plays, pool_fees_usd, created_time).
      for (const col of ['tvl_usd', 'usd_wager', 'plays', 'usd_pool_fee', 'created_ms']) {
        await sql.raw(`create index ru_pool_by_${col} on ru_pool (${col} desc, pool)`).execute(db);
        await sql.raw(`create index ru_pool_token_${col} on ru_pool (token, ${col} desc, pool)`).execute(db);
      }

      if (db.isTransaction) await fill(db);
      else await db.transaction().execute((trx) => fill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
