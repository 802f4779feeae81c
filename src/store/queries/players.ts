import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { KeysetPosition, LeaderboardEntry, PlayerQuery, PlayerResult, PlayersQuery, PlayersResult } from '../types.js';
import { GAME_ROLLUP_COLUMNS, playerCounterName, SORT_KEYS, type RollupTable } from '../rollups/definitions.js';
import { AGG_SUMS, aggregatedOrder, counter, coversHistory, filterSql, newestDay, num, poolToken, tokenSums, windowSource } from './common.js';
import { keysetKinds, positionValues } from './keyset.js';
import { topWindow, TOPN_MAX_DEPTH } from './topn.js';

/** A per-player rollup row's columns (rollups/definitions.ts), as read by the all-time leaderboards. */
const ROW_COLUMNS = sql.raw(GAME_ROLLUP_COLUMNS.join(', '));

/** GET /player: all-time totals of one user from ru_user_t, or ru_user_ct with a creator (docs/spec.md §2 Player statistics; docs/design.md §4). */
export async function player(db: Kysely<Database>, q: PlayerQuery): Promise<PlayerResult | undefined> {
  // One row per token (ru_user_t), or per creator and token (ru_user_ct): a heavy player's rows per
  // creator × token × pool (ru_user_ctp, up to one per pool of every creator) lie on as many pages.
  const table = sql.raw(q.creator === undefined ? 'ru_user_t' : 'ru_user_ct');
  const res = await sql<Record<string, unknown>>`select token, ${AGG_SUMS} from ${table}
    where player = ${q.user} ${filterSql({ creator: q.creator, token: q.token })} group by token`.execute(db);
  if (res.rows.length === 0) return undefined;
  let plays = 0, volume = 0, profit = 0, win = 0, loss = 0, first = Infinity, last = 0;
  let fav: { token: string; plays: number; usd: number } | undefined;
  for (const r of res.rows) {
    const p = num(r.plays);
    const usd = num(r.usd_wager);
    plays += p;
    volume += usd;
    profit += num(r.usd_profit);
    win = Math.max(win, num(r.max_usd_profit));
    loss = Math.min(loss, num(r.min_usd_profit));
    first = Math.min(first, num(r.first_ms));
    last = Math.max(last, num(r.last_ms));
    const token = String(r.token);
    // favorite_token: most plays, then higher USD volume, then address order (docs/design.md §4).
    if (!fav || p > fav.plays || (p === fav.plays && (usd > fav.usd || (usd === fav.usd && token < fav.token)))) fav = { token, plays: p, usd };
  }
  return {
    user: q.user,
    total_plays: plays,
    total_volume_usd: volume,
    total_profit_usd: profit,
    biggest_win_usd: win,
    biggest_loss_usd: loss,
    favorite_token: fav!.token,
    first_play: first === Infinity ? 0 : first,
    last_play: last,
  };
}

/**
 * GET /players leaderboard. Source by filters (docs/design.md §7: cost bounded by the answer or window):
 * - all-time, unfiltered (usd_* only, docs/design.md §4) → the top N straight from ru_user's sort
 *   indexes, total from the 'players' counter;
 * - all-time with creator/token/pool → the per-player rollup of that filter shape, read in
 *   index order (limit + offset rows; migration 0004, rollups/definitions.ts SORT_KEYS), total from its counter;
 * - a window holding every stored game → as all-time;
 * - startTime / endTime → the window (common.ts windowSource: rollup days or blocks + the whole hours and raw rows of the partial first and last days): grows with the window;
 * - except usd_volume over a window without filter (offset + limit < TOPN_MAX_DEPTH; with a keyset position, limit):
 *   the early-stopping top-N of topn.ts (docs/design.md §7 "Top-N over a window's parts"), same answer.
 * Ties break by user ascending (docs/design.md §4). token_* are null unless one token is implied.
 */
export async function players(db: Kysely<Database>, a: DialectAdapter, q: PlayersQuery): Promise<PlayersResult> {
  const singleToken = q.token !== undefined || q.pool !== undefined;
  const filtered = q.creator !== undefined || q.token !== undefined || q.pool !== undefined;
  // A window holding the whole history reads the all-time rollups (common.ts coversHistory).
  if ((q.startTime !== undefined || q.endTime !== undefined) && (await coversHistory(db, q.startTime, q.endTime))) q = { ...q, startTime: undefined, endTime: undefined };
  const windowed = q.startTime !== undefined || q.endTime !== undefined;
  if (!windowed && !filtered && (q.sortBy === 'usd_profit' || q.sortBy === 'usd_volume')) return topPlayers(db, a, q);
  if (!windowed && filtered) return filteredPlayers(db, a, q, singleToken);
  // Windowed USD volume or profit, of every player or of one creator: early-stopping top-N
  // (topn.ts), which answers undefined when the summing path below is the cheaper one.
  const topSort = q.sortBy === 'usd_volume' || q.sortBy === 'usd_profit' ? q.sortBy : undefined;
  if (windowed && !singleToken && topSort !== undefined && (q.after === undefined ? q.offset : 0) + q.limit < TOPN_MAX_DEPTH) {
    const offset = q.after === undefined ? q.offset : 0;
    const after = q.after === undefined ? undefined : positionValues(q.after, keysetKinds('players')) as [string, string];
    // A position whose value is no finite number is left to the summing path (afterSql).
    if (!after || Number.isFinite(Number(after[0]))) {
      const top = await topWindow(db, a, { creator: q.creator, sortBy: topSort }, q.startTime, q.endTime, offset + q.limit + 1, after && { sk: Number(after[0]), player: after[1] });
      if (top) return pageOf(top.rows.slice(offset), q.limit, false, top.total);
    }
  }
  // A creator's window open towards now lists its days up to the newest stored one (windowSource).
  const lastDay = windowed && q.creator !== undefined && q.endTime === undefined ? ((await newestDay(db)) ?? -1) : undefined;
  const source = windowed ? windowSource(a, { creator: q.creator, token: q.token, pool: q.pool }, q.startTime, q.endTime, lastDay) : sql`select * from ru_user`;
  const order = aggregatedOrder(q.sortBy);
  // The window's players are counted in the same pass (count over the grouped rows, before
  // LIMIT); only a page past the end needs a second pass for the total. A keyset position
  // filters the grouped rows (after the count) by the same sort value `sk`.
  const grouped = sql`select player, ${AGG_SUMS}, ${order} as sk, count(*) over () as total_players from (${source}) s group by player`;
  const rows = await sql<Record<string, unknown>>`select * from (${grouped}) g where 1=1 ${afterSql(a, sql.raw('sk'), q.after)}
    order by sk desc, player asc limit ${q.limit + 1} offset ${q.after === undefined ? q.offset : 0}`.execute(db);
  const total =
    rows.rows.length > 0
      ? num(rows.rows[0]!.total_players)
      : num((await sql<{ n: unknown }>`select count(distinct player) as n from (${source}) s`.execute(db)).rows[0]?.n);
  return pageOf(rows.rows, q.limit, singleToken, total);
}

