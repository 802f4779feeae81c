import { sql, type Kysely, type RawBuilder } from 'kysely';
import { dayOf, MS_PER_DAY } from '../../core/index.js';
import type { Database } from '../schema.js';
import { GAME_SUM_OF_ROW, type GameSumColumn } from '../rollups/definitions.js';
import type { BiggestWin, BiggestWinsQuery, HouseEdgeGroupBy, HouseEdgeQuery, HouseEdgeResult } from '../types-house.js';
import { big, dayAndBlockParts, filterSql, historyEnds, hourSpan, joinHiLoRow, listedSegmentSpans, newestDay, num, windowCoversHistory } from './common.js';
import { type KeyKind, positionValues } from './keyset.js';

/**
 * GET /house-edge and GET /house-edge/wins (docs/design.md §10). A window [startTime, endTime)
 * reads the rollup rows of the 32-day blocks wholly inside it, of the UTC days left at their edges
 * (common.ts blockSpans, migration 0013; without a player, an edge covering most of its block as
 * that block minus its other days, common.ts dayAndBlockParts) and the raw games of the days it cuts (each part bounded
 * by one day of games; without a player, a cut day mostly inside the window is its ru_day_game
 * rows minus the raw games of the part left out, so at most half a day of games is read):
 * - without a player (filter or grouping): ru_block_game and ru_day_game (block or day × game kind
 *   × creator × token × pool, migrations 0013 and 0008), a few rows per block or day; grouped by
 *   game or token without a creator or pool filter, ru_block_game_t and ru_day_game_t (block or
 *   day × game kind × token, migration 0022), and for the cut days ru_hour_game_t (hour × game
 *   kind × token) and the raw games of under an hour at each end;
 * - grouped by player, or filtered by one but not grouped by game: ru_block_user_t (block ×
 *   player × token) when grouped by player or token without a creator or pool filter, else
 *   ru_block_daily, and ru_daily (day ×
 *   creator × token × pool × player) for the edge days; grouped by player without filters, the
 *   page's players only (playersPage), the edges as 8-day segments and days (ru_seg_user_t,
 *   ru_day_user_t), the cut days as whole hours (ru_hour_user_t) and under an hour of raw games a side;
 * - one player grouped by game: that player's raw games of the window (index g_player_time).
 * All time reads the all-time rollups instead: ru_user_game for one player grouped by game
 * (migration 0021), ru_user_ctp for any other read with a player, ru_ctp without, and every block
 * of ru_block_game when grouped by game; so does a window holding every stored game.
 */

/** Group columns of each groupBy, in key order: a row's amounts are always in one token. */
const GROUP_COLUMNS: Record<HouseEdgeGroupBy, readonly string[]> = {
  creator: ['creator', 'token'],
  pool: ['pool', 'token'],
  token: ['token'],
  player: ['player', 'token'],
  game: ['game_kind', 'token'],
};

/**
 * Keyset of a /house-edge page: the group key, then the token — except groupBy=pool (a pool
 * has one token) and token: the key alone. All values are strings.
 */
export function houseEdgeKinds(groupBy: HouseEdgeGroupBy): KeyKind[] {
  return groupBy === 'pool' || groupBy === 'token' ? ['string'] : ['string', 'string'];
}

/** The game sums a /house-edge row reads (rollups/definitions.ts GAME_SUMS). */
const EDGE_SUMS = ['plays', 'wins', 'jackpots', 'jackpot_hi', 'jackpot_lo', 'wager_hi', 'wager_lo', 'payout_hi', 'payout_lo', 'expected_hi', 'expected_lo', 'usd_wager', 'usd_profit'] as const satisfies readonly GameSumColumn[];

/** EDGE_SUMS of rollup rows negated: the rows a window subtracts (a block's days outside it). */
const NEGATED_SUMS = sql.raw(EDGE_SUMS.map((c) => `-${c} as ${c}`).join(', '));

