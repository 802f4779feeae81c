import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { StatsQuery, StatsResult } from '../types.js';
import { ALL_CREATORS, playerCounterName } from '../rollups/definitions.js';
import { counter, coversHistory, filterSql, num, openWindowSums } from './common.js';
import { activePlayers, windowPlayers } from './window-players.js';
import { rangeSums } from './series.js';

/** Active window of `active_players`: the last 60 minutes of wall clock (docs/design.md §3). */
export const ACTIVE_WINDOW_MS = 60 * 60 * 1000;

/** GET /stats (docs/spec.md §2 Platform statistics; definitions docs/design.md §3). */
export async function stats(db: Kysely<Database>, a: DialectAdapter, q: StatsQuery): Promise<StatsResult> {
  const f = { creator: q.creator };
  // A window holding the whole history is the all-time answer (common.ts coversHistory).
  if ((q.startTime !== undefined || q.endTime !== undefined) && (await coversHistory(db, q.startTime, q.endTime))) q = { ...q, startTime: undefined, endTime: undefined };
  let row: Record<string, unknown> | undefined;
  if (q.endTime !== undefined) {
    // A closed window [startTime, endTime): the last-play shortcut below does not hold (a player's
    // last play may lie after the end), so the sums come from the window's rollup days, hours and
    // quarter hours (queries/series.ts: ru_day / ru_hour, or the creator's ru_day_c / ru_hour_c),
    // the creators from those sums (one creator) or windowCreators (below), first_bet_time
    // from one search of the time index, players from the previous-active-day counts
    // (window-players.ts).
    const from = q.startTime ?? 0;
    const cf = filterSql(f);
    const src = q.creator === undefined ? ({ day: 'ru_day', hour: 'ru_hour', filter: f } as const) : ({ day: 'ru_day_c', hour: 'ru_hour_c', filter: f } as const);
    const [sums] = await rangeSums(db, a, src, [{ from, to: q.endTime }], ['plays', 'usd_wager', 'usd_creator_fee', 'usd_net']);
    const g = sums!.get('') ?? {};
    // One creator is in the window iff its sums above count a game; every creator: windowCreators.
    const creators = q.creator !== undefined ? (num(g.plays) > 0 ? 1 : 0) : await windowCreators(db, a, from, q.endTime);
    const first = await sql<{ t: unknown }>`select time_ms as t from games where time_ms >= ${from} and time_ms < ${q.endTime} ${cf} order by time_ms asc limit 1`.execute(db);
    const group = q.creator ?? ALL_CREATORS;
    const players = (await windowPlayers(db, [group], from, q.endTime)).get(group);
    row = { plays: g.plays, usd_volume: g.usd_wager, revenue: g.usd_creator_fee, net: g.usd_net, creators, players, first_ms: first.rows[0]?.t };
  } else if (q.startTime === undefined) {
    // All-time: sums from the small ru_ctp rollup, player count from per-player rollups.
    const sums = await sql<Record<string, unknown>>`select sum(plays) as plays, sum(usd_wager) as usd_volume,
        sum(usd_creator_fee) as revenue, sum(usd_net) as net, count(distinct creator) as creators, min(first_ms) as first_ms
      from ru_ctp where 1=1 ${q.creator === undefined ? sql`` : sql`and creator = ${q.creator}`}`.execute(db);
    // Players: the write path's counters (rollups/definitions.ts playerCounterName), all or of one creator.
    const players = await counter(db, q.creator === undefined ? playerCounterName('ru_user', {})! : playerCounterName('ru_user_c', { creator: q.creator })!);
    row = { ...sums.rows[0], players };
  } else {
    // Windows are open towards now (docs/spec.md §2 `startTime`: time ≥ startTime), so a player or creator
    // is in the window iff its all-time last play is ≥ startTime: counts read the all-time
    // rollups (ru_user / ru_user_c by last_ms, migration 0004; the small ru_ctp), sums read ru_day or
    // ru_day_c (migration 0004) for whole days, ru_hour or ru_hour_c (migration 0010) for the
    // whole hours of the start day and the raw games of its first, partial hour (openWindowSums),
    // first_bet_time is one index seek.
    const cf = filterSql(f);
    const byCreator = q.creator !== undefined;
    const sums = await sql<Record<string, unknown>>`select sum(plays) as plays, sum(usd_wager) as usd_volume,
        sum(usd_creator_fee) as revenue, sum(usd_net) as net from (${openWindowSums(byCreator ? 'ru_day_c' : 'ru_day', byCreator ? 'ru_hour_c' : 'ru_hour', sql`plays, usd_wager, usd_creator_fee, usd_net`, sql`1 as plays, usd_wager, usd_creator_fee, usd_net`, q.startTime, cf)}) w`.execute(db);
    const creators = await sql<{ n: unknown }>`select count(distinct creator) as n from ru_ctp where last_ms >= ${q.startTime} ${cf}`.execute(db);
    const players = (await activePlayers(db, q.startTime, { creator: q.creator })).get('') ?? 0;
    const first = await sql<{ t: unknown }>`select time_ms as t from games where time_ms >= ${q.startTime} ${cf} order by time_ms asc limit 1`.execute(db);
    row = { ...sums.rows[0], creators: creators.rows[0]?.n, players, first_ms: first.rows[0]?.t };
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

/**
 * How many creators have a game in [from, to) (Unix ms). SQLite: every creator by
 * name (ru_ctp is small) searched in the (creator, time_ms) index `g_creator_time`, one search
 * each (0.04–0.2 ms at 1M games). PostgreSQL plans that probe through `g_time` (time_ms, creator,
 * player) instead, scanning the whole window for a creator without a game in it (12–39 ms at 1M,
 * docs/benchmarks.md "PostgreSQL at 1M beside SQLite"), so there the creators are the groups with plays of the
 * window's per-creator rollup sums (series.ts rangeSums over ru_day_c / ru_hour_c), as `/platforms`
 * reads them.
 */
async function windowCreators(db: Kysely<Database>, a: DialectAdapter, from: number, to: number): Promise<number> {
  if (a.kind === 'sqlite') {
    const r = await sql<{ n: unknown }>`select count(*) as n from (select distinct creator from ru_ctp) c
      where exists (select 1 from games where games.creator = c.creator and time_ms >= ${from} and time_ms < ${to})`.execute(db);
    return num(r.rows[0]?.n);
  }
  const [groups] = await rangeSums(db, a, { day: 'ru_day_c', hour: 'ru_hour_c', filter: {}, byCreator: true }, [{ from, to }], ['plays']);
  return [...groups!.values()].filter((g) => num(g.plays) > 0).length;
}
