import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';
import { timeGrainRollupSql } from './0010_hour_rollups.js';

/**
 * One player's reads that grew with the player's games (docs/design.md §10 "House edge" and
 * "Fairness audit"): a player with a hundred thousand games made `/house-edge?groupBy=game&user=`
 * and `/audit/fairness?player=` read every one of them (or a row per day played).
 * - `ru_user_game`: all time per player × game kind × creator × token × pool, every game rollup
 *   column, so `/house-edge?groupBy=game&user=…` without a window (any creator, token or pool
 *   filter beside it) reads the player's own few rows. Filled here from the raw games by plain SQL
 *   (frozen with this migration, docs/architecture.md convention 12), as the write path keeps it.
 * - `ru_fair_user`: ru_fair per player (games all time per player × creator × token × pool ×
 *   fairness × rule), filled from ru_fair_day, so `/audit/fairness?player=…` without a window
 *   reads the player's few rows instead of one row per day it played.
 * - `gv_player`, `gv_creator`, `gv_pool`, `gv_token`: partial indexes of `games` on (filter column,
 *   time_ms, signature, event_index) holding violating games only, so a filtered page of
 *   violations, newest first, reads its page instead of the filter's games (the time indexes of
 *   the filter hold every game). They hold only violations: kept current at no cost to the write
 *   path's other games, and not deferred by the bulk load (only `g_*` indexes are).
 */
export function migration0021(a: DialectAdapter) {
  const { SUM_NAMES, sums, table } = timeGrainRollupSql(a);
  const KEYS = ['player', 'game_kind', 'creator', 'token', 'pool'];
  const fill = async (db: Kysely<any>): Promise<void> => {
    await sql.raw(`insert into ru_user_game (${KEYS.join(', ')}, ${SUM_NAMES}) select ${KEYS.join(', ')}, ${sums} from games group by ${KEYS.join(', ')}`).execute(db);
    await sql`insert into ru_fair_user (player, creator, token, pool, fairness, rule, games)
      select player, creator, token, pool, fairness, rule, sum(games) from ru_fair_day group by player, creator, token, pool, fairness, rule`.execute(db);
  };
  return {
    async up(db: Kysely<any>): Promise<void> {
      await table(db, 'ru_user_game', KEYS.map((name) => ({ name })), false);
      let t = db.schema.createTable('ru_fair_user');
      for (const c of ['player', 'creator', 'token', 'pool', 'fairness', 'rule']) t = t.addColumn(c, a.text, (col) => col.notNull());
      await t
        .addColumn('games', a.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ru_fair_user_pk', ['player', 'creator', 'token', 'pool', 'fairness', 'rule'] as never)
        .execute();
      for (const f of ['player', 'creator', 'pool', 'token']) {
        await db.schema.createIndex(`gv_${f}`).on('games').columns([f, 'time_ms', 'signature', 'event_index']).where(sql.ref('fairness'), '=', sql.lit('violation')).execute();
      }
      if (db.isTransaction) await fill(db);
      else await db.transaction().execute((trx) => fill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