/** Whole UTC days [firstDay, endDay) of a window and the raw time ranges it cuts (ms, end exclusive). */
function splitWindow(start: number | undefined, end: number | undefined): { days: [number | undefined, number | undefined] | null; raw: [number | undefined, number | undefined][] } {
  const firstDay = start === undefined ? undefined : Math.ceil(start / MS_PER_DAY);
  const endDay = end === undefined ? undefined : Math.floor(end / MS_PER_DAY);
  if (firstDay !== undefined && endDay !== undefined && firstDay >= endDay) return { days: null, raw: start! < end! ? [[start, end]] : [] };
  const raw: [number | undefined, number | undefined][] = [];
  if (start !== undefined && start < firstDay! * MS_PER_DAY) raw.push([start, firstDay! * MS_PER_DAY]);
  if (end !== undefined && end > endDay! * MS_PER_DAY) raw.push([endDay! * MS_PER_DAY, end]);
  return { days: [firstDay, endDay], raw };
}

function timeRange(from: number | undefined, to: number | undefined): RawBuilder<unknown> {
  return sql`${from === undefined ? sql`` : sql`and time_ms >= ${from}`} ${to === undefined ? sql`` : sql`and time_ms < ${to}`}`;
}

/** GET /house-edge: one page of groups, ordered by their key ascending. */
export async function houseEdge(db: Kysely<Database>, q: HouseEdgeQuery): Promise<HouseEdgeResult> {
  // A window holding the whole history is the all-time answer (common.ts windowCoversHistory).
  const windowed = q.startTime !== undefined || q.endTime !== undefined;
  const ends = windowed ? await historyEnds(db) : undefined;
  if (windowed && windowCoversHistory(ends, q.startTime, q.endTime)) q = { ...q, startTime: undefined, endTime: undefined };
  const groups = GROUP_COLUMNS[q.groupBy];
  const keyCols = groups.slice(0, houseEdgeKinds(q.groupBy).length);
  const f = { creator: q.creator, token: q.token, pool: q.pool, player: q.user };
  const cols = sql.raw(groups.join(', '));
  const sums = sql.raw(EDGE_SUMS.join(', '));
  const ofRow = sql.raw(EDGE_SUMS.map((c) => (GAME_SUM_OF_ROW[c] === c ? c : `${GAME_SUM_OF_ROW[c]} as ${c}`)).join(', '));
  const negatedOfRow = sql.raw(EDGE_SUMS.map((c) => `-(${GAME_SUM_OF_ROW[c]}) as ${c}`).join(', '));
  const rawGames = (from: number | undefined, to: number | undefined) => sql`select ${cols}, ${ofRow} from games where 1=1 ${timeRange(from, to)} ${filterSql(f)}`;

  const parts: RawBuilder<unknown>[] = [];
  const unfiltered = q.creator === undefined && q.token === undefined && q.pool === undefined && q.user === undefined;
  if (q.groupBy === 'player' && unfiltered && (q.startTime !== undefined || q.endTime !== undefined)) {
    const page = await playersPage(db, q, ends);
    if (page === null) return { results: [], next: null };
    parts.push(page);
  } else if (q.startTime === undefined && q.endTime === undefined) {
    // All time: the all-time rollups (per player × game kind × creator × token × pool; per player ×
    // creator × token × pool; per creator × token × pool), or every block of ru_block_game.
    const byPlayer = q.groupBy === 'player' || q.user !== undefined;
    const table = sql.raw(q.groupBy === 'game' && q.user !== undefined ? 'ru_user_game' : byPlayer ? 'ru_user_ctp' : q.groupBy === 'game' ? 'ru_block_game' : 'ru_ctp');
    parts.push(sql`select ${cols}, ${sums} from ${table} where 1=1 ${filterSql(f)}`);
  } else if (q.groupBy === 'game' && q.user !== undefined) {
    // One player's window by game kind: the player's raw games in it (index g_player_time).
    parts.push(rawGames(q.startTime, q.endTime));
  } else {
    const byPlayer = q.groupBy === 'player' || q.user !== undefined;
    const { days, raw } = splitWindow(q.startTime, q.endTime);
    // Whole blocks from the block rollup, the days at their edges from the day rollup (migration 0013).
    // Grouped by player or token with neither a creator nor a pool (no such column read): the blocks per player × token.
    const narrow = (q.groupBy === 'player' || q.groupBy === 'token') && q.creator === undefined && q.pool === undefined;
    // Grouped by game or token with neither a player, a creator nor a pool: the rollups per game kind × token (migration 0022).
    const kindToken = !byPlayer && (q.groupBy === 'game' || q.groupBy === 'token') && q.creator === undefined && q.pool === undefined;
    const blockTable = byPlayer ? (narrow ? 'ru_block_user_t' : 'ru_block_daily') : kindToken ? 'ru_block_game_t' : 'ru_block_game';
    const dayTable = byPlayer ? 'ru_daily' : kindToken ? 'ru_day_game_t' : 'ru_day_game';
    // Without players, an edge span covering most of its block is that block minus its other days
    // (common.ts dayAndBlockParts); per player a block row set costs several days' rows, so not there.
    const lastDay = days && !byPlayer ? await newestDay(db) : undefined;
    const negated = lastDay === undefined ? undefined : { select: sql`${cols}, ${NEGATED_SUMS}`, lastDay };
    if (days) parts.push(...dayAndBlockParts(dayTable, blockTable, sql`${cols}, ${sums}`, days[0], days[1], filterSql(f), negated));
    for (const [from, to] of raw) {
      if (kindToken && from !== undefined && to !== undefined) {
        // A cut day per game kind × token: its whole hours from ru_hour_game_t, the raw games of
        // the part hours leave (under an hour at each end).
        const { hours, raw: ends } = hourSpan(from, to);
        if (hours) parts.push(sql`select ${cols}, ${sums} from ru_hour_game_t where hour_ms >= ${hours[0]} and hour_ms < ${hours[1]} ${filterSql(f)}`);
        for (const [a, b] of ends) parts.push(rawGames(a, b));
        continue;
      }
      // A cut day mostly inside the window, without players: its ru_day_game rows minus the raw
      // games of the part left out (under half a day), summed in the same statement (one snapshot).
      const day = from === undefined ? undefined : Math.floor(from / MS_PER_DAY);
      if (!byPlayer && day !== undefined && to !== undefined && to <= (day + 1) * MS_PER_DAY && to - from! > MS_PER_DAY / 2) {
        parts.push(sql`select ${cols}, ${sums} from ru_day_game where day = ${day} ${filterSql(f)}`);
        for (const [a, b] of [[day * MS_PER_DAY, from!], [to, (day + 1) * MS_PER_DAY]] as const) if (a < b) parts.push(sql`select ${cols}, ${negatedOfRow} from games where 1=1 ${timeRange(a, b)} ${filterSql(f)}`);
      } else parts.push(rawGames(from, to));
    }
  }
  if (parts.length === 0) return { results: [], next: null };

  let keyset = sql``;
  if (q.after !== undefined) {
    const v = positionValues(q.after, houseEdgeKinds(q.groupBy)) as string[];
    const [k0, k1] = keyCols.map((c) => sql.raw(c));
    keyset = v.length === 1 ? sql`where ${k0} > ${v[0]}` : sql`where ${k0} > ${v[0]} or (${k0} = ${v[0]} and ${k1} > ${v[1]})`;
  }
  // Ordered by every group column (for pool and token the key determines the token): the GROUP BY's own order, no second sort.
  const res = await sql<Record<string, unknown>>`select ${cols}, ${sql.raw(EDGE_SUMS.map((c) => `sum(${c}) as ${c}`).join(', '))}
    from (${sql.join(parts, sql` union all `)}) u ${keyset}
    group by ${cols} having sum(plays) <> 0 order by ${cols} limit ${q.limit + 1}`.execute(db);
  const rows = res.rows.slice(0, q.limit);
  const last = rows[rows.length - 1];
  return {
    results: rows.map((r) => ({
      key: String(r[groups[0]!]),
      token: String(r.token),
      plays: num(r.plays),
      wins: num(r.wins),
      jackpots: num(r.jackpots),
      jackpot: joinHiLoRow(r, 'jackpot'),
      wager: joinHiLoRow(r, 'wager'),
      payout: joinHiLoRow(r, 'payout'),
      expected_payout: joinHiLoRow(r, 'expected'),
      usd_wager: num(r.usd_wager),
      usd_profit: num(r.usd_profit),
    })),
    next: res.rows.length > q.limit && last ? { values: keyCols.map((c) => String(last[c])) } : null,
  };
}

