import { sql, type Kysely } from 'kysely';
import { MS_PER_DAY } from '../../core/index.js';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { PlatformEntry, PlatformsQuery } from '../types.js';
import { num, openWindowSums } from './common.js';
import { activePlayers, windowPlayers } from './window-players.js';
import { rangeSums } from './series.js';
import { keysetKinds, positionValues } from './keyset.js';

/**
 * GET /platforms: creators over the rolling window now − days×24 h (docs/design.md §4); ties by creator asc.
 *
 * Cost follows the players active in the window, not per-day per-player rows: the window is open
 * towards now, so
 * - sums (USD volume, revenue, plays) = ru_day_c rows of whole days after the start day, ru_hour_c
 *   rows of that day's whole hours and the raw games of its partial first hour (common.ts openWindowSums);
 * - unique_players = players whose all-time last play with the creator is ≥ start
 *   (window-players.ts activePlayers: ru_user_c by last_ms, or its complement and the counters);
 * - last_activity = the creator's all-time last play (ru_ctp.last_ms), which lies in the window
 *   whenever the creator has a game there (only such creators are listed).
 */
export async function platforms(db: Kysely<Database>, a: DialectAdapter, q: PlatformsQuery): Promise<PlatformEntry[]> {
  // endTime without startTime: the `days` ending at endTime (docs/design.md §4 "Windows").
  if (q.endTime !== undefined) return closedWindow(db, a, q, q.startTime ?? q.endTime - q.days * MS_PER_DAY, q.endTime);
  const start = q.startTime ?? q.now - q.days * MS_PER_DAY;
  const order = q.sortBy === 'usd_revenue' ? sql`s.usd_revenue` : sql`s.usd_volume`;
  // Keyset (docs/design.md §4): strictly after the last row served, by (sort value desc, creator asc).
  const pos = q.after === undefined ? undefined : (positionValues(q.after, keysetKinds('platforms')) as [number, string]);
  const after = pos === undefined ? sql`` : sql`and ${order} <= ${pos[0]} and (${order} < ${pos[0]} or s.creator > ${pos[1]})`;
  const res = await sql<Record<string, unknown>>`with s as (
      select creator, sum(usd_wager) as usd_volume, sum(usd_creator_fee) as usd_revenue, sum(plays) as plays from (
        ${openWindowSums('ru_day_c', 'ru_hour_c', sql`creator, usd_wager, usd_creator_fee, plays`, sql`creator, usd_wager, usd_creator_fee, 1 as plays`, start, sql``)}
      ) w group by creator
    ), l as (
      select creator, max(last_ms) as last_activity from ru_ctp group by creator
    )
    select s.creator, s.usd_volume, s.usd_revenue, s.plays, l.last_activity
    from s join l on l.creator = s.creator where 1=1 ${after}
    order by ${order} desc, s.creator asc limit ${q.limit}`.execute(db);
  // Every creator with a game in the window has ≥ 1 player active in it.
  const players = await activePlayers(db, start, { byCreator: true });
  return res.rows.map((r) => ({
    creator: String(r.creator),
    usd_volume: num(r.usd_volume),
    usd_revenue: num(r.usd_revenue),
    plays: num(r.plays),
    unique_players: players.get(String(r.creator)) ?? 0,
    last_activity: num(r.last_activity),
  }));
}

/**
 * /platforms over a closed window [start, end) (docs/design.md §4 "Windows"): sums and the last
 * game per creator from ru_day_c / ru_hour_c and the sub-hour edges (queries/series.ts);
 * unique players per listed creator from the previous-active-day counts (window-players.ts).
 * Grows with the window's days and its edge days' games, not with history or players.
 */
async function closedWindow(db: Kysely<Database>, a: DialectAdapter, q: PlatformsQuery, start: number, end: number): Promise<PlatformEntry[]> {
  const [groups] = await rangeSums(db, a, { day: 'ru_day_c', hour: 'ru_hour_c', filter: {}, byCreator: true }, [{ from: start, to: end }], ['plays', 'usd_wager', 'usd_creator_fee', 'last_ms']);
  const rows = [...groups!.entries()].map(([creator, g]) => ({
    creator,
    usd_volume: num(g.usd_wager),
    usd_revenue: num(g.usd_creator_fee),
    plays: num(g.plays),
    unique_players: 0,
    last_activity: num(g.last_ms),
  }));
  const key = q.sortBy === 'usd_revenue' ? 'usd_revenue' : 'usd_volume';
  rows.sort((x, y) => y[key] - x[key] || (x.creator < y.creator ? -1 : x.creator > y.creator ? 1 : 0));
  const page = rows.slice(0, q.limit);
  if (page.length === 0) return page;
  // Distinct players of each listed creator in the window.
  const n = await windowPlayers(db, page.map((r) => r.creator), start, end);
  for (const r of page) r.unique_players = n.get(r.creator) ?? 0;
  return page;
}
