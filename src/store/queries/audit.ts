import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';
import type { FairnessAuditQuery, FairnessAuditResult, FairnessCounts, FairnessViolation, KeyValue } from '../types.js';
import { dayAndBlockParts, filterSql, hourSpan, newestDay, num } from './common.js';
import { positionValues } from './keyset.js';

const DAY_MS = 86_400_000;
/** Groups returned by a grouped audit: those with the most violations (then games, then key). */
export const FAIRNESS_MAX_GROUPS = 100;
/** `/audit/fairness` violations key: newest first by (time, signature, event index). */
export const VIOLATION_KEYS = ['time_ms', 'signature', 'event_index'] as const;

/** Empty counts: every verdict, rule and reason at 0. */
export function emptyFairnessCounts(): FairnessCounts {
  return {
    games: 0,
    verified: 0,
    unverifiable: 0,
    violation: 0,
    violations: { commitment: 0, result_index: 0, multiplier: 0, payout: 0 },
    unverifiableReasons: { first_seen: 0, no_bet: 0, not_audited: 0 },
  };
}

function addTo(c: FairnessCounts, fairness: string, rule: string, n: number): void {
  c.games += n;
  if (fairness === 'verified') c.verified += n;
  else if (fairness === 'violation') {
    c.violation += n;
    if (rule in c.violations) c.violations[rule as keyof FairnessCounts['violations']] += n;
  } else {
    c.unverifiable += n;
    if (rule in c.unverifiableReasons) c.unverifiableReasons[rule as keyof FairnessCounts['unverifiableReasons']] += n;
  }
}

/** Whether fewer stored days lie before `day` than from it to `lastDay` (the newest stored day; one seek on ru_fair_dg's key for the oldest). */
async function olderDaysAreFewer(db: Kysely<Database>, day: number, lastDay: number): Promise<boolean> {
  const lo = (await sql<{ lo: unknown }>`select min(day) as lo from ru_fair_dg`.execute(db)).rows[0]?.lo;
  if (lo === null || lo === undefined) return false;
  return day - num(lo) < lastDay - day + 1;
}

/**
 * GET /audit/fairness (docs/design.md "Fairness audit"): game counts per verdict (overall, and per
 * creator, pool or player with `groupBy`) and one keyset page of violations, newest first.
 * Counts read ru_fair all time without a player and ru_fair_user with one (migration 0021), else for the window's whole UTC days,
 * without a player, its whole 32-day blocks from ru_fair_bg and the days at their edges from
 * ru_fair_dg (migrations 0028 and 0015, common.ts dayAndBlockParts; a window open towards now that
 * holds most stored days as ru_fair minus the blocks and days before it), or with one ru_fair_day
 * (by day, or by player: index rfd_player), and for the cut first and last days the raw games (time index), or without a
 * player their whole hours from ru_fair_hg (migration 0023) and the raw games of under an hour at each end; `groupBy` player needs `startTime` or `player` (the API checks it); violations read the partial index g_violation, or with a player, creator, pool or token filter that filter's partial index of violations (gv_player, gv_creator, gv_pool, gv_token; migration 0021). Times are Unix ms,
 * `startTime` inclusive, `endTime` exclusive. Throws AppError INVALID_KEYSET when `after` does not
 * match the listing's key.
 */
