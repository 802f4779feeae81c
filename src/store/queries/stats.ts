import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { StatsQuery, StatsResult } from '../types.js';
import { counter, num, windowSource } from './common.js';

/** Active window of `active_players`: the last 60 minutes of wall clock (DESIGN §3). */
export const ACTIVE_WINDOW_MS = 60 * 60 * 1000;

/** GET /stats (spec §2 Platform statistics; definitions DESIGN §3). */
export async function stats(db: Kysely<Database>, a: DialectAdapter, q: StatsQuery): Promise<StatsResult> {
  const f = { creator: q.creator };
  let row: Record<string, unknown> | undefined;
  if (q.startTime === undefined) {
    // All-time: sums from the small ru_ctp rollup, player count from per-player rollups.
    const sums = await sql<Record<string, unknown>>`select sum(plays) as plays, sum(usd_wager) as usd_volume,
        sum(usd_creator_fee) as revenue, sum(usd_net) as net, count(distinct creator) as creators, min(first_ms) as first_ms
      from ru_ctp where 1=1 ${q.creator === undefined ? sql`` : sql`and creator = ${q.creator}`}`.execute(db);
    // Players: the write path's counter, or the creator's rows of ru_user_ctp (its players, not its games).
    const players =
      q.creator === undefined
        ? await counter(db, 'players')
        : num((await sql<{ n: unknown }>`select count(distinct player) as n from ru_user_ctp where creator = ${q.creator}`.execute(db)).rows[0]?.n);
    row = { ...sums.rows[0], players };
  } else {
    const res = await sql<Record<string, unknown>>`select sum(plays) as plays, sum(usd_wager) as usd_volume,
        sum(usd_creator_fee) as revenue, sum(usd_net) as net, count(distinct creator) as creators,
        count(distinct player) as players, min(first_ms) as first_ms
      from (${windowSource(a, f, q.startTime)}) w`.execute(db);
    row = res.rows[0];
  }
  const active = await sql<{ n: unknown }>`select count(distinct player) as n from games
    where time_ms >= ${q.now - ACTIVE_WINDOW_MS} and time_ms <= ${q.now}
    ${q.creator === undefined ? sql`` : sql`and creator = ${q.creator}`}`.execute(db);
  return {
    players: num(row?.players),
    usd_volume: num(row?.usd_volume),
    plays: num(row?.plays),
    creators: num(row?.creators),
    revenue_usd: num(row?.revenue),
    player_net_profit_usd: num(row?.net),
    active_players: num(active.rows[0]?.n),
    first_bet_time: num(row?.first_ms),
  };
}
