import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreCounts } from '../types.js';
import { num } from './common.js';

/** Totals for /status and /sync/status. */
export async function counts(db: Kysely<Database>): Promise<StoreCounts> {
  const games = await sql<Record<string, unknown>>`select sum(plays) as plays, sum(usd_wager) as usd from ru_ctp`.execute(db);
  const sigs = await sql<{ n: unknown }>`select count(*) as n from signatures`.execute(db);
  const changes = await sql<{ n: unknown }>`select count(*) as n from pool_changes`.execute(db);
  const unpriced = await sql<{ n: unknown }>`select count(*) as n from games where usd_per_unit is null`.execute(db);
  const skippedRows = await db.selectFrom('sync_state').selectAll().where('key', 'like', 'skipped.%').execute();
  const latest = await db.selectFrom('signatures').select(['signature', 'block_time']).orderBy('slot', 'desc').orderBy('signature', 'desc').limit(1).executeTakeFirst();
  const skipped: Record<string, number> = {};
  for (const r of skippedRows) skipped[r.key.slice('skipped.'.length)] = Number(r.value);
  return {
    totalSignatures: num(sigs.rows[0]?.n),
    totalGames: num(games.rows[0]?.plays),
    totalPoolChanges: num(changes.rows[0]?.n),
    totalVolumeUsd: num(games.rows[0]?.usd),
    unpricedGames: num(unpriced.rows[0]?.n),
    skipped,
    latest: latest ? { signature: latest.signature, blockTime: num(latest.block_time) } : null,
  };
}
