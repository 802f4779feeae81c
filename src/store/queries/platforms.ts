import { sql, type Kysely } from 'kysely';
import { MS_PER_DAY, dayOf } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { PlatformEntry, PlatformsQuery } from '../types.js';
import { num } from './common.js';

/**
 * GET /platforms: creators over the rolling window now − days×24 h (DESIGN §4); ties by creator asc.
 *
 * Cost follows the players active in the window, not per-day per-player rows: the window is open
 * towards now, so
 * - sums (USD volume, revenue, plays) = ru_day_c rows of whole days after the start day plus
 *   the raw games of the partial start day (time ≥ start);
 * - unique_players = players whose all-time last play with the creator (ru_user_c.last_ms,
 *   index ru_user_c_last, migration 0004) is ≥ start;
 * - last_activity = the creator's all-time last play (ru_ctp.last_ms), which lies in the window
 *   whenever the creator has a game there (only such creators are listed).
 */
export async function platforms(db: Kysely<Database>, _a: DialectAdapter, q: PlatformsQuery): Promise<PlatformEntry[]> {
  const start = q.now - q.days * MS_PER_DAY;
  const d = dayOf(start);
  // The upper bound on last_ms changes no answer; it tells SQLite's planner (no table statistics)
  // that the range is narrow, so it searches ru_user_c_last instead of scanning a creator-ordered
  // index whole. The raw start-day games are bounded by the day's end so g_time reads that day only.
  const order = q.sortBy === 'usd_revenue' ? sql`s.usd_revenue` : sql`s.usd_volume`;
  const res = await sql<Record<string, unknown>>`with s as (
      select creator, sum(usd_wager) as usd_volume, sum(usd_creator_fee) as usd_revenue, sum(plays) as plays from (
        select creator, usd_wager, usd_creator_fee, plays from ru_day_c where day > ${d}
        union all
        select creator, usd_wager, usd_creator_fee, 1 as plays from games where time_ms >= ${start} and time_ms < ${(d + 1) * MS_PER_DAY}
      ) w group by creator
    ), p as (
      select creator, count(*) as unique_players from ru_user_c
        where last_ms >= ${start} and last_ms <= ${Number.MAX_SAFE_INTEGER} group by creator
    ), l as (
      select creator, max(last_ms) as last_activity from ru_ctp group by creator
    )
    select s.creator, s.usd_volume, s.usd_revenue, s.plays, p.unique_players, l.last_activity
    from s join p on p.creator = s.creator join l on l.creator = s.creator
    order by ${order} desc, s.creator asc limit ${q.limit}`.execute(db);
  return res.rows.map((r) => ({
    creator: String(r.creator),
    usd_volume: num(r.usd_volume),
    usd_revenue: num(r.usd_revenue),
    plays: num(r.plays),
    unique_players: num(r.unique_players),
    last_activity: num(r.last_activity),
  }));
}
