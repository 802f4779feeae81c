import { sql, type Kysely } from 'kysely';
import { MS_PER_DAY } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { PlatformEntry, PlatformsQuery } from '../types.js';
import { num, windowSource } from './common.js';

/** GET /platforms: creators over the rolling window now − days×24 h (DESIGN §4); ties by creator asc. */
export async function platforms(db: Kysely<Database>, a: DialectAdapter, q: PlatformsQuery): Promise<PlatformEntry[]> {
  const start = q.now - q.days * MS_PER_DAY;
  const order = q.sortBy === 'usd_revenue' ? sql`sum(usd_creator_fee)` : sql`sum(usd_wager)`;
  const res = await sql<Record<string, unknown>>`select creator, sum(usd_wager) as usd_volume, sum(usd_creator_fee) as usd_revenue,
      sum(plays) as plays, count(distinct player) as unique_players, max(last_ms) as last_activity
    from (${windowSource(a, {}, start)}) w group by creator order by ${order} desc, creator asc limit ${q.limit}`.execute(db);
  return res.rows.map((r) => ({
    creator: String(r.creator),
    usd_volume: num(r.usd_volume),
    usd_revenue: num(r.usd_revenue),
    plays: num(r.plays),
    unique_players: num(r.unique_players),
    last_activity: num(r.last_activity),
  }));
}
