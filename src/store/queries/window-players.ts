import { sql, type Kysely, type RawBuilder } from 'kysely';
import { MS_PER_DAY, dayOf } from '../../core/index.js';
import type { Database } from '../schema.js';
import { ALL_CREATORS, playerCounterName } from '../rollups/index.js';
import { counter, listedSpans, newestDay, num } from './common.js';

/**
 * Distinct players of each group over the closed window [start, end) (Unix ms), from migration
 * 0016's and 0024's tables (docs/design.md §7 "Distinct players of a closed window"); `creators`
 * lists the groups: creator addresses, or ALL_CREATORS ('') for every game. Returns group →
 * players (a group without games in the window maps to 0).
 *
 * With d the start's UTC day and e the end's, the players are W ∪ A ∪ B: W those of the whole
 * days d+1 … e−1, A those of [start, end of day d), B those of [start of day e, end). Then
 * - |W| = the ru_return_day / ru_return_block counts of those days whose prev_day < d+1 (each
 *   player counts on its first day of W only): a few rows per day and group, not per player;
 * - |A \ W| = day d's ru_active_day rows with last_ms ≥ start (played in A) whose next_day is
 *   none or ≥ e (not in W): one range of the (creator, day, last_ms, next_day) index;
 * - |B \ (W ∪ A)| = day e's rows with first_ms < end (played in B) whose prev_day < d, or = d
 *   with that day's last_ms < start (played on day d, not in A): one range of the (creator, day,
 *   first_ms, prev_day) index, and a key search for the players who also played on day d.
 * A window inside one UTC day (d = e) counts its games' distinct players. The cost follows the
 * groups, the window's days and the cut days' players, not the players of the whole days nor the
 * cut days' games.
 */
export async function windowPlayers(db: Kysely<Database>, creators: readonly string[], start: number, end: number): Promise<Map<string, number>> {
  const out = new Map<string, number>(creators.map((c) => [c, 0]));
  if (creators.length === 0 || end <= start) return out;
  const d = dayOf(start);
  const e = dayOf(end);
  if (e > d + 1) for (const [c, n] of await playersOfDays(db, creators, d + 1, e)) out.set(c, n);
  const inCreators = sql`creator in (${sql.join(creators)})`;
  let edges: RawBuilder<unknown>;
  if (e === d) {
    // One day: its games' distinct (group, player); every game belongs to ALL_CREATORS and to its creator.
    const selects = [];
    if (creators.includes(ALL_CREATORS)) selects.push(sql`select ${sql.lit(ALL_CREATORS)} as creator, player from games where time_ms >= ${start} and time_ms < ${end}`);
    const named = creators.filter((c) => c !== ALL_CREATORS);
    // `creator || ''` keeps the planner on g_time (time_ms, creator, player: migration 0018), read
    // alone; an index on creator would fetch every game's row for its player.
    if (named.length > 0) selects.push(sql`select creator, player from games where time_ms >= ${start} and time_ms < ${end} and (creator || '') in (${sql.join(named)})`);
    edges = sql`select creator, count(*) as n from (select distinct creator, player from (${sql.join(selects, sql` union all `)}) g) x group by creator`;
  } else {
    const parts = [sql`select creator, count(*) as n from ru_active_day where ${inCreators} and day = ${d} and last_ms >= ${start} and (next_day is null or next_day >= ${e}) group by creator`];
    if (end > e * MS_PER_DAY) {
      // `s.last_ms + 0`: the probe is one key search of the primary key (creator, player, day).
      // PostgreSQL, whose statistics call a `last_ms` range selective, otherwise searched
      // ru_active_day_tail (creator, day, last_ms) and read ~400 entries of the day per probe
      // (/stats over a closed window at 1M games: 5.8 → 0.8 ms for this statement). SQLite takes the
      // primary key either way.
      parts.push(sql`select creator, count(*) as n from ru_active_day b where ${inCreators} and day = ${e} and first_ms < ${end}
        and (prev_day < ${d} or (prev_day = ${d} and not exists (select 1 from ru_active_day s where s.creator = b.creator and s.player = b.player and s.day = ${d} and s.last_ms + 0 >= ${start})))
        group by creator`);
    }
    edges = sql.join(parts, sql` union all `);
  }
  for (const r of (await sql<{ creator: string; n: unknown }>`${edges}`.execute(db)).rows) out.set(r.creator, (out.get(r.creator) ?? 0) + num(r.n));
  return out;
}