export async function fairnessAudit(db: Kysely<Database>, q: FairnessAuditQuery): Promise<FairnessAuditResult> {
  const f = filterSql({ creator: q.creator, token: q.token, pool: q.pool, player: q.player });
  const group = q.groupBy === undefined ? null : sql.raw(q.groupBy);
  const overall = emptyFairnessCounts();
  const groups = new Map<string, FairnessCounts>();
  const take = (rows: { k?: unknown; fairness: unknown; rule: unknown; n: unknown }[]) => {
    for (const r of rows) {
      const n = num(r.n);
      addTo(overall, String(r.fairness), String(r.rule ?? ''), n);
      if (group !== null) {
        const k = String(r.k);
        let c = groups.get(k);
        if (!c) groups.set(k, (c = emptyFairnessCounts()));
        addTo(c, String(r.fairness), String(r.rule ?? ''), n);
      }
    }
  };
  const sel = group === null ? sql`` : sql`${group} as k, `;
  const by = group === null ? sql`` : sql`${group}, `;
  const byK = group === null ? sql`` : sql`k, `;

  // Whole UTC days [d0, d1) from the rollup; the cut days from raw games.
  const s = q.startTime;
  const e = q.endTime;
  const d0 = s === undefined ? null : Math.ceil(s / DAY_MS);
  const d1 = e === undefined ? null : Math.floor(e / DAY_MS);
  const raw: [number | undefined, number | undefined][] = [];
  if (d0 !== null && d1 !== null && d0 >= d1) raw.push([s, e]);
  else if (d0 === null && d1 === null && (q.player !== undefined || q.groupBy !== 'player')) {
    // All time: ru_fair (a few rows per creator × token × pool), or with a player ru_fair_user (that player's few rows).
    const table = sql.raw(q.player === undefined ? 'ru_fair' : 'ru_fair_user');
    const rows = await sql<{ k?: unknown; fairness: unknown; rule: unknown; n: unknown }>`select ${sel}fairness, rule, sum(games) as n from ${table}
      where 1=1 ${f} group by ${by}fairness, rule`.execute(db);
    take(rows.rows);
  } else {
    type CountRow = { k?: unknown; fairness: unknown; rule: unknown; n: unknown };
    if (q.player === undefined && q.groupBy !== 'player') {
      // Without a player: whole 32-day blocks from ru_fair_bg (migration 0028) and the days at their
      // edges from ru_fair_dg (migration 0015), an edge covering most of its block read as the block
      // minus its other days (common.ts dayAndBlockParts): a few rows per key and block, not per day.
      const lastDay = (await newestDay(db)) ?? -1;
      const plus = sql`${sel}fairness, rule, games as n`;
      const minus = sql`${sel}fairness, rule, -games as n`;
      const first = d0 ?? undefined;
      const end = d1 ?? undefined;
      // A window open towards now holding more of the stored days than it leaves out: all time
      // (ru_fair) minus the days before it, in one statement (one snapshot).
      const complement = first !== undefined && end === undefined && (await olderDaysAreFewer(db, first, lastDay));
      const parts = complement
        ? [sql`select ${plus} from ru_fair where 1=1 ${f}`, ...dayAndBlockParts('ru_fair_dg', 'ru_fair_bg', minus, undefined, first, f, { select: plus, lastDay })]
        : dayAndBlockParts('ru_fair_dg', 'ru_fair_bg', plus, first, end, f, { select: minus, lastDay });
      const rows = await sql<CountRow>`select ${byK}fairness, rule, sum(n) as n from (${sql.join(parts, sql` union all `)}) w
        group by ${byK}fairness, rule having sum(n) <> 0`.execute(db);
      take(rows.rows);
    } else {
      // With a player, or by player: ru_fair_day by day range (or by player: index rfd_player).
      const rows = await sql<CountRow>`select ${sel}fairness, rule, sum(games) as n from ru_fair_day
        where 1=1 ${d0 === null ? sql`` : sql`and day >= ${d0}`} ${d1 === null ? sql`` : sql`and day < ${d1}`} ${f} group by ${by}fairness, rule`.execute(db);
      take(rows.rows);
    }
    if (s !== undefined && d0 !== null && s < d0 * DAY_MS) raw.push([s, d0 * DAY_MS]);
    if (e !== undefined && d1 !== null && e > d1 * DAY_MS) raw.push([d1 * DAY_MS, e]);
  }
  const rawCounts = async (from: number, to: number) => {
    const rows = await sql<{ k?: unknown; fairness: unknown; rule: unknown; n: unknown }>`select ${sel}fairness, fairness_rule as rule, count(*) as n from games
      where time_ms >= ${from} and time_ms < ${to} ${f} group by ${by}fairness, fairness_rule`.execute(db);
    take(rows.rows);
  };
  for (const [a = 0, b = Number.MAX_SAFE_INTEGER] of raw) {
    if (a >= b) continue;
    if (q.player !== undefined || q.groupBy === 'player') {
      await rawCounts(a, b);
      continue;
    }
    // Without a player, a cut day's whole hours from ru_fair_hg (migration 0023), and the raw games of under an hour at each end.
    const { hours, raw: ends } = hourSpan(a, b);
    if (hours) {
      const rows = await sql<{ k?: unknown; fairness: unknown; rule: unknown; n: unknown }>`select ${sel}fairness, rule, sum(games) as n from ru_fair_hg
        where hour_ms >= ${hours[0]} and hour_ms < ${hours[1]} ${f} group by ${by}fairness, rule`.execute(db);
      take(rows.rows);
    }
    for (const [from, to] of ends) await rawCounts(from, to);
  }

  // Violations, newest first, one keyset page.
  let list = db
    .selectFrom('games')
    .select(['signature', 'event_index', 'time_ms', 'player', 'creator', 'token', 'pool', 'fairness_rule'])
    .where('fairness', '=', sql.lit('violation'));
  if (q.creator !== undefined) list = list.where('creator', '=', q.creator);
  if (q.token !== undefined) list = list.where('token', '=', q.token);
  if (q.pool !== undefined) list = list.where('pool', '=', q.pool);
  if (q.player !== undefined) list = list.where('player', '=', q.player);
  if (s !== undefined) list = list.where('time_ms', '>=', s);
  if (e !== undefined) list = list.where('time_ms', '<', e);
  if (q.after !== undefined) {
    const after = positionValues(q.after, ['integer', 'string', 'integer']);
    list = list.where((eb) => eb(eb.refTuple(...VIOLATION_KEYS), '<', eb.tuple(after[0] as number, after[1] as string, after[2] as number)));
    list = list.where('time_ms', '<=', after[0] as number);
  }
  const rows = await list.orderBy('time_ms', 'desc').orderBy('signature', 'desc').orderBy('event_index', 'desc').limit(q.limit + 1).execute();
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  const violations: FairnessViolation[] = page.map((r) => ({
    signature: r.signature,
    event_index: num(r.event_index),
    time: num(r.time_ms),
    user: r.player,
    creator: r.creator,
    token: r.token,
    pool: r.pool,
    rule: r.fairness_rule ?? '',
  }));
  const next: KeyValue[] | null = rows.length > q.limit && last ? [num(last.time_ms), last.signature, num(last.event_index)] : null;

  let grouped: FairnessAuditResult['groups'] = null;
  if (group !== null) {
    grouped = [...groups]
      .map(([key, counts]) => ({ key, counts }))
      .sort((a, b) => b.counts.violation - a.counts.violation || b.counts.games - a.counts.games || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, FAIRNESS_MAX_GROUPS);
  }
  return { counts: overall, groups: grouped, groupsTotal: group === null ? 0 : groups.size, violations, next: next === null ? null : { values: next } };
}
