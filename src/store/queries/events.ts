import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { KeyValue, Page, PoolChangeRecord, PoolChangesQuery, SettledGame, SettledGamesQuery, SortDirection } from '../types.js';
import { big, counter, filterSql, num, poolToken } from './common.js';
import { GAME_KEYS, keysetKinds, POOL_CHANGE_KEYS, positionValues } from './keyset.js';

/** GET /events/settledGames: filters, ordering with deterministic tie-breakers, page or keyset position (`after`); `next` is the last row's key. */
export async function settledGames(db: Kysely<Database>, a: DialectAdapter, q: SettledGamesQuery): Promise<Page<SettledGame>> {
  const keys = GAME_KEYS[q.orderBy];
  const dir = q.sorting === 'ASC' ? 'asc' : 'desc';
  let base = db.selectFrom('games');
  // A pool implies its token: with both, check the pool's token once and filter by pool alone,
  // so the planner walks the pool's index in order (PostgreSQL otherwise ANDs both indexes and
  // sorts every game of the pool). Another token than the pool's keeps both (and matches nothing).
  let token = q.token;
  if (q.pool !== undefined && token !== undefined && (await poolToken(db, q.pool)) === token) token = undefined;
  if (q.creator !== undefined) base = base.where('creator', '=', q.creator);
  if (q.pool !== undefined) base = base.where('pool', '=', q.pool);
  if (token !== undefined) base = base.where('token', '=', token);
  if (q.user !== undefined) base = base.where('player', '=', q.user);
  // Literal 1 (not a bound parameter): SQLite uses a partial index only when the query spells its WHERE term.
  if (q.onlyJackpots) base = base.where('is_jackpot', '=', sql.lit(1));

  let list = base.select(['signature', 'event_index', 'time_ms', 'player', 'creator', 'token', 'pool', 'wager', 'payout', 'jackpot', 'usd_wager', 'usd_profit', 'multiplier_bps', 'fairness', 'fairness_rule']);
  for (const k of keys) list = list.orderBy(k, dir);
  if (q.after !== undefined) {
    const after = positionValues(q.after, keysetKinds('settledGames', q.orderBy));
    list = list.where((eb) => keysetAfter(eb, [...keys], after, q.sorting));
    // The leading key's bound, spelled out. (PostgreSQL 15 also derives an index range from the
    // row-value comparison itself, over as many of the index's columns as it names — e.g.
    // `ROW(multiplier_bps, time_ms) <= ROW(…)` on g_player_mult: docs/architecture.md "Bounded reads".)
    list = list.where(keys[0]!, q.sorting === 'ASC' ? '>=' : '<=', after[0] as number);
  } else {
    list = list.offset(q.page * q.itemsPerPage);
  }
  // With at most one filter (a column or onlyJackpots) an index holds the filter and the key's
  // order: walk it (docs/architecture.md "Bounded reads": keyset pages on PostgreSQL), so a page
  // costs its rows whatever the planner estimates. Two filters keep the planner's choice (it may
  // AND two indexes and sort the few games matching both).
  const filters = [q.creator, q.pool, token, q.user].filter((f) => f !== undefined).length + (q.onlyJackpots ? 1 : 0);
  const limited = list.limit(q.itemsPerPage + 1);
  const rows = filters <= 1 ? await a.orderedPage(db, limited) : await limited.execute();
  const more = rows.length > q.itemsPerPage;
  const page = rows.slice(0, q.itemsPerPage);
  const total = q.withoutTotal ? 0 : await settledTotal(db, q);
  const last = page[page.length - 1];
  const keyOf = (r: (typeof page)[number]): KeyValue[] =>
    keys.map((k) => (k === 'signature' ? r.signature : k === 'event_index' ? num(r.event_index) : k === 'time_ms' ? num(r.time_ms) : k === 'usd_profit' ? num(r.usd_profit) : num(r.multiplier_bps)));
  return {
    results: page.map((r) => {
      const wager = big(r.wager);
      const payout = big(r.payout);
      const jackpot = big(r.jackpot);
      return {
        signature: r.signature,
        wager,
        payout,
        usd_wager: num(r.usd_wager),
        usd_profit: num(r.usd_profit),
        profit: payout + jackpot - wager,
        user: r.player,
        creator: r.creator,
        token: r.token,
        pool: r.pool,
        jackpot,
        multiplier: num(r.multiplier_bps) / 10_000,
        time: num(r.time_ms),
        event_index: num(r.event_index),
        fairness: r.fairness,
        fairness_rule: r.fairness_rule,
      };
    }),
    total,
    next: more && last ? { values: keyOf(last) } : null,
  };
}

/**
 * `total` of a settledGames listing from rollup play counts (docs/design.md §7: never COUNT(*) over
 * games): ru_ctp (creator × token × pool, a few rows) or, with a user, that user's ru_user_ctp
 * rows; `jackpots` instead of `plays` for onlyJackpots.
 */
async function settledTotal(db: Kysely<Database>, q: SettledGamesQuery): Promise<number> {
  const col = sql.raw(q.onlyJackpots ? 'jackpots' : 'plays');
  const f = filterSql({ creator: q.creator, token: q.token, pool: q.pool, player: q.user });
  const table = sql.raw(q.user === undefined ? 'ru_ctp' : 'ru_user_ctp');
  const res = await sql<{ n: unknown }>`select sum(${col}) as n from ${table} where 1=1 ${f}`.execute(db);
  return num(res.rows[0]?.n);
}

// Row-value comparison `(a, b, c) > (x, y, z)` — supported by SQLite ≥ 3.15 and PostgreSQL.
function keysetAfter(eb: any, keys: string[], values: KeyValue[], sorting: SortDirection): Expression<SqlBool> {
  const op = sorting === 'ASC' ? '>' : '<';
  return eb(eb.refTuple(...keys), op, eb.tuple(...values));
}

/** GET /events/poolChanges for one pool, newest first (time, signature, event index; ASC on request), page or keyset position (`after`). */
export async function poolChanges(db: Kysely<Database>, q: PoolChangesQuery): Promise<Page<PoolChangeRecord>> {
  const keys = POOL_CHANGE_KEYS;
  const base = db.selectFrom('pool_changes').where('pool', '=', q.pool);
  const sorting = q.sorting ?? 'DESC';
  const dir = sorting === 'ASC' ? 'asc' : 'desc';
  let list = base.selectAll().orderBy('time_ms', dir).orderBy('signature', dir).orderBy('event_index', dir);
  if (q.after !== undefined) {
    const after = positionValues(q.after, keysetKinds('poolChanges'));
    list = list.where((eb) => keysetAfter(eb, [...keys], after, sorting));
  } else {
    list = list.offset(q.page * q.itemsPerPage);
  }
  const rows = await list.limit(q.itemsPerPage + 1).execute();
  const more = rows.length > q.itemsPerPage;
  const page = rows.slice(0, q.itemsPerPage);
  const total = await counter(db, `pool_changes:${q.pool}`);
  const last = page[page.length - 1];
  return {
    results: page.map((r) => ({
      signature: r.signature,
      action: r.action === 'withdraw' ? 'withdraw' : 'deposit',
      user: r.player,
      pool: r.pool,
      token: r.token,
      amount: big(r.amount),
      post_liquidity: big(r.post_liquidity),
      lp_supply: big(r.lp_supply),
      usd_amount: num(r.usd_amount),
      time: num(r.time_ms),
      event_index: num(r.event_index),
    })),
    total,
    next: more && last ? { values: [num(last.time_ms), last.signature, num(last.event_index)] } : null,
  };
}
