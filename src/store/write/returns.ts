import { sql, type Kysely, type Transaction } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import { ALL_CREATORS, blockOf, NO_PREVIOUS_DAY } from '../rollups/index.js';
import type { Database } from '../schema.js';
import { fixedChunks, runPrecompiled } from '../statement-cache.js';

type Db = Transaction<Database> | Kysely<Database>;

/** A (group, player, UTC day) of a batch, with the batch's first and last game of it (Unix ms). */
interface ActiveDay {
  creator: string;
  player: string;
  day: number;
  firstMs: number;
  lastMs: number;
}

/**
 * The write path's side of migrations 0016 and 0024 (docs/design.md §7 "Distinct players of a
 * closed window"): collects the (group, player, UTC day) triples of a batch's games with their
 * first and last game time, then on flush upserts them into ru_active_day (a known day widens
 * its first_ms / last_ms), links each new day to its neighbours (prev_day / next_day, both ways)
 * and moves ru_return_day / ru_return_block counts and their running sums (players_cum).
 *
 * Games arrive in any order (the backfill stores history newest first, the tail oldest first), so
 * a new active day d may fall between two known ones x < d < y of the same player. Inserting it
 * adds (d, x) and replaces (y, x) by (y, d): every count is a sum of such ±1 deltas, and x's
 * next_day and y's prev_day become d, so incremental writes equal a rebuild whatever the order
 * (test/store/return-days.test.ts).
 */
export class ReturnAccumulator {
  private readonly days = new Map<string, ActiveDay[]>();

  /** A game by `player` with `creator` on UTC day `day` at `timeMs` (Unix ms): counts in its creator's group and in ALL_CREATORS. */
  add(creator: string, player: string, day: number, timeMs: number): void {
    this.one(ALL_CREATORS, player, day, timeMs);
    this.one(creator, player, day, timeMs);
  }

  private one(creator: string, player: string, day: number, timeMs: number): void {
    const k = `${creator}\u0000${player}`;
    let list = this.days.get(k);
    if (!list) this.days.set(k, (list = []));
    const known = list.find((x) => x.day === day);
    if (!known) list.push({ creator, player, day, firstMs: timeMs, lastMs: timeMs });
    else {
      known.firstMs = Math.min(known.firstMs, timeMs);
      known.lastMs = Math.max(known.lastMs, timeMs);
    }
  }

