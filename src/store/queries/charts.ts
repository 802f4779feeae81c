import { sql, type Kysely } from 'kysely';
import { dayToDate } from '../../core/index.js';
import type { Database } from '../schema.js';
import type { ChartQuery, DaoPoint, PlaysPoint } from '../types.js';
import { dayRange, num } from './common.js';

/** Per-day sums over the dense series of `days` UTC dates ending today (docs/design.md §4), from ru_day or ru_day_c (one row per day). */
async function perDay(db: Kysely<Database>, q: ChartQuery): Promise<{ date: string; plays: number; usd_wager: number; usd_gamba_fee: number }[]> {
  const { first, last } = dayRange(q.days, q.now);
  const res = await sql<Record<string, unknown>>`select day, plays, usd_wager, usd_gamba_fee
    from ${sql.raw(q.creator === undefined ? 'ru_day' : 'ru_day_c')} where day >= ${first} and day <= ${last}
    ${q.creator === undefined ? sql`` : sql`and creator = ${q.creator}`}`.execute(db);
  const byDay = new Map(res.rows.map((r) => [num(r.day), r]));
  const out = [];
  for (let d = first; d <= last; d++) {
    const r = byDay.get(d);
    out.push({ date: dayToDate(d), plays: num(r?.plays), usd_wager: num(r?.usd_wager), usd_gamba_fee: num(r?.usd_gamba_fee) });
  }
  return out;
}

/** GET /chart/plays and /chart/daily-usd: `{date, plays, volume_usd}` per day. */
export async function chartPlays(db: Kysely<Database>, q: ChartQuery): Promise<PlaysPoint[]> {
  return (await perDay(db, q)).map((p) => ({ date: p.date, plays: p.plays, volume_usd: p.usd_wager }));
}

/** GET /chart/dao-usd: Σ gambaFee × p per day (docs/design.md §3). */
export async function chartDaoUsd(db: Kysely<Database>, q: ChartQuery): Promise<DaoPoint[]> {
  return (await perDay(db, q)).map((p) => ({ date: p.date, dao_fees_usd: p.usd_gamba_fee }));
}
