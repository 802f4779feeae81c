import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';
import { timeGrainRollupSql } from './0010_hour_rollups.js';

/**
 * Game kind × token rollups at three grains (docs/design.md §10 "House edge"), for
 * `/house-edge?groupBy=game|token` over a window without a player, creator or pool: the rows of
 * ru_day_game / ru_block_game (per creator × token × pool too: 325–453 rows a day) summed to the
 * few (game kind, token) groups such a read returns, and an hour grain so the days a window
 * cuts read whole hours instead of up to half a day of raw games.
 * - `ru_block_game_t`: per 32-day block (day / 32) × game kind × token;
 * - `ru_day_game_t`: per UTC day × game kind × token;
 * - `ru_hour_game_t`: per UTC hour (hour_ms, its start in Unix ms) × game kind × token.
 * Every game rollup column, filled here from the raw games by plain SQL (frozen with this
 * migration, docs/architecture.md convention 12), as the write path keeps them incrementally.
 */
export function migration0022(a: DialectAdapter) {
  const { SUM_NAMES, sums, table } = timeGrainRollupSql(a);
  const GRAINS = [
    { name: 'ru_block_game_t', key: 'block', of: 'day / 32' },
    { name: 'ru_day_game_t', key: 'day', of: 'day' },
    { name: 'ru_hour_game_t', key: 'hour_ms', of: '(time_ms - time_ms % 3600000)' },
  ];
  const fill = async (db: Kysely<any>): Promise<void> => {
    for (const g of GRAINS) {
      await sql.raw(`insert into ${g.name} (${g.key}, game_kind, token, ${SUM_NAMES})
        select ${g.of}, game_kind, token, ${sums} from games group by ${g.of}, game_kind, token`).execute(db);
    }
  };
  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const g of GRAINS) await table(db, g.name, [{ name: g.key, int: true }, { name: 'game_kind' }, { name: 'token' }], false);
      if (db.isTransaction) await fill(db);
      else await db.transaction().execute((trx) => fill(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
