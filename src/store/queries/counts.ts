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
  const newestGame = await db
    .selectFrom('games')
    .select(['signature', 'block_time', 'slot', 'event_index'])
    .orderBy('time_ms', 'desc')
    .orderBy('slot', 'desc')
    .orderBy('signature', 'desc')
    .orderBy('event_index', 'desc')
    .limit(1)
    .executeTakeFirst();
  // Pool changes have no time index of their own: each pool's newest second comes from the
  // (pool, time_ms, …) index, one seek per pool (pools are few and do not grow with history).
  const newestChanges = await sql<{ signature: string; block_time: unknown; slot: unknown; event_index: unknown }>`
    select pc.signature, pc.block_time, pc.slot, pc.event_index from pool_changes pc
    join (select p.pool, (select max(x.time_ms) from pool_changes x where x.pool = p.pool) as t from pools p) m
      on pc.pool = m.pool and pc.time_ms = m.t`.execute(db);
  const candidates = [...(newestGame ? [newestGame] : []), ...newestChanges.rows];
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
