import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * The rollup tables SQLite stores in their primary key's order (`WITHOUT ROWID`), as of this
 * migration: those with a composite primary key whose secondary indexes, if any, already hold
 * every key column. (An index of a `WITHOUT ROWID` table holds the key's columns instead of a
 * rowid: for ru_daily, ru_block_daily, ru_fair_day, ru_ctp, ru_user_c, ru_user_tp, ru_user_ctp
 * and ru_active_day that would add one to three text columns to every index entry, so they stay.)
 */
const CLUSTERED = [
  'ru_block_game',
  'ru_block_game_t',
  'ru_block_user',
  'ru_block_user_c',
  'ru_block_user_t',
  'ru_day_c',
  'ru_day_game',
  'ru_day_game_t',
  'ru_day_user',
  'ru_day_user_c',
  'ru_day_user_t',
  'ru_fair',
  'ru_fair_dg',
  'ru_fair_hg',
  'ru_fair_user',
  'ru_hour_c',
  'ru_hour_game_t',
  'ru_hour_p',
  'ru_pool_day',
  'ru_pool_hour',
  'ru_quarter_c',
  'ru_quarter_p',
  'ru_return_block',
  'ru_return_day',
  'ru_user_ct',
  'ru_user_game',
  'ru_user_t',
] as const;

/**
 * Rollup rows next to their neighbours in key order, and a player's games' USD values in the
 * index that finds them (docs/architecture.md "Clustered rollups"):
 * - On SQLite, each table of CLUSTERED is rebuilt `WITHOUT ROWID`: its rows live in its primary
 *   key's B-tree, ordered by (block or day, player, …). A key search reads the row where it finds
 *   the key (one B-tree, not the key's index and then the table), and the rows of one block's or
 *   day's players, read by key range or by a list of players, sit on a few adjacent pages instead
 *   of one page each in insertion order. The table's text (columns, constraints, as SQLite keeps
 *   it after earlier migrations' `add column`) and its indexes are kept; rows are copied in key
 *   order; a table already `WITHOUT ROWID` is left as it is. PostgreSQL has no such table kind;
 *   its tables are unchanged.
 * - On both engines `g_player_time` (player, time_ms) becomes (player, time_ms, usd_wager,
 *   usd_profit): the per-player USD sums of a window's cut days read the index alone.
 * One transaction: a failure leaves the store as it was.
 */
export function migration0025(a: DialectAdapter) {
  const run = async (db: Kysely<any>): Promise<void> => {
    await sql`drop index g_player_time`.execute(db);
    await db.schema.createIndex('g_player_time').on('games').columns(['player', 'time_ms', 'usd_wager', 'usd_profit']).execute();
    if (a.kind !== 'sqlite') return;
    for (const table of CLUSTERED) {
      const ddl = (await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db)).rows[0]?.sql;
      if (ddl === undefined) throw new Error(`table ${table} not found`);
      // Already in key order (a store some of whose tables were rebuilt since): nothing to do.
      if (/\bWITHOUT\s+ROWID\s*$/i.test(ddl)) continue;
      const indexes = (await sql<{ sql: string }>`select sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db)).rows;
      const key = (await sql<{ name: string }>`select name from pragma_table_info(${table}) where pk > 0 order by pk`.execute(db)).rows.map((r) => `"${r.name}"`);
      const staging = `${table}__clustered`;
      const create = ddl.replace(/^CREATE TABLE\s+(?:"[^"]+"|\S+)/i, `CREATE TABLE "${staging}"`);
      if (create === ddl) throw new Error(`unexpected table text of ${table}`);
      await sql.raw(`${create} WITHOUT ROWID`).execute(db);
      await sql.raw(`insert into "${staging}" select * from "${table}" order by ${key.join(', ')}`).execute(db);
      await sql.raw(`drop table "${table}"`).execute(db);
      await sql.raw(`alter table "${staging}" rename to "${table}"`).execute(db);
      for (const i of indexes) await sql.raw(i.sql).execute(db);
    }
  };
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (db.isTransaction) await run(db);
      else await db.transaction().execute((trx) => run(trx));
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