/**
 * `and <after the position>` for a leaderboard ordered by `key` desc, player asc: `key <= v` (an
 * index range) and then strictly after the row (key, player). The sort value travels as the
 * database's text (exact: PostgreSQL's numeric token sums); SQLite compares it as the double it is.
 */
function afterSql(a: DialectAdapter, key: RawBuilder<unknown>, after: KeysetPosition | undefined): RawBuilder<unknown> {
  if (after === undefined) return sql``;
  const [text, player] = positionValues(after, keysetKinds('players')) as [string, string];
  const v = a.kind === 'sqlite' ? Number(text) : text;
  if (a.kind === 'sqlite' && !Number.isFinite(v)) return sql`and 1=0`;
  return sql`and ${key} <= ${v} and (${key} < ${v} or player > ${player})`;
}

/** The first `limit` of `rows` (fetched limit + 1) as entries, with the next position when more follow. */
function pageOf(rows: Record<string, unknown>[], limit: number, singleToken: boolean, total: number): PlayersResult {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const next = rows.length > limit && last ? { values: [String(last.sk), String(last.player)] } : null;
  return { results: page.map((r) => leaderboardEntry(r, singleToken)), total, next };
}

function leaderboardEntry(r: Record<string, unknown>, singleToken: boolean): LeaderboardEntry {
  const t = singleToken ? tokenSums(r) : undefined;
  return {
    user: String(r.player),
    total_plays: num(r.plays),
    usd_volume: num(r.usd_wager),
    usd_profit: num(r.usd_profit),
    token_volume: t ? t.volume : null,
    token_profit: t ? t.profit : null,
    biggest_win_usd: num(r.max_usd_profit),
    last_play: num(r.last_ms),
  };
}

/**
 * The per-player rollup of each all-time filter shape (migration 0004); its player counter is
 * named by rollups/definitions.ts playerCounterName. A pool implies its token, so pool (± token) reads
 * ru_user_tp and creator + pool (± token) reads ru_user_ctp.
 */
function filterShape(q: PlayersQuery): { table: RollupTable; counter: string } {
  const { creator: c, token: t, pool: p } = q;
  const table: RollupTable =
    c !== undefined && p !== undefined ? 'ru_user_ctp'
    : p !== undefined ? 'ru_user_tp'
    : c !== undefined && t !== undefined ? 'ru_user_ct'
    : t !== undefined ? 'ru_user_t'
    : 'ru_user_c';
  return { table, counter: playerCounterName(table, { creator: c ?? '', token: t ?? '', pool: p ?? '' })! };
}

/** All-time leaderboard with filters: limit + offset rows of a sort index, total from a counter. */
async function filteredPlayers(db: Kysely<Database>, a: DialectAdapter, q: PlayersQuery, singleToken: boolean): Promise<PlayersResult> {
  // A pool with another token than the one asked for matches no game (its counter would not know).
  if (q.pool !== undefined && q.token !== undefined) {
    const token = await poolToken(db, q.pool);
    if (token !== undefined && token !== q.token) return { results: [], total: 0, next: null };
  }
  const { table, counter: name } = filterShape(q);
  const key = sql.raw(SORT_KEYS[q.sortBy]);
  const rows = await sql<Record<string, unknown>>`select player, ${ROW_COLUMNS}, ${key} as sk
    from ${sql.raw(table)} where 1=1 ${filterSql({ creator: q.creator, token: q.token, pool: q.pool })} ${afterSql(a, key, q.after)}
    order by ${key} desc, player asc limit ${q.limit + 1} offset ${q.after === undefined ? q.offset : 0}`.execute(db);
  return pageOf(rows.rows, q.limit, singleToken, await counter(db, name));
}

/** All-time unfiltered leaderboard: reads limit + offset rows of an ru_user index (migration 0002). */
async function topPlayers(db: Kysely<Database>, a: DialectAdapter, q: PlayersQuery): Promise<PlayersResult> {
  const key = sql.raw(q.sortBy === 'usd_profit' ? SORT_KEYS.usd_profit : SORT_KEYS.usd_volume);
  const rows = await sql<Record<string, unknown>>`select player, ${ROW_COLUMNS}, ${key} as sk from ru_user where 1=1 ${afterSql(a, key, q.after)}
    order by ${key} desc, player asc limit ${q.limit + 1} offset ${q.after === undefined ? q.offset : 0}`.execute(db);
  const total = await counter(db, 'players');
  return pageOf(rows.rows, q.limit, false, total);
}
