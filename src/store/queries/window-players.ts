import { sql, type Kysely } from 'kysely';
import { MS_PER_DAY, dayOf } from '../../core/index.js';
import type { Database } from '../schema.js';
import { ALL_CREATORS } from '../rollups/index.js';
import { dayAndBlockParts, num } from './common.js';

/**
 * Distinct players of each group over the closed window [start, end) (Unix ms), from migration
 * 0016's tables (docs/design.md §7 "Distinct players of a closed window"); `creators` lists the
 * groups: creator addresses, or ALL_CREATORS ('') for every game. Returns group → players (a
 * group without games in the window maps to 0).
 *
 * With d the start's UTC day and e the end's, the players are W ∪ A ∪ B: W those of the whole
 * days d+1 … e−1, A those of the raw games of [start, end of day d), B those of [start of day e,
 * end). Then
 * - |W| = the ru_return_day / ru_return_block counts of those days whose prev_day < d+1 (each
 *   player counts on its first day of W only): a few rows per day and group, not per player;
 * - |(A ∪ B) \ W| = the edge games' distinct players with no ru_active_day row in d+1 … e−1.
 * The cost follows the groups, the window's days and the edge days' games, not the players of
 * the whole days.
 */
export async function windowPlayers(db: Kysely<Database>, creators: readonly string[], start: number, end: number): Promise<Map<string, number>> {
  const out = new Map<string, number>(creators.map((c) => [c, 0]));
  if (creators.length === 0 || end <= start) return out;
  const d = dayOf(start);
  const e = dayOf(end);
  const groups = sql`and creator in (${sql.join(creators)})`;
  if (e > d + 1) {
    const parts = dayAndBlockParts('ru_return_day', 'ru_return_block', sql`creator, players`, d + 1, e, sql`and prev_day < ${d + 1} ${groups}`);
    const whole = await sql<{ creator: string; n: unknown }>`select creator, sum(players) as n from (${sql.join(parts, sql` union all `)}) w group by creator`.execute(db);
    for (const r of whole.rows) out.set(r.creator, num(r.n));
  }
  // The edge games, as (group, player): every game belongs to ALL_CREATORS and to its creator.
  const all = creators.includes(ALL_CREATORS);
  const named = creators.filter((c) => c !== ALL_CREATORS);
  const edges: [number, number][] = [[start, Math.min(end, (d + 1) * MS_PER_DAY)]];
  if (e > d && end > e * MS_PER_DAY) edges.push([e * MS_PER_DAY, end]);
  const selects = [];
  for (const [from, to] of edges) {
    if (all) selects.push(sql`select ${sql.lit(ALL_CREATORS)} as creator, player from games where time_ms >= ${from} and time_ms < ${to}`);
    // `creator || ''` keeps the planner on g_time (time_ms, creator, player: migration 0018), read
    // alone; an index on creator would fetch every game's row for its player.
    if (named.length > 0) selects.push(sql`select creator, player from games where time_ms >= ${from} and time_ms < ${to} and (creator || '') in (${sql.join(named)})`);
  }
  const inWhole = e > d + 1 ? sql`and not exists (select 1 from ru_active_day s where s.creator = x.creator and s.player = x.player and s.day > ${d} and s.day < ${e})` : sql``;
  const edge = await sql<{ creator: string; n: unknown }>`select x.creator, count(distinct x.player) as n from (${sql.join(selects, sql` union all `)}) x
    where 1=1 ${inWhole} group by x.creator`.execute(db);
  for (const r of edge.rows) out.set(r.creator, (out.get(r.creator) ?? 0) + num(r.n));
  return out;
}
