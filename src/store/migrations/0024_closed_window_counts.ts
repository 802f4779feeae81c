import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * Distinct players of a closed window in a few key searches per group (docs/design.md §7
 * "Distinct players of a closed window"), on migration 0016's tables:
 * - each `ru_active_day` row (a player's active UTC day in a group) gains `first_ms` and
 *   `last_ms`, the player's first and last game of that day in the group (Unix ms), and
 *   `prev_day` / `next_day`, its previous (-1: none) and next (null: none yet) active day there.
 *   Two indexes read one day's players by time: (creator, day, last_ms, next_day) lists who played
 *   in a day's tail [t, end of day) and whether they came back before a given day; (creator, day,
 *   first_ms, prev_day) lists who played in a day's head [start of day, t) and when they last
 *   played before. So the players a window's cut days add are one index range per cut day and
 *   group, a row per player, instead of the day's raw games.
 * - each `ru_return_day` / `ru_return_block` row gains `players_cum`: the sum of `players` over
 *   the rows of its group and day (or block) with `prev_day` ≤ its own. The players of a day with
 *   prev_day < a are then the `players_cum` of the last row before a: one key search, not a row
 *   per earlier active day.
 *
 * The three tables are rebuilt from the raw games by plain SQL (frozen with this migration,
 * docs/architecture.md convention 12), as the write path keeps them.
 */
export function migration0024(a: DialectAdapter) {
  const fill = async (db: Kysely<any>): Promise<void> => {
    for (const t of ['ru_active_day', 'ru_return_day', 'ru_return_block']) await sql`drop table ${sql.raw(t)}`.execute(db);
    await db.schema
      .createTable('ru_active_day')
      .addColumn('creator', a.text, (c) => c.notNull())
      .addColumn('player', a.text, (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('first_ms', a.bigint, (c) => c.notNull())
      .addColumn('last_ms', a.bigint, (c) => c.notNull())
      .addColumn('prev_day', 'integer', (c) => c.notNull())
      .addColumn('next_day', 'integer')
      .addPrimaryKeyConstraint('ru_active_day_pk', ['creator', 'player', 'day'] as never)
      .execute();
    for (const [table, unit] of [['ru_return_day', 'day'], ['ru_return_block', 'block']] as const) {
      await db.schema
        .createTable(table)
        .addColumn('creator', a.text, (c) => c.notNull())
        .addColumn(unit, 'integer', (c) => c.notNull())
        .addColumn('prev_day', 'integer', (c) => c.notNull())
        .addColumn('players', a.bigint, (c) => c.notNull())
        .addColumn('players_cum', a.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${table}_pk`, ['creator', unit, 'prev_day'] as never)
        .execute();
    }
    await sql`insert into ru_active_day (creator, player, day, first_ms, last_ms, prev_day, next_day)
      select creator, player, day, first_ms, last_ms, coalesce(lag(day) over w, -1), lead(day) over w from (
        select '' as creator, player, day, min(time_ms) as first_ms, max(time_ms) as last_ms from games group by player, day
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
    await sql`create index ru_active_day_tail on ru_active_day (creator, day, last_ms, next_day)`.execute(db);
    await sql`create index ru_active_day_head on ru_active_day (creator, day, first_ms, prev_day)`.execute(db);
  };
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (db.isTransaction) await fill(db);
      else await db.transaction().execute((trx) => fill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
