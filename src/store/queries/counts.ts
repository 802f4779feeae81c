import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { Freshness, StoreCounts } from '../types.js';
import { num } from './common.js';

/** Totals for /status and /sync/status. */
export async function counts(db: Kysely<Database>): Promise<StoreCounts> {
  const games = await sql<Record<string, unknown>>`select sum(plays) as plays, sum(usd_wager) as usd from ru_ctp`.execute(db);
  // Counters kept by the write path: no COUNT(*) over history (docs/design.md §7).
  const counters = await db.selectFrom('ru_counter').select(['name', 'n']).where('name', 'in', ['signatures', 'pool_changes', 'unpriced_games']).execute();
  const c = new Map(counters.map((r) => [r.name, num(r.n)]));
  const skippedRows = await db.selectFrom('sync_state').selectAll().where('key', 'like', 'skipped.%').execute();
  const latest = await newestEvent(db);
  const skipped: Record<string, number> = {};
  for (const r of skippedRows) skipped[r.key.slice('skipped.'.length)] = Number(r.value);
  return {
    totalSignatures: c.get('signatures') ?? 0,
    totalGames: num(games.rows[0]?.plays),
    totalPoolChanges: c.get('pool_changes') ?? 0,
    totalVolumeUsd: num(games.rows[0]?.usd),
    unpricedGames: c.get('unpriced_games') ?? 0,
    skipped,
    latest: latest ? { signature: latest.signature, blockTime: latest.blockTime } : null,
  };
}

/**
 * The newest stored event (game or pool change) in chain order (slot, signature, event index),
 * not the newest processed signature: transactions without events say nothing about the data's
 * age. Each side's newest second first (games: max(time_ms) is one seek of g_time; pool changes
 * have no time index of their own, so each pool's newest second comes from the (pool, time_ms, …)
 * index — pools are few and do not grow with history), then chain order among the few events of
 * those seconds here. No plan has to sort either table. `blockTime` in s; null on an empty store.
 */
export async function newestEvent(db: Kysely<Database>): Promise<{ signature: string; slot: number; blockTime: number } | null> {
  const newestGames = await sql<{ signature: string; block_time: unknown; slot: unknown; event_index: unknown }>`
    select signature, block_time, slot, event_index from games where time_ms = (select max(time_ms) from games)`.execute(db);
  const newestChanges = await sql<{ signature: string; block_time: unknown; slot: unknown; event_index: unknown }>`
    select signature, block_time, slot, event_index from pool_changes
    where (pool, time_ms) in (select p.pool, (select max(x.time_ms) from pool_changes x where x.pool = p.pool) from pools p)`.execute(db);
  const candidates = [...newestGames.rows, ...newestChanges.rows];
  candidates.sort((x, y) => num(y.slot) - num(x.slot) || (x.signature < y.signature ? 1 : x.signature > y.signature ? -1 : num(y.event_index) - num(x.event_index)));
  const latest = candidates[0];
  return latest ? { signature: latest.signature, slot: num(latest.slot), blockTime: num(latest.block_time) } : null;
}

/** What every answer is built from (docs/design.md §5 "Freshness headers"): the newest stored event's slot and block time (Unix ms); null on an empty store. */
export async function freshness(db: Kysely<Database>): Promise<Freshness | null> {
  const e = await newestEvent(db);
  return e ? { slot: e.slot, timeMs: e.blockTime * 1000 } : null;
}