  /** Writes the batch's new active days and their count deltas (in `db`'s transaction). */
  async flush(db: Db, a: DialectAdapter): Promise<void> {
    const all = [...this.days.values()].flat();
    this.days.clear();
    if (all.length === 0) return;
    // Each triple's neighbours among the days stored before this batch: the latest ≤ its day
    // (equal: already known) and the earliest after it.
    const known = new Map<string, { atOrBefore: number | null; after: number | null }>();
    for (const chunk of fixedChunks(all)) {
      const params: unknown[] = [];
      for (const t of chunk) params.push(t.creator, t.player, t.day);
      const build = () => {
        let i = 0;
        const rows = chunk.map(() => sql`(${params[i++]}, ${params[i++]}, cast(${params[i++]} as integer))`);
        return sql`with v (creator, player, day) as (values ${sql.join(rows)})
          select v.creator, v.player, v.day,
            (select max(s.day) from ru_active_day s where s.creator = v.creator and s.player = v.player and s.day <= v.day) as at_or_before,
            (select min(s.day) from ru_active_day s where s.creator = v.creator and s.player = v.player and s.day > v.day) as after
          from v`.compile(db);
      };
      const res = await runPrecompiled<{ creator: string; player: string; day: unknown; at_or_before: unknown; after: unknown }>(db, `${a.kind}:returns:${chunk.length}`, build, params);
      for (const r of res.rows) {
        known.set(`${r.creator}\u0000${r.player}\u0000${Number(r.day)}`, {
          atOrBefore: r.at_or_before === null ? null : Number(r.at_or_before),
          after: r.after === null ? null : Number(r.after),
        });
      }
    }
    const deltas = new Map<string, { creator: string; unit: number; prev: number; n: number }>();
    const move = (table: 'day' | 'block', creator: string, day: number, prev: number, n: number) => {
      const unit = table === 'day' ? day : blockOf(day);
      const k = `${table}\u0000${creator}\u0000${unit}\u0000${prev}`;
      const e = deltas.get(k);
      if (e) e.n += n;
      else deltas.set(k, { creator, unit, prev, n });
    };
    /** Every triple of the batch as written: a new day with its links, a known day with placeholders its upsert ignores. */
    const upserts: { t: ActiveDay; prev: number; next: number | null }[] = [];
    /** Known days whose next_day (or prev_day) becomes a new day of the batch. */
    const nextLinks: DayLink[] = [];
    const prevLinks: DayLink[] = [];
    // Per player and group, insert the batch's new days in ascending order: day d's previous day
    // is the later of its stored predecessor and the batch's last inserted day; its next day is the
    // earlier of its stored successor and the batch's next new day. The return moves go one day at
    // a time: when d is moved, the batch's later days are not inserted yet.
    for (const list of groupByPlayer(all)) {
      list.sort((x, y) => x.day - y.day);
      const near = list.map((t) => known.get(`${t.creator}\u0000${t.player}\u0000${t.day}`)!);
      const nextNew: (number | null)[] = new Array(list.length).fill(null);
      for (let i = list.length - 2; i >= 0; i--) nextNew[i] = near[i + 1]!.atOrBefore === list[i + 1]!.day ? nextNew[i + 1]! : list[i + 1]!.day;
      let lastInserted: number | null = null;
      list.forEach((t, i) => {
        const n = near[i]!;
        if (n.atOrBefore === t.day) {
          upserts.push({ t, prev: NO_PREVIOUS_DAY, next: null });
          return;
        }
        const prev = Math.max(n.atOrBefore ?? NO_PREVIOUS_DAY, lastInserted ?? NO_PREVIOUS_DAY);
        const following = [n.after, nextNew[i]!].filter((x): x is number => x !== null);
        const next = following.length > 0 ? Math.min(...following) : null;
        for (const table of ['day', 'block'] as const) {
          move(table, t.creator, t.day, prev, 1);
          if (n.after !== null) {
            move(table, t.creator, n.after, prev, -1);
            move(table, t.creator, n.after, t.day, 1);
          }
        }
        // A stored neighbour with no new day between it and t now links to t.
        if (n.atOrBefore !== null && prev === n.atOrBefore) nextLinks.push({ creator: t.creator, player: t.player, day: n.atOrBefore, link: t.day });
        if (n.after !== null && next === n.after) prevLinks.push({ creator: t.creator, player: t.player, day: n.after, link: t.day });
        upserts.push({ t, prev, next });
        lastInserted = t.day;
      });
    }
    for (const chunk of fixedChunks(upserts)) {
      const params: unknown[] = [];
      for (const { t, prev, next } of chunk) params.push(t.creator, t.player, t.day, t.firstMs, t.lastMs, prev, next);
      const build = () => {
        let i = 0;
        const rows = chunk.map(() => sql`(${params[i++]}, ${params[i++]}, ${params[i++]}, ${params[i++]}, ${params[i++]}, ${params[i++]}, ${params[i++]})`);
        return sql`insert into ru_active_day (creator, player, day, first_ms, last_ms, prev_day, next_day) values ${sql.join(rows)}
          on conflict (creator, player, day) do update set first_ms = ${a.least(sql`ru_active_day.first_ms`, sql`excluded.first_ms`)},
            last_ms = ${a.greatest(sql`ru_active_day.last_ms`, sql`excluded.last_ms`)}`.compile(db);
      };
      await runPrecompiled(db, `${a.kind}:active-day:${chunk.length}`, build, params);
    }
    await linkDays(db, a, 'next_day', nextLinks);
    await linkDays(db, a, 'prev_day', prevLinks);
    for (const table of ['day', 'block'] as const) {
      const rows = [...deltas.entries()].filter(([k, d]) => k.startsWith(`${table}\u0000`) && d.n !== 0).map(([, d]) => d);
      await upsertCounts(db, a, table, rows);
    }
  }
}

/** A known ru_active_day row (creator, player, day) and the new day its next_day or prev_day becomes. */
interface DayLink {
  creator: string;
  player: string;
  day: number;
  link: number;
}

/** Sets `column` (next_day or prev_day) of known ru_active_day rows to the linked new days. */
async function linkDays(db: Db, a: DialectAdapter, column: 'next_day' | 'prev_day', links: DayLink[]): Promise<void> {
  for (const chunk of fixedChunks(links)) {
    const params: unknown[] = [];
    for (const l of chunk) params.push(l.creator, l.player, l.day, l.link);
    const build = () => {
      let i = 0;
      const rows = chunk.map(() => sql`(${params[i++]}, ${params[i++]}, cast(${params[i++]} as integer), cast(${params[i++]} as integer))`);
      // The join terms are expressions of v's columns (`|| ''`, `+ 0`), so SQLite cannot index v
      // for them and searches ru_active_day's primary key once per row of v. As plain columns,
      // SQLite (no table statistics) scanned all of ru_active_day for 256 rows and looked each up
      // in an automatic index of v: a scan per chunk that grew with history (docs/benchmarks.md
      // "The write path at ten million games' density").
      return sql`with v (creator, player, day, link) as (values ${sql.join(rows)})
        update ru_active_day set ${sql.raw(column)} = v.link from v
        where ru_active_day.creator = v.creator || '' and ru_active_day.player = v.player || '' and ru_active_day.day = v.day + 0`.compile(db);
    };
    await runPrecompiled(db, `${a.kind}:active-day-${column}:${chunk.length}`, build, params);
  }
}

/** The triples of one (group, player) together. */
function groupByPlayer(all: ActiveDay[]): ActiveDay[][] {
  const m = new Map<string, ActiveDay[]>();
  for (const t of all) {
    const k = `${t.creator}\u0000${t.player}`;
    const list = m.get(k);
    if (list) list.push(t);
    else m.set(k, [t]);
  }
  return [...m.values()];
}

