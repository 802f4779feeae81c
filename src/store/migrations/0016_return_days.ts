import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * Distinct players of a closed window without one row per player (docs/design.md §7 "Distinct
 * players of a closed window"). For each group (creator '' = every game, or one creator):
 * - `ru_active_day` (creator, player, day): the UTC days a player played in the group; the
 *   write path finds a new day's neighbours in it (the previous and next active day);
 * - `ru_return_day` (creator, day, prev_day, players): how many players played on `day` whose
 *   previous active day in the group was `prev_day` (-1: never before);
 * - `ru_return_block` (creator, block, prev_day, players): the same summed per 32-day block
 *   (block = day / 32, as ru_block_user).
 * A player is counted in days [a, b] exactly once: on its first day there, whose prev_day < a.
 * So the window's distinct players are the sum of `players` over day ∈ [a, b], prev_day < a,
 * a few rows per day whatever the number of players. Filled here from ru_day_user and ru_daily.
 * Plain schema calls only: a migration imports nothing from live code (docs/architecture.md convention 12).
 */
export function migration0016(a: DialectAdapter) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('ru_active_day')
        .addColumn('creator', a.text, (c) => c.notNull())
        .addColumn('player', a.text, (c) => c.notNull())
        .addColumn('day', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('ru_active_day_pk', ['creator', 'player', 'day'])
        .execute();
      for (const [table, unit] of [['ru_return_day', 'day'], ['ru_return_block', 'block']] as const) {
        await db.schema
          .createTable(table)
          .addColumn('creator', a.text, (c) => c.notNull())
          .addColumn(unit, 'integer', (c) => c.notNull())
          .addColumn('prev_day', 'integer', (c) => c.notNull())
          .addColumn('players', a.bigint, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pk`, ['creator', unit, 'prev_day'])
          .execute();
      }
      await sql`insert into ru_active_day (creator, player, day) select '', player, day from ru_day_user`.execute(db);
      await sql`insert into ru_active_day (creator, player, day) select distinct creator, player, day from ru_daily`.execute(db);
      await sql`insert into ru_return_day (creator, day, prev_day, players)
        select creator, day, prev_day, count(*) from (
          select creator, day, coalesce(lag(day) over (partition by creator, player order by day), -1) as prev_day from ru_active_day
        ) x group by creator, day, prev_day`.execute(db);
      await sql`insert into ru_return_block (creator, block, prev_day, players)
        select creator, day / 32, prev_day, sum(players) from ru_return_day group by creator, day / 32, prev_day`.execute(db);
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
