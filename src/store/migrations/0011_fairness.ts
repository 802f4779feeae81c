import { sql, type Kysely } from 'kysely';
import type { MigrationDialect as DialectAdapter } from './dialect.js';

/**
 * The fairness audit (docs/design.md "Fairness audit"):
 * - on `games`: `seed_hash` (SHA-256 hex of the revealed rngSeed), `next_seed_hash` (the event's
 *   nextRngSeedHashed), `fair_own` (the rules a game can be judged on alone: `ok`, `no_bet`,
 *   `result_index`, `multiplier`, `payout`; null = not audited), `fairness` (`verified`,
 *   `unverifiable`, `violation`) and `fairness_rule` (the violated rule or the unverifiable reason,
 *   null when verified). Games stored before this migration are `unverifiable` / `not_audited`
 *   until `gamba-analytics rollups rebuild` audits them (a migration computes no HMAC);
 * - index `g_player_order` (player, slot, signature, event_index): a game's previous and next
 *   settle of the same player; partial index `g_violation` (time_ms, signature, event_index) where
 *   fairness = 'violation': the violations listing reads only violations;
 * - `ru_fair_day`: games per UTC day × creator × token × pool × player × fairness × rule (rule ''
 *   when verified), indexed by (player, day) for one player's counts; `ru_fair`: the same counts all
 *   time per creator × token × pool × fairness × rule (a few rows: all-time counts without a
 *   player); both filled here from the raw games by plain SQL.
 * Plain schema calls only: a migration imports nothing from live code (docs/architecture.md convention 12).
 */
export function migration0011(a: DialectAdapter) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const c of ['seed_hash', 'next_seed_hash', 'fair_own']) await db.schema.alterTable('games').addColumn(c, a.text).execute();
      await db.schema.alterTable('games').addColumn('fairness', a.text, (c) => c.notNull().defaultTo('unverifiable')).execute();
      await db.schema.alterTable('games').addColumn('fairness_rule', a.text, (c) => c.defaultTo('not_audited')).execute();
      await db.schema.createIndex('g_player_order').on('games').columns(['player', 'slot', 'signature', 'event_index']).execute();
      await db.schema.createIndex('g_violation').on('games').columns(['time_ms', 'signature', 'event_index']).where(sql.ref('fairness'), '=', sql.lit('violation')).execute();
      await db.schema
        .createTable('ru_fair_day')
        .addColumn('day', 'integer', (c) => c.notNull())
        .addColumn('creator', a.text, (c) => c.notNull())
        .addColumn('token', a.text, (c) => c.notNull())
        .addColumn('pool', a.text, (c) => c.notNull())
        .addColumn('player', a.text, (c) => c.notNull())
        .addColumn('fairness', a.text, (c) => c.notNull())
        .addColumn('rule', a.text, (c) => c.notNull())
        .addColumn('games', a.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ru_fair_day_pk', ['day', 'creator', 'token', 'pool', 'player', 'fairness', 'rule'])
        .execute();
      await db.schema.createIndex('rfd_player').on('ru_fair_day').columns(['player', 'day']).execute();
      await db.schema
        .createTable('ru_fair')
        .addColumn('creator', a.text, (c) => c.notNull())
        .addColumn('token', a.text, (c) => c.notNull())
        .addColumn('pool', a.text, (c) => c.notNull())
        .addColumn('fairness', a.text, (c) => c.notNull())
        .addColumn('rule', a.text, (c) => c.notNull())
        .addColumn('games', a.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ru_fair_pk', ['creator', 'token', 'pool', 'fairness', 'rule'])
        .execute();
      await sql`insert into ru_fair (creator, token, pool, fairness, rule, games)
        select creator, token, pool, fairness, coalesce(fairness_rule, ''), count(*) from games
        group by creator, token, pool, fairness, coalesce(fairness_rule, '')`.execute(db);
      await sql`insert into ru_fair_day (day, creator, token, pool, player, fairness, rule, games)
        select day, creator, token, pool, player, fairness, coalesce(fairness_rule, ''), count(*) from games
        group by day, creator, token, pool, player, fairness, coalesce(fairness_rule, '')`.execute(db);
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