/**
 * The rows (player, token, EDGE_SUMS) of the players a /house-edge?groupBy=player page over a
 * window without filters can hold (docs/design.md §10 "House edge by player over a window"):
 * not every player of the window, only the first limit + 2 players at or after the keyset's
 * player. Each part of the window — a whole 32-day block (ru_block_user), a whole 8-day segment
 * (ru_seg_user, migration 0026) or a day at the blocks' edges (ru_day_user), a cut day's whole
 * hours (ru_hour_user_t, migration 0027) and its raw games of under an hour at each end — lists its
 * players in address order; the first
 * limit + 2 of their union are the first limit + 2 of the window (a player of the union's first
 * k is among the first k of each part that holds it), and they hold the page's limit + 1 keys (the
 * keyset's own player may have no key left after its token). Their sums come from ru_block_user_t
 * for the whole blocks, ru_seg_user_t and ru_day_user_t (migrations 0026 and 0019) for the
 * segments and days at the blocks' edges, ru_hour_user_t for the cut days' whole hours, and their
 * raw games (index g_player_time) for the rest of the cut days, under an hour at each end.
 * null when the window holds no game.
 */
async function playersPage(db: Kysely<Database>, q: HouseEdgeQuery, ends: { first: number; last: number } | undefined): Promise<RawBuilder<unknown> | null> {
  // An open side of the window (or one beyond the history) ends at the UTC midnight before the
  // first stored game or after the last (`ends`: common.ts historyEnds): that day holds no game
  // outside the window, so it is read as a whole day (its rollup rows), not as a cut day's raw
  // games (the current day of a window open towards now: up to a day of games).
  if (ends === undefined) return null;
  const start = q.startTime === undefined || q.startTime <= ends.first ? dayOf(ends.first) * MS_PER_DAY : q.startTime;
  const end = q.endTime === undefined || q.endTime > ends.last ? (dayOf(ends.last) + 1) * MS_PER_DAY : q.endTime;
  if (end <= start) return null;
  const { days, raw } = splitWindow(start, end);
  // The whole blocks, then whole 8-day segments and days at their edges, one by one.
  const spans = days ? listedSegmentSpans(days[0]!, days[1]!) : { blocks: [], segs: [], days: [] };
  const k = q.limit + 2;
  const from = q.after === undefined ? undefined : (positionValues(q.after, houseEdgeKinds('player')) as string[])[0];
  const atOrAfter = from === undefined ? sql`` : sql`and player >= ${from}`;
  const lists: RawBuilder<unknown>[] = [];
  for (const b of spans.blocks) lists.push(sql`select player from ru_block_user where block = ${b} ${atOrAfter} order by player limit ${k}`);
  for (const g of spans.segs) lists.push(sql`select player from ru_seg_user where seg = ${g} ${atOrAfter} order by player limit ${k}`);
  for (const d of spans.days) lists.push(sql`select player from ru_day_user where day = ${d} ${atOrAfter} order by player limit ${k}`);
  // A cut day: its whole hours' players in address order (ru_hour_user_t, migration 0027, keyed
  // (day, player, …)), and the players of the raw games left at its ends (under an hour each)
  // unsorted, sorted with the rest below.
  const cuts = raw.map(([t0, t1]) => ({ day: dayOf(t0!), ...hourSpan(t0!, t1!) }));
  for (const c of cuts) {
    // `+hour_ms` keeps the primary key's (day, player) order (not the hours range of ru_hour_user_hour, migration 0030).
    if (c.hours) lists.push(sql`select distinct player from ru_hour_user_t where day = ${c.day} and +hour_ms >= ${c.hours[0]} and +hour_ms < ${c.hours[1]} ${atOrAfter} order by player limit ${k}`);
    for (const [t0, t1] of c.raw) lists.push(sql`select distinct player from games where 1=1 ${timeRange(t0, t1)} ${atOrAfter}`);
  }
  const candidates = await sql<{ player: string }>`select distinct player from (${sql.join(
    lists.map((l, i) => sql`select player from (${l}) ${sql.raw(`l${i}`)}`),
    sql` union all `,
  )}) u order by player limit ${k}`.execute(db);
  if (candidates.rows.length === 0) return null;
  const players = sql.join(candidates.rows.map((r) => r.player));
  const sums = sql.raw(EDGE_SUMS.join(', '));
  const ofRow = sql.raw(EDGE_SUMS.map((c) => (GAME_SUM_OF_ROW[c] === c ? c : `${GAME_SUM_OF_ROW[c]} as ${c}`)).join(', '));
  const parts: RawBuilder<unknown>[] = [];
  // The page's sums by key search, (block, segment or day, player) pairs listed by value so both
  // engines seek them: a segment with more than half its days in the window is that segment minus
  // its other days (common.ts listedSegmentSpans). The candidates above stay the window's exact players.
  const keyed = days ? listedSegmentSpans(days[0]!, days[1]!, true) : { blocks: [], segs: [], days: [], minusDays: [] };
  if (keyed.blocks.length > 0) parts.push(sql`select player, token, ${sums} from ru_block_user_t where block in (${sql.join(keyed.blocks)}) and player in (${players})`);
  if (keyed.segs.length > 0) parts.push(sql`select player, token, ${sums} from ru_seg_user_t where seg in (${sql.join(keyed.segs)}) and player in (${players})`);
  if (keyed.days.length > 0) parts.push(sql`select player, token, ${sums} from ru_day_user_t where day in (${sql.join(keyed.days)}) and player in (${players})`);
  if (keyed.minusDays.length > 0) parts.push(sql`select player, token, ${NEGATED_SUMS} from ru_day_user_t where day in (${sql.join(keyed.minusDays)}) and player in (${players})`);
  for (const c of cuts) {
    if (c.hours) parts.push(sql`select player, token, ${sums} from ru_hour_user_t where day = ${c.day} and player in (${players}) and +hour_ms >= ${c.hours[0]} and +hour_ms < ${c.hours[1]}`);
    for (const [t0, t1] of c.raw) parts.push(sql`select player, token, ${ofRow} from games where player in (${players}) ${timeRange(t0, t1)}`);
  }
  return sql.join(parts, sql` union all `);
}

