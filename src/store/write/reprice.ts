import type { Kysely } from 'kysely';
import { hourFloor, quarterOf } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import { gameUsd, usdPerUnit } from '../pricing.js';
import { CounterAccumulator, PoolAccumulator, refreshPoolTvl, repriceDelta, RollupAccumulator } from '../rollups/index.js';
import type { Database } from '../schema.js';
import type { HourlyPrice } from '../types.js';

/**
 * Stores new hourly prices (an existing (mint, hour) is kept: stored prices never change) and
 * re-prices the un-priced games and pool changes of those hours, rollups included, in one
 * transaction; pools of a token with a new price get their TVL at the latest price.
 */
export async function putPrices(db: Kysely<Database>, a: DialectAdapter, decimals: Map<string, number>, prices: HourlyPrice[]): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let repriced = 0;
    const rollups = new RollupAccumulator();
    const poolTotals = new PoolAccumulator();
    const priced = new Set<string>();
    for (const pr of prices) {
      const hourMs = hourFloor(pr.hourMs);
      const res = await trx
        .insertInto('prices')
        .values({ mint: pr.mint, hour_ms: hourMs, usd_price: pr.usdPrice, source: pr.source, publish_time: pr.publishTime })
        .onConflict((oc) => oc.columns(['mint', 'hour_ms']).doNothing())
        .executeTakeFirst();
      if (Number(res.numInsertedOrUpdatedRows ?? 0) === 0) continue;
      priced.add(pr.mint);
      const p = usdPerUnit(pr.usdPrice, decimals.get(pr.mint));
      if (p === null) continue;
      const games = await trx
        .selectFrom('games')
        .select(['signature', 'event_index', 'time_ms', 'day', 'player', 'creator', 'token', 'pool', 'wager', 'payout', 'jackpot', 'creator_fee', 'gamba_fee', 'pool_fee', 'jackpot_fee', 'game_kind'])
        .where('token', '=', pr.mint)
        .where('hour_ms', '=', hourMs)
        .where('usd_per_unit', 'is', null)
        .execute();
      for (const g of games) {
        const facts = { wager: BigInt(g.wager), payout: BigInt(g.payout), jackpot: BigInt(g.jackpot), creatorFee: BigInt(g.creator_fee), gambaFee: BigInt(g.gamba_fee), poolFee: BigInt(g.pool_fee), jackpotFee: BigInt(g.jackpot_fee) };
        const usd = gameUsd(facts, p);
        await trx
          .updateTable('games')
          .set({ usd_per_unit: p, usd_wager: usd.wager, usd_profit: usd.profit, usd_creator_fee: usd.creatorFee, usd_gamba_fee: usd.gambaFee, usd_net: usd.net })
          .where('signature', '=', g.signature)
          .where('event_index', '=', g.event_index)
          .execute();
        rollups.add(
          { day: g.day, hour_ms: Number(hourMs), quarter_ms: quarterOf(Number(g.time_ms)), creator: g.creator, token: g.token, pool: g.pool, player: g.player, game_kind: g.game_kind },
          // Re-pricing adds USD only (repriceDelta): the expected payout is a token sum, already counted.
          repriceDelta({ timeMs: Number(g.time_ms), wager: facts.wager, payout: facts.payout, jackpot: facts.jackpot, poolFee: facts.poolFee, expected: 0n, usd }),
        );
        poolTotals.reprice(g.pool, g.token, usd);
        repriced++;
      }
      const changes = await trx
        .selectFrom('pool_changes')
        .select(['signature', 'event_index', 'amount'])
        .where('token', '=', pr.mint)
        .where('hour_ms', '=', hourMs)
        .where('usd_per_unit', 'is', null)
        .execute();
      for (const c of changes) {
        await trx
          .updateTable('pool_changes')
          .set({ usd_per_unit: p, usd_amount: Number(BigInt(c.amount)) * p })
          .where('signature', '=', c.signature)
          .where('event_index', '=', c.event_index)
          .execute();
      }
      if (rollups.size > 5000) await rollups.flush(trx, a);
    }
    await rollups.flush(trx, a);
    await poolTotals.flush(trx);
    await refreshPoolTvl(trx, { tokens: [...priced] });
    const counters = new CounterAccumulator();
    counters.add('unpriced_games', -repriced);
    await counters.flush(trx);
    return repriced;
  });
}
