import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreCounts } from '../types.js';
import { num } from './common.js';

/** Totals for /status and /sync/status. */
export async function counts(db: Kysely<Database>): Promise<StoreCounts> {
  const games = await sql<Record<string, unknown>>`select sum(plays) as plays, sum(usd_wager) as usd from ru_ctp`.execute(db);
  // Counters kept by the write path: no COUNT(*) over history (DESIGN §7).
  const counters = await db.selectFrom('ru_counter').select(['name', 'n']).where('name', 'in', ['signatures', 'pool_changes', 'unpriced_games']).execute();
  const c = new Map(counters.map((r) => [r.name, num(r.n)]));
  const skippedRows = await db.selectFrom('sync_state').selectAll().where('key', 'like', 'skipped.%').execute();
  // latestUpdate = the newest stored event in chain order (slot, signature, event index), not the
  // newest processed signature: transactions without events say nothing about the data's age.
  const newest = (table: 'games' | 'pool_changes') =>
    db
      .selectFrom(table)
      .select(['signature', 'block_time', 'slot', 'event_index'])
      .orderBy('time_ms', 'desc')
      .orderBy('slot', 'desc')
      .orderBy('signature', 'desc')
      .orderBy('event_index', 'desc')
      .limit(1)
      .executeTakeFirst();
  const candidates = [await newest('games'), await newest('pool_changes')].filter((r) => r !== undefined);
  candidates.sort((x, y) => num(y.slot) - num(x.slot) || (x.signature < y.signature ? 1 : x.signature > y.signature ? -1 : num(y.event_index) - num(x.event_index)));
  const latest = candidates[0];
  const skipped: Record<string, number> = {};
  for (const r of skippedRows) skipped[r.key.slice('skipped.'.length)] = Number(r.value);
  return {
    totalSignatures: c.get('signatures') ?? 0,
    totalGames: num(games.rows[0]?.plays),
    totalPoolChanges: c.get('pool_changes') ?? 0,
    totalVolumeUsd: num(games.rows[0]?.usd),
    unpricedGames: c.get('unpriced_games') ?? 0,
    skipped,
    latest: latest ? { signature: latest.signature, blockTime: num(latest.block_time) } : null,
  };
}