/** Key columns of each wins ordering: the games index of migration 0001 (games_multiplier, games_usd_profit). */
const WIN_ORDER: Record<BiggestWinsQuery['sortBy'], string> = {
  multiplier: 'multiplier_bps desc, time_ms desc, signature desc, event_index desc',
  usd_profit: 'usd_profit desc, time_ms desc, signature desc, event_index desc',
  // Exact u64 order from the halves (hi, then lo).
  payout: 'payout_hi desc, payout_lo desc, time_ms desc, signature desc, event_index desc',
};

/**
 * GET /house-edge/wins: the `limit` biggest wins (payout > wager) among the filtered games of the
 * window, by multiplier, USD profit or payout (one token), newest first within ties. Reads the ordering's index
 * from its top until `limit` games match.
 */
export async function biggestWins(db: Kysely<Database>, q: BiggestWinsQuery): Promise<BiggestWin[]> {
  const f = { creator: q.creator, token: q.token, pool: q.pool, player: q.user };
  const res = await sql<Record<string, unknown>>`select signature, time_ms, player, creator, token, pool, game_kind, wager, payout, jackpot, multiplier_bps, usd_wager, usd_profit
    from games where (payout_hi > wager_hi or (payout_hi = wager_hi and payout_lo > wager_lo)) ${timeRange(q.startTime, q.endTime)} ${filterSql(f)}
    order by ${sql.raw(WIN_ORDER[q.sortBy])} limit ${q.limit}`.execute(db);
  return res.rows.map((r) => ({
    signature: String(r.signature),
    time: num(r.time_ms),
    user: String(r.player),
    creator: String(r.creator),
    token: String(r.token),
    pool: String(r.pool),
    game: String(r.game_kind),
    wager: big(r.wager),
    payout: big(r.payout),
    jackpot: big(r.jackpot),
    multiplier: num(r.multiplier_bps) / 10_000,
    usd_wager: num(r.usd_wager),
    usd_profit: num(r.usd_profit),
  }));
}