/**
 * Distinct players per group (creator; ALL_CREATORS '' = every game) of the whole UTC days
 * [first, end) (day numbers), from the previous-active-day counts (migrations 0016 and 0024): each
 * player counts on its first day there, the only one with prev_day < first. The whole 32-day
 * blocks come from ru_return_block, the days at their edges from ru_return_day. For each (group,
 * block or day) the count is the `players_cum` of its last row with prev_day < first: one search
 * of the primary key backwards from (group, block or day, first), whatever the number of earlier
 * days its players return from.
 */
async function playersOfDays(db: Kysely<Database>, creators: readonly string[], first: number, end: number): Promise<Map<string, number>> {
  const { blocks, days } = listedSpans(first, end);
  // The groups and each table's units as lists of values (common table expressions: SQLite names no columns of a bare VALUES).
  const ctes = [sql`c (creator) as (values ${sql.join(creators.map((c) => sql`(${c})`))})`];
  const parts: RawBuilder<unknown>[] = [];
  for (const [table, unit, units] of [['ru_return_block', 'block', blocks], ['ru_return_day', 'day', days]] as const) {
    if (units.length === 0) continue;
    const t = sql.raw(table);
    const u = sql.raw(unit);
    const list = sql.raw(`${unit}s`);
    ctes.push(sql`${list} (unit) as (values ${sql.join(units.map((x) => sql`(cast(${x} as integer))`))})`);
    parts.push(sql`select c.creator, (select r.players_cum from ${t} r where r.creator = c.creator and r.${u} = v.unit and r.prev_day < ${first}
        order by r.prev_day desc limit 1) as n
      from c cross join ${list} v`);
  }
  if (parts.length === 0) return new Map();
  const rows = await sql<{ creator: string; n: unknown }>`with ${sql.join(ctes)} ${sql.join(parts, sql` union all `)}`.execute(db);
  const out = new Map<string, number>();
  for (const r of rows.rows) if (r.n !== null && r.n !== undefined) out.set(r.creator, (out.get(r.creator) ?? 0) + num(r.n));
  return out;
}

/**
 * Rows a direct count of "players active since t" reads before another way is tried, and rows of
 * the complement ("last play before t") read before the previous-active-day counts are used
 * (activePlayers). Short windows hold few players, windows reaching back to the first days hold
 * nearly all of them; the others are served by neither side cheaply.
 */
const ACTIVE_COUNT_CAP = 2000;
const INACTIVE_COUNT_CAP = 20_000;

/** How activePlayers counts (tests force each way; `undefined` picks the cheapest). */
export type ActivePlayersWay = 'direct' | 'complement' | 'days';

/**
 * Players (per creator with `byCreator`) whose all-time last play is ≥ `since` (Unix ms): every
 * open window of the API (towards now) holds exactly these players (migration 0003's
 * reasoning). Three exact ways, the first that stays small is used:
 * - direct: count the rows of ru_user (ru_user_c per creator) with last_ms ≥ since (index on
 *   last_ms, migration 0004), when fewer than ACTIVE_COUNT_CAP;
 * - complement: the write path's player counter minus the rows with last_ms < since, when those
 *   are fewer than INACTIVE_COUNT_CAP;
 * - days: with d the UTC day of `since`, the players of the whole days after d (playersOfDays,
 *   a few rows per day) plus those whose last play lies in [since, end of day d) — a range of
 *   the last_ms index bounded by one day's players (docs/design.md §7 "Distinct players of a
 *   closed window").
 * Returns creator → count ('' without byCreator; creators with no player left may be absent or 0).
 */
