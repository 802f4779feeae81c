import { sql, type Kysely } from 'kysely';

/**
 * `g_player_time` on games becomes (player, time_ms, usd_wager, usd_profit, creator) (docs/design.md
 * §7 "Top-N over a window's parts"): one creator's leaderboard over a window sums its candidates'
 * raw games of the cut days by player and time from this index alone, the creator checked on the
 * index entry. Before, those games were found through g_creator_time (creator, time_ms), every game
 * of the creator in the cut part, each game's row read for its player and value: at ten million
 * games a file larger than the memory, one page read a game (docs/benchmarks.md "One creator's
 * leaderboard at ten million games"). Rebuilding the index takes minutes at ten million games.
 */
export function migration0031() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await sql`drop index g_player_time`.execute(db);
      await db.schema.createIndex('g_player_time').on('games').columns(['player', 'time_ms', 'usd_wager', 'usd_profit', 'creator']).execute();
    },
    async down(): Promise<void> {
      throw new Error('migrations are append-only; restore from backup to go back');
    },
  };
}
