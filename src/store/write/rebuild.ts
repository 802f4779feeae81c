import { sql, type Kysely, type Transaction } from 'kysely';
import { joinHiLo, quarterOf } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import { orderKey } from '../order-key.js';
import { DERIVED_TABLES, gameDelta, playerCounterOf, PLAYER_ROLLUP_TABLES, PoolAccumulator, PoolHourAccumulator, refreshPoolTvl, RollupAccumulator } from '../rollups/index.js';
import type { Database } from '../schema.js';
import { rebuildFairness } from './fairness.js';
import { rebuildReturns } from './returns.js';

/** Recomputes every rollup and counter from raw events, in one transaction (docs/architecture.md convention 3). */
export async function rebuildRollups(db: Kysely<Database>, a: DialectAdapter): Promise<void> {
  await rebuildRollupsIn(db, a);
}

/**
 * The rebuild inside the caller's transaction, or in a new one: clears every derived table
 * (definitions.ts DERIVED_TABLES) and refills it from games, pool_changes, pools and signatures.
 */
export async function rebuildRollupsIn(db: Kysely<any>, a: DialectAdapter): Promise<void> {
  if (!db.isTransaction) {
    await db.transaction().execute((trx) => rebuildRollupsIn(trx, a));
    return;
  }
  const trx = db as Transaction<Database>;
  {
    for (const t of DERIVED_TABLES) await trx.deleteFrom(t).execute();
    const chunk = 5000;
    let after: { signature: string; event_index: number } | undefined;
    for (;;) {
      let q = trx
        .selectFrom('games')
        .select(['signature', 'event_index', 'slot', 'time_ms', 'day', 'hour_ms', 'player', 'creator', 'token', 'pool', 'wager', 'payout', 'jackpot', 'pool_fee', 'usd_per_unit', 'usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net', 'pool_liquidity', 'expected_hi', 'expected_lo', 'game_kind'])
        .orderBy('signature')
        .orderBy('event_index')
        .limit(chunk);
      if (after) {
        const { signature, event_index } = after;
        q = q.where((eb) => eb(eb.refTuple('signature', 'event_index'), '>', eb.tuple(signature, event_index)));
      }
      const rows = await q.execute();
      if (rows.length === 0) break;
      const rollups = new RollupAccumulator();
      const hours = new PoolHourAccumulator();
      const poolTotals = new PoolAccumulator();
      for (const g of rows) {
        const timeMs = Number(g.time_ms);
        const wager = BigInt(g.wager);
        const payout = BigInt(g.payout);
        const poolFee = BigInt(g.pool_fee);
        // The stored USD values, and the pool-side ones as gameUsd computes them from the stored price.
        const p = g.usd_per_unit === null ? null : Number(g.usd_per_unit);
        const usd = {
          wager: Number(g.usd_wager), profit: Number(g.usd_profit), creatorFee: Number(g.usd_creator_fee), gambaFee: Number(g.usd_gamba_fee), net: Number(g.usd_net),
          poolFee: p === null ? 0 : Number(poolFee) * p,
          housePnl: p === null ? 0 : Number(wager - payout) * p,
        };
        rollups.add(
          { day: g.day, hour_ms: Number(g.hour_ms), quarter_ms: quarterOf(timeMs), creator: g.creator, token: g.token, pool: g.pool, player: g.player, game_kind: g.game_kind },
          gameDelta({ timeMs, wager, payout, jackpot: BigInt(g.jackpot), poolFee, expected: joinHiLo(g.expected_hi, g.expected_lo), usd }),
        );
        const key = orderKey(Number(g.slot), g.signature, g.event_index);
        hours.add(g.pool, Number(g.hour_ms), key, BigInt(g.pool_liquidity), null);
        poolTotals.game(g.pool, g.token, { timeMs, wager, payout, poolFee, usd, key, liquidity: BigInt(g.pool_liquidity) });
      }
      await rollups.flush(trx, a);
      await hours.flush(trx);
      await poolTotals.flush(trx);
      const last = rows[rows.length - 1]!;
      after = { signature: last.signature, event_index: last.event_index };
    }
    const changes = await trx.selectFrom('pool_changes').select(['signature', 'event_index', 'slot', 'time_ms', 'hour_ms', 'pool', 'token', 'post_liquidity', 'lp_supply']).execute();
    const hours = new PoolHourAccumulator();
    const poolTotals = new PoolAccumulator();
    for (const c of changes) {
      const key = orderKey(Number(c.slot), c.signature, c.event_index);
      hours.add(c.pool, Number(c.hour_ms), key, BigInt(c.post_liquidity), BigInt(c.lp_supply));
      poolTotals.change(c.pool, c.token, Number(c.time_ms), key, BigInt(c.post_liquidity), BigInt(c.lp_supply));
    }
    await hours.flush(trx);
    // Every known pool has a ru_pool row, with its creation when a PoolCreated was indexed.
    for (const p of await trx.selectFrom('pools').selectAll().execute()) {
      poolTotals.created(p.pool, p.token, p.authority, p.created_time_ms === null ? null : Number(p.created_time_ms));
    }
    await poolTotals.flush(trx);
    await refreshPoolTvl(trx);
    // Counters: the only place that counts history, by design (rebuild reads everything anyway).
    // The player counters (rollups/definitions.ts): one row per player and filter value of each per-player rollup.
    for (const table of PLAYER_ROLLUP_TABLES) await playerCounterFromRows(trx, table);
    await sql`insert into ru_counter (name, n) select 'signatures', count(*) from signatures`.execute(trx);
    await sql`insert into ru_counter (name, n) select 'pool_changes', count(*) from pool_changes`.execute(trx);
    await sql`insert into ru_counter (name, n) select 'unpriced_games', count(*) from games where usd_per_unit is null`.execute(trx);
    await sql`insert into ru_counter (name, n) select ${sql.lit('pool_changes:')} || pool, count(*) from pool_changes group by pool`.execute(trx);
    // The fairness audit: verdicts from raw fields, then ru_fair_day (docs/design.md "Fairness audit").
    await rebuildFairness(trx);
    // Players' active days and their previous active days (migration 0016).
    await rebuildReturns(trx);
  }
}

/**
 * Fills one rollup's player counters from its rows: `players` is count(*), `players:<tag>:<a>:<b>`
 * counts the rows per (a, b) (definitions.ts playerCounterName, the names the write path increments).
 */
async function playerCounterFromRows(trx: Transaction<Database>, table: (typeof PLAYER_ROLLUP_TABLES)[number]): Promise<void> {
  const def = playerCounterOf(table)!;
  const t = sql.raw(table);
  if (def.by.length === 0) {
    await sql`insert into ru_counter (name, n) select ${sql.lit('players')}, count(*) from ${t}`.execute(trx);
    return;
  }
  const name = sql.join(
    def.by.map((c, i) => (i === 0 ? sql`${sql.lit(`players:${def.tag}:`)} || ${sql.raw(c)}` : sql`${sql.lit(':')} || ${sql.raw(c)}`)),
    sql` || `,
  );
  await sql`insert into ru_counter (name, n) select ${name}, count(*) from ${t} group by ${sql.raw(def.by.join(', '))}`.execute(trx);
}
