import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * The cut days of a closed window without their raw games (docs/design.md §7 "Distinct players of
 * a closed window"). Each `ru_active_day` row (a player's active UTC day in a group, migration
 * 0016) gains:
 * - `first_ms`, `last_ms`: the player's first and last game of that day in the group (Unix ms);
 * - `prev_day`: the player's previous active day in the group (-1: none), `next_day` its next one
 *   (null: none yet).
 * Two indexes read one day's players by time: (creator, day, last_ms, next_day) lists who played
 * in a day's tail [t, end of day) and whether they came back before a given day;
 * (creator, day, first_ms, prev_day) lists who played in a day's head [start of day, t) and when
 * they last played before. So the players a window's cut days add to its whole days are counted
 * from one index range per cut day and group, a row per player, instead of the day's raw games.
 *
 * The table is rebuilt from the raw games by plain SQL (frozen with this migration,
 * docs/architecture.md convention 12), as the write path keeps it.
 */
export function migration0024(a: DialectAdapter) {
  const fill = async (db: Kysely<any>): Promise<void> => {
    await sql`drop table ru_active_day`.execute(db);
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
    await sql`insert into ru_active_day (creator, player, day, first_ms, last_ms, prev_day, next_day)
      select creator, player, day, first_ms, last_ms, coalesce(lag(day) over w, -1), lead(day) over w from (
        select '' as creator, player, day, min(time_ms) as first_ms, max(time_ms) as last_ms from games group by player, day
        union all
        select creator, player, day, min(time_ms), max(time_ms) from games group by creator, player, day
      ) x window w as (partition by creator, player order by day)`.execute(db);
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