/**
 * Adds count deltas to ru_return_day or ru_return_block; a row whose count reaches 0 is deleted (a
 * rebuild would not have it). Then `players_cum` (migration 0024: the sum of `players` over the
 * rows of the same group and unit with prev_day ≤ the row's) is computed again for each group and
 * unit the deltas touched, with a window sum over its rows; only changed rows are written.
 */
async function upsertCounts(db: Db, a: DialectAdapter, table: 'day' | 'block', rows: { creator: string; unit: number; prev: number; n: number }[]): Promise<void> {
  const name = table === 'day' ? 'ru_return_day' : 'ru_return_block';
  const unit = table === 'day' ? 'day' : 'block';
  const emptied: { creator: string; unit: number; prev: number }[] = [];
  for (const chunk of fixedChunks(rows)) {
    const params: unknown[] = [];
    for (const r of chunk) params.push(r.creator, r.unit, r.prev, r.n);
    const build = () => {
      let i = 0;
      // players_cum 0 until the refresh below.
      return sql`insert into ${sql.raw(name)} (creator, ${sql.raw(unit)}, prev_day, players, players_cum)
        values ${sql.join(chunk.map(() => sql`(${params[i++]}, ${params[i++]}, ${params[i++]}, ${params[i++]}, 0)`))}
        on conflict (creator, ${sql.raw(unit)}, prev_day) do update set players = ${sql.raw(name)}.players + excluded.players
        returning creator, ${sql.raw(unit)} as unit, prev_day, players`.compile(db);
    };
    const res = await runPrecompiled<{ creator: string; unit: unknown; prev_day: unknown; players: unknown }>(db, `${a.kind}:${name}:${chunk.length}`, build, params);
    for (const r of res.rows) if (Number(r.players) === 0) emptied.push({ creator: r.creator, unit: Number(r.unit), prev: Number(r.prev_day) });
  }
  for (const e of emptied) {
    await sql`delete from ${sql.raw(name)} where creator = ${e.creator} and ${sql.raw(unit)} = ${e.unit} and prev_day = ${e.prev} and players = 0`.execute(db);
  }
  const touched = new Map<string, { creator: string; unit: number }>();
  for (const r of rows) touched.set(`${r.creator}\u0000${r.unit}`, { creator: r.creator, unit: r.unit });
  for (const chunk of fixedChunks([...touched.values()])) {
    const params: unknown[] = [];
    for (const t of chunk) params.push(t.creator, t.unit);
    const build = () => {
      let i = 0;
      const u = sql.raw(unit);
      const t = sql.raw(name);
      // Join terms on expressions of v's and s's columns, so each row of theirs searches the table's
      // primary key (as in linkDays).
      return sql`with v (creator, unit) as (values ${sql.join(chunk.map(() => sql`(${params[i++]}, cast(${params[i++]} as integer))`))})
        update ${t} set players_cum = s.c from (
          select r.creator, r.${u} as unit, r.prev_day, sum(r.players) over (partition by r.creator, r.${u} order by r.prev_day) as c
          from v join ${t} r on r.creator = v.creator || '' and r.${u} = v.unit + 0
        ) s
        where ${t}.creator = s.creator || '' and ${t}.${u} = s.unit + 0 and ${t}.prev_day = s.prev_day + 0 and ${t}.players_cum <> s.c`.compile(db);
    };
    await runPrecompiled(db, `${a.kind}:${name}-cum:${chunk.length}`, build, params);
  }
}

/**
 * Refills ru_active_day, ru_return_day and ru_return_block from `games` (the rebuild, which has
 * already emptied them): each player's active days per group with the day's first and last game,
 * and each day's previous and next one by `lag` / `lead` over the player's days; the return
 * counts with their running sums over prev_day.
 */
export async function rebuildReturns(db: Db): Promise<void> {
  await sql`insert into ru_active_day (creator, player, day, first_ms, last_ms, prev_day, next_day)
    select creator, player, day, first_ms, last_ms, coalesce(lag(day) over w, ${sql.lit(NO_PREVIOUS_DAY)}), lead(day) over w from (
      select ${sql.lit(ALL_CREATORS)} as creator, player, day, min(time_ms) as first_ms, max(time_ms) as last_ms from games group by player, day
      union all
      select creator, player, day, min(time_ms), max(time_ms) from games group by creator, player, day
    ) x window w as (partition by creator, player order by day)`.execute(db);
  await sql`insert into ru_return_day (creator, day, prev_day, players, players_cum)
    select creator, day, prev_day, n, sum(n) over (partition by creator, day order by prev_day) from (
      select creator, day, prev_day, count(*) as n from ru_active_day group by creator, day, prev_day
    ) x`.execute(db);
  await sql`insert into ru_return_block (creator, block, prev_day, players, players_cum)
    select creator, block, prev_day, n, sum(n) over (partition by creator, block order by prev_day) from (
      select creator, day / 32 as block, prev_day, sum(players) as n from ru_return_day group by creator, day / 32, prev_day
    ) x`.execute(db);
}