export async function activePlayers(
  db: Kysely<Database>,
  since: number,
  f: { creator?: string | undefined; byCreator?: boolean },
  way?: ActivePlayersWay,
): Promise<Map<string, number>> {
  const table = sql.raw(f.creator !== undefined || f.byCreator ? 'ru_user_c' : 'ru_user');
  const cf = f.creator === undefined ? sql`` : sql`and creator = ${f.creator}`;
  // `creator || ''`, not the column: grouping by the column would walk the (creator, last_ms) index
  // whole instead of the last_ms range.
  const group = f.byCreator ? sql`creator || ''` : sql`''`;
  const countRange = async (range: RawBuilder<unknown>): Promise<Map<string, number>> => {
    const rows = await sql<{ k: unknown; n: unknown }>`select ${group} as k, count(*) as n from ${table} where ${range} ${cf} group by k`.execute(db);
    return new Map(rows.rows.map((r) => [String(r.k), num(r.n)]));
  };
  /** Whether fewer than `cap` rows match `range` (reads at most `cap`). */
  const fewer = async (range: RawBuilder<unknown>, cap: number): Promise<boolean> => {
    const probe = await sql<{ n: unknown }>`select count(*) as n from (select 1 from ${table} where ${range} ${cf} limit ${cap}) w`.execute(db);
    return num(probe.rows[0]?.n) < cap;
  };
  // The upper bound on last_ms changes no answer; it tells SQLite's planner (no table statistics)
  // that the range is narrow, so it searches the last_ms index instead of scanning the table.
  const active = sql`last_ms >= ${since} and last_ms <= ${Number.MAX_SAFE_INTEGER}`;
  const inactive = sql`last_ms < ${since}`;
  if (way === 'direct' || (way === undefined && (await fewer(active, ACTIVE_COUNT_CAP)))) return countRange(active);
  if (way === 'complement' || (way === undefined && (await fewer(inactive, INACTIVE_COUNT_CAP)))) {
    // The write path's player counters (rollups/definitions.ts playerCounterName): all, one creator, or every creator.
    const out = new Map<string, number>();
    if (!f.byCreator) out.set('', await counter(db, f.creator === undefined ? playerCounterName('ru_user', {})! : playerCounterName('ru_user_c', { creator: f.creator })!));
    else {
      const prefix = playerCounterName('ru_user_c', { creator: '' })!;
      // ';' is the character after ':': the range is exactly the names starting with the prefix.
      const rows = await sql<{ name: string; n: unknown }>`select name, n from ru_counter where name >= ${prefix} and name < ${`${prefix.slice(0, -1)};`}`.execute(db);
      for (const r of rows.rows) out.set(r.name.slice(prefix.length), num(r.n));
    }
    for (const [k, n] of await countRange(inactive)) out.set(k, (out.get(k) ?? 0) - n);
    return out;
  }
  const d = dayOf(since);
  // Every creator by name (ru_ctp is small), so each is a search of the return tables' keys.
  const creators = f.byCreator ? (await sql<{ creator: string }>`select distinct creator from ru_ctp`.execute(db)).rows.map((r) => r.creator) : [f.creator ?? ALL_CREATORS];
  if (creators.length === 0) return new Map();
  // The whole days after d up to the newest stored one.
  const out = await playersOfDays(db, creators, d + 1, ((await newestDay(db)) ?? d) + 1);
  if (!f.byCreator) {
    const n = out.get(f.creator ?? ALL_CREATORS) ?? 0;
    out.clear();
    out.set('', n);
  }
  for (const [k, n] of await countRange(sql`last_ms >= ${since} and last_ms < ${(d + 1) * MS_PER_DAY}`)) out.set(k, (out.get(k) ?? 0) + n);
  return out;
}
