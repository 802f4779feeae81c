/**
 * The brute-force oracle: every read operation's expected JSON answer, computed by plain loops
 * over ALL events, written from the definitions (docs/design.md §3–§4, docs/spec.md §2/§4, the docs of
 * src/store/types.ts) and independently of the store's SQL and rollups. Used by the contract
 * tests (fixture → store → HTTP) and by the indexer's end-to-end tests (simulator ground truth),
 * so its input is generic: events + a price function + a decimals function + the wall clock.
 *
 * Output is the API's JSON form: token amounts as decimal integer strings (exact, via BigInt),
 * USD as numbers, times as Unix ms integers, dates as UTC `YYYY-MM-DD`.
 *
 * ── Readings where the contract is not explicit (lead: please confirm) ──
 * R1 Price of a game: `priceOf(mint, hourFloor(time))` / 10^decimals per smallest unit (docs/design.md §6);
 *    a game (or pool change) whose price or decimals is unknown is "un-priced" and counts 0 USD
 *    in every USD figure, but still counts in plays, players, token sums (docs/design.md §6, types.ts header).
 * R2 Event listings order: (key, time, signature, eventIndex), every component in the requested
 *    direction (docs/design.md §4 "ties … by time then signature"). Signatures compare by code unit (= byte
 *    order of the ASCII base58 text, SQLite BINARY collation). /events/poolChanges is ordered
 *    newest first: (time, signature, eventIndex) DESC ("paged like settledGames", default DESC).
 * R3 Aggregate listings break ties by their identifier ascending: leaderboard by `user`,
 *    /platforms and /platforms-by-pool by `creator`, /tokens by `token` (types.ts, docs/design.md §4).
 * R4 /platforms `last_activity`, `unique_players`, `plays`, `usd_*` are all computed inside the
 *    rolling window time ∈ [now − days·24 h, now] (docs/design.md §4 "Windows").
 * R5 Leaderboard `biggest_win_usd` = max(0, max usd_profit) over the filtered games (as /player).
 *    `token_volume`/`token_profit` are null exactly when neither `token` nor `pool` is given.
 * R6 /ratio: one point per UTC hour h, dense, for h from hourFloor(now − 30 d) to hourFloor(now)
 *    (both included). Each point is the pool's state at the END of its hour (after every event with
 *    time < h + 1 h, and ≤ now), carried forward through hours without events, starting from the
 *    state before the window: pool_liquidity = the latest GameSettled.poolLiquidity or
 *    PoolChange.postLiquidity, lp_supply = the latest PoolChange.lpSupply (chain order =
 *    (slot, signature, eventIndex)). Hours before the pool's first PoolChange have no LP supply
 *    and are omitted. ratio = pool_liquidity / lp_supply as a double.
 * R7 /total `token` is the pool's token from any event naming the pool (game, pool change,
 *    pool creation); null when none. /daily and the charts: dense `days` UTC dates ending with
 *    dayOf(now), games bucketed by the UTC date of their time.
 * R8 /sync/status `totalSignatures` = distinct signatures among the events (the fixture has no
 *    failed transactions); `latestUpdate` = the event latest in chain order (slot, eventIndex).
 * R9 /pools and /pool (docs/design.md §3 "Pools"): every pool named by any event. `liquidity` = the
 *    chain-latest GameSettled.poolLiquidity or PoolChange.postLiquidity ("0" without one);
 *    `lp_supply` = the chain-latest PoolChange.lpSupply (null without one); `lp_price` =
 *    liquidity / lp_supply as doubles (1 when lp_supply is 0, null when it is null); `tvl_usd` =
 *    liquidity × (the token's price at the LATEST hour among the stored prices `input.prices`) /
 *    10^decimals, 0 without one; `authority`/`created_time` from its PoolCreated (null without);
 *    `house_pnl` = Σ wager − Σ payout (jackpots excluded), `house_pnl_usd` = Σ (wager − payout)·p;
 *    `last_activity` = the latest event time of any kind. Orderings are descending by the sort
 *    key, ties by pool ascending; `created_time` null sorts last. A window [startTime, endTime)
 *    keeps games with startTime ≤ time < endTime for plays, volume, fees and PnL only.
 */
import { fairnessOracle } from './fairness-oracle.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import { MS_PER_DAY, MS_PER_HOUR, dayOf, dayToDate, hourFloor } from '../../src/core/index.js';

export interface OracleInput {
  events: LocatedEvent[];
  /** The stored hourly prices (R9: the latest hour of a token prices its pools' TVL); needed by pools()/pool(). */
  prices?: readonly { mint: string; hourMs: number; usdPrice: number }[];
  /** USD per WHOLE token for the UTC hour starting at hourMs; undefined = un-priced. */
  priceOf(mint: string, hourMs: number): number | undefined;
  decimalsOf(mint: string): number | undefined;
  /** Wall clock, Unix ms (active_players, /platforms window, charts, /ratio). */
  nowMs: number;
}

// ───────────────────────────── JSON shapes (docs/spec.md §2, docs/design.md §4) ─────────────────────────────

export interface StatsJson {
  players: number; usd_volume: number; plays: number; creators: number; revenue_usd: number;
  player_net_profit_usd: number; active_players: number; first_bet_time: number;
}
export interface PlayerJson {
  user: string; total_plays: number; total_volume_usd: number; total_profit_usd: number;
  biggest_win_usd: number; biggest_loss_usd: number; favorite_token: string; first_play: number; last_play: number;
}
export interface LeaderboardJson {
  user: string; total_plays: number; usd_volume: number; usd_profit: number;
  token_volume: string | null; token_profit: string | null; biggest_win_usd: number; last_play: number;
}
export interface SettledGameJson {
  signature: string; wager: string; payout: string; usd_wager: number; usd_profit: number; profit: string;
  user: string; creator: string; token: string; pool: string; jackpot: string; multiplier: number; time: number;
  /** docs/design.md §14, from test/helpers/fairness-oracle.ts. */
  fairness: string; fairness_rule: string | null;
}
export interface PoolJson {
  pool: string; token: string; authority: string | null; created_time: number | null;
  liquidity: string; lp_supply: string | null; lp_price: number | null; tvl_usd: number;
  plays: number; volume: string; usd_volume: number; pool_fees: string; pool_fees_usd: number;
  house_pnl: string; house_pnl_usd: number; last_activity: number;
}
export type PoolsSortBy = 'tvl_usd' | 'usd_volume' | 'plays' | 'pool_fees_usd' | 'created_time';
export interface PoolChangeJson {
  signature: string; action: 'deposit' | 'withdraw'; user: string; pool: string; token: string; amount: string;
  post_liquidity: string; lp_supply: string; usd_amount: number; time: number;
}
export interface PlatformJson { creator: string; usd_volume: number; usd_revenue: number; plays: number; unique_players: number; last_activity: number }
export interface PlatformByPoolJson { creator: string; volume: string; usd_volume: number; plays: number }
export interface TokenJson { token: string; plays: number; volume: string; usd_volume: number; decimals: number | null }
export interface RatioJson { time: number; pool_liquidity: string; lp_supply: string; ratio: number }
export interface TotalJson { pool: string; token: string | null; volume: string; usd_volume: number; plays: number }
export interface PoolDailyJson { date: string; time: number; volume: string; volume_usd: number; plays: number }
export interface PlaysPointJson { date: string; time: number; plays: number; volume_usd: number }
export interface DaoPointJson { date: string; time: number; dao_fees_usd: number }

/**
 * A series request (docs/design.md §4 "Windows"): `days` dates ending today in `tz` (default 300,
 * 1 with interval=hour) or the window [startTime, endTime); one point per local hour, day or ISO
 * week (Monday).
 */
export interface SeriesQ { days?: number; startTime?: number; endTime?: number; tz?: string; interval?: 'hour' | 'day' | 'week' }

/** One series bucket as the oracle finds it: its key, label, nominal start and its part inside the window. */
interface OracleBucket { key: string; date: string; time: number; from: number; to: number }

const QUARTER_MS = 15 * 60_000;
const zoneFormats = new Map<string, Intl.DateTimeFormat>();
const quarterKeys = new Map<string, Map<number, { date: string; hour: string; offset: string; weekday: string }>>();
/**
 * Local date, hour, UTC offset and weekday of instant t in tz, by plain Intl formatting (no
 * arithmetic of the store's code). Every zone's offset is a multiple of 15 minutes, so a bucket
 * starts on a UTC quarter-hour and scanning quarters finds every bucket edge exactly.
 */
function localOf(tz: string, t: number): { date: string; hour: string; offset: string; weekday: string } {
  const q = Math.floor(t / QUARTER_MS) * QUARTER_MS;
  let zone = quarterKeys.get(tz);
  if (!zone) quarterKeys.set(tz, (zone = new Map()));
  let v = zone.get(q);
  if (v) return v;
  let f = zoneFormats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23', weekday: 'short', timeZoneName: 'longOffset' });
    zoneFormats.set(tz, f);
  }
  const p: Record<string, string> = {};
  for (const x of f.formatToParts(new Date(q))) p[x.type] = x.value;
  v = { date: `${p.year}-${p.month}-${p.day}`, hour: p.hour!, offset: p.timeZoneName!, weekday: p.weekday! };
  zone.set(q, v);
  return v;
}
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const addDays = (date: string, n: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + n * MS_PER_DAY).toISOString().slice(0, 10);
/** The bucket key of instant t: local date (day), Monday's date (week), local date + hour + offset (hour: a repeated hour at a DST fall-back is another bucket). */
function bucketKey(tz: string, interval: 'hour' | 'day' | 'week', t: number): string {
  const l = localOf(tz, t);
  if (interval === 'day') return l.date;
  if (interval === 'week') return addDays(l.date, -WEEKDAYS.indexOf(l.weekday));
  return `${l.date}T${l.hour} ${l.offset}`;
}

/** The buckets of a series request, found by scanning UTC quarter-hours (a brute force of docs/design.md §4 "Windows"). */
export function oracleBuckets(q: SeriesQ, nowMs: number): OracleBucket[] {
  const tz = q.tz ?? 'UTC';
  const interval = q.interval ?? 'day';
  const days = q.days ?? (interval === 'hour' ? 1 : 300);
  // The same request is asked with many filters: the scan (tens of thousands of quarter-hours for
  // a long series) runs once per request shape and clock; callers get their own copies.
  const memo = `${tz}|${interval}|${days}|${q.startTime}|${q.endTime}|${nowMs}`;
  let found = bucketScans.get(memo);
  if (!found) bucketScans.set(memo, (found = scanBuckets(tz, interval, days, q, nowMs)));
  return found.map((b) => ({ ...b }));
}
const bucketScans = new Map<string, OracleBucket[]>();

function scanBuckets(tz: string, interval: 'hour' | 'day' | 'week', days: number, q: SeriesQ, nowMs: number): OracleBucket[] {
  const key = (t: number) => bucketKey(tz, interval, t);
  const startOf = (t: number): number => {
    let x = Math.floor(t / QUARTER_MS) * QUARTER_MS;
    const k = key(x);
    while (key(x - QUARTER_MS) === k) x -= QUARTER_MS;
    return x;
  };
  let end = q.endTime;
  if (end === undefined) {
    // The end of the bucket holding now.
    let x = Math.floor(nowMs / QUARTER_MS) * QUARTER_MS;
    const k = key(x);
    while (key(x) === k) x += QUARTER_MS;
    end = x;
  }
  let start = q.startTime;
  if (start === undefined) {
    // The first instant of the local date days − 1 before the date of end − 1.
    const target = addDays(localOf(tz, end - 1).date, -(days - 1));
    let x = Math.floor((end - 1) / QUARTER_MS) * QUARTER_MS;
    while (localOf(tz, x - QUARTER_MS).date >= target) x -= QUARTER_MS;
    start = x;
  }
  const out: OracleBucket[] = [];
  for (let x = startOf(start); x < end; x += QUARTER_MS) {
    const k = key(x);
    const last = out[out.length - 1];
    if (last && last.key === k) continue;
    if (last) last.to = Math.min(x, end);
    out.push({ key: k, date: localOf(tz, x).date, time: x, from: Math.max(x, start), to: end });
  }
  return out;
}
export interface CountsJson {
  totalGames: number; totalPoolChanges: number; totalSignatures: number; totalVolumeUsd: number;
  unpricedGames: number; latest: { signature: string; blockTime: number } | null;
}

export type Direction = 'ASC' | 'DESC';
export type PlayersSortBy = 'usd_profit' | 'usd_volume' | 'token_profit' | 'token_volume';
export type GamesOrderBy = 'time' | 'multiplier' | 'usd_profit';

export interface GameFilter { onlyJackpots?: boolean; creator?: string; pool?: string; token?: string; user?: string }
export interface PlayersFilter { creator?: string; token?: string; pool?: string; startTime?: number; endTime?: number }

/** One settled game with every derived value of docs/design.md §3. */
export interface OracleGame {
  signature: string; eventIndex: number; slot: number;
  /** blockTime · 1000 (docs/design.md §3 `time` in ms). */
  time: number;
  user: string; creator: string; token: string; pool: string;
  wager: bigint; payout: bigint; jackpot: bigint;
  /** payout + jackpot − wager (docs/design.md §3). */
  profit: bigint;
  /** creatorFee + gambaFee + poolFee + jackpotFee (docs/design.md §3). */
  fees: bigint;
  creatorFee: bigint; gambaFee: bigint; poolFee: bigint; multiplierBps: number;
  /** Fairness verdict and rule (docs/design.md §14; test/helpers/fairness-oracle.ts). */
  fairness: string; fairnessRule: string | null;
  /** GameSettled.poolLiquidity (for /ratio). */
  poolLiquidity: bigint;
  priced: boolean;
  usd_wager: number; usd_profit: number; usd_creator_fee: number; usd_gamba_fee: number;
  /** (profit − fees) × p (docs/design.md §3 player_net_profit_usd term). */
  usd_net: number;
  /** poolFee × p and (wager − payout) × p (R9). */
  usd_pool_fee: number; usd_house_pnl: number;
}

export interface OraclePoolChange {
  signature: string; eventIndex: number; slot: number; time: number;
  action: 'deposit' | 'withdraw'; user: string; pool: string; token: string;
  amount: bigint; postLiquidity: bigint; lpSupply: bigint; usd_amount: number;
}

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const cmpNum = (a: number, b: number): number => (a < b ? -1 : a > b ? 1 : 0);
const cmpBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
/** Chain order (R6, R8). */
const chainOrder = (a: { slot: number; signature: string; eventIndex: number }, b: typeof a): number =>
  a.slot - b.slot || cmpStr(a.signature, b.signature) || a.eventIndex - b.eventIndex;

export interface Oracle {
  readonly games: readonly OracleGame[];
  readonly poolChangeEvents: readonly OraclePoolChange[];
  readonly nowMs: number;
  counts(): CountsJson;
  stats(q?: { creator?: string; startTime?: number; endTime?: number }): StatsJson;
  /** undefined when the user has no matching game (API: 404 PLAYER_NOT_FOUND). */
  player(q: { user: string; creator?: string; token?: string }): PlayerJson | undefined;
  /** The whole ordered leaderboard (before limit/offset). */
  leaderboard(q: PlayersFilter & { sortBy: PlayersSortBy }): LeaderboardJson[];
  players(q: PlayersFilter & { sortBy: PlayersSortBy; limit: number; offset: number }): { results: LeaderboardJson[]; total: number };
  /** The whole ordered listing (before paging). */
  settledGamesAll(q: GameFilter & { orderBy: GamesOrderBy; sorting: Direction }): SettledGameJson[];
  settledGames(q: GameFilter & { orderBy: GamesOrderBy; sorting: Direction; page: number; itemsPerPage: number }): { results: SettledGameJson[]; total: number };
  poolChangesAll(pool: string): PoolChangeJson[];
  poolChanges(q: { pool: string; page: number; itemsPerPage: number }): { results: PoolChangeJson[]; total: number };
  platforms(q: { limit: number; days: number; sortBy: 'usd_volume' | 'usd_revenue'; startTime?: number; endTime?: number }): PlatformJson[];
  platformsByPool(pool: string): PlatformByPoolJson[];
  tokens(q?: { creator?: string }): TokenJson[];
  ratio(pool: string): RatioJson[];
  total(pool: string): TotalJson;
  daily(q: SeriesQ & { pool: string }): PoolDailyJson[];
  chartPlays(q: SeriesQ & { creator?: string }): PlaysPointJson[];
  chartDailyUsd(q: SeriesQ & { creator?: string }): PlaysPointJson[];
  chartDaoUsd(q: SeriesQ & { creator?: string }): DaoPointJson[];
  /** Every pool, ordered (R9; before paging). */
  poolsAll(q: { sortBy: PoolsSortBy; token?: string }): PoolJson[];
  /** One pool (R9), optionally over a window; undefined when no event names it (API: 404 POOL_NOT_FOUND). */
  pool(q: { pool: string; startTime?: number; endTime?: number }): PoolJson | undefined;
}

export function createOracle(input: OracleInput): Oracle {
  const { nowMs } = input;

  /** USD per smallest unit at a time (docs/design.md §6: price / 10^decimals at the hour); undefined = un-priced (R1). */
  const usdPerUnit = (mint: string, timeMs: number): number | undefined => {
    const price = input.priceOf(mint, hourFloor(timeMs));
    const decimals = input.decimalsOf(mint);
    if (price === undefined || decimals === undefined) return undefined;
    return price / 10 ** decimals;
  };

  const games: OracleGame[] = [];
  const verdicts = fairnessOracle(input.events);
  const poolChangeEvents: OraclePoolChange[] = [];
  const poolTokens = new Map<string, { token: string; order: LocatedEvent }>();
  const notePoolToken = (pool: string, token: string, e: LocatedEvent): void => {
    const prev = poolTokens.get(pool);
    if (!prev || chainOrder(e, prev.order) < 0) poolTokens.set(pool, { token, order: e });
  };

  for (const e of input.events) {
    const time = e.blockTime * 1000; // docs/design.md §3: time = block time in ms
    if (e.name === 'GameSettled') {
      const d = e.data;
      const p = usdPerUnit(d.tokenMint, time);
      const u = p ?? 0; // R1: un-priced → 0 USD
      const jackpot = d.jackpotPayoutToUser;
      const profit = d.payout + jackpot - d.wager;
      const fees = d.creatorFee + d.gambaFee + d.poolFee + d.jackpotFee;
      games.push({
        signature: e.signature, eventIndex: e.eventIndex, slot: e.slot, time,
        user: d.user, creator: d.creator, token: d.tokenMint, pool: d.pool,
        wager: d.wager, payout: d.payout, jackpot, profit, fees,
        creatorFee: d.creatorFee, gambaFee: d.gambaFee, poolFee: d.poolFee, multiplierBps: d.multiplierBps,
        fairness: verdicts.get(`${e.signature}:${e.eventIndex}`)!.fairness, fairnessRule: verdicts.get(`${e.signature}:${e.eventIndex}`)!.rule,
        poolLiquidity: d.poolLiquidity,
        priced: p !== undefined,
        usd_wager: Number(d.wager) * u,
        usd_profit: Number(profit) * u,
        usd_creator_fee: Number(d.creatorFee) * u,
        usd_gamba_fee: Number(d.gambaFee) * u,
        usd_net: Number(profit - fees) * u,
        usd_pool_fee: Number(d.poolFee) * u,
        usd_house_pnl: Number(d.wager - d.payout) * u,
      });
      notePoolToken(d.pool, d.tokenMint, e);
    } else if (e.name === 'PoolChange') {
      const d = e.data;
      const p = usdPerUnit(d.tokenMint, time) ?? 0;
      poolChangeEvents.push({
        signature: e.signature, eventIndex: e.eventIndex, slot: e.slot, time,
        action: d.action, user: d.user, pool: d.pool, token: d.tokenMint,
        amount: d.amount, postLiquidity: d.postLiquidity, lpSupply: d.lpSupply, usd_amount: Number(d.amount) * p,
      });
      notePoolToken(d.pool, d.tokenMint, e);
    } else {
      notePoolToken(e.data.pool, e.data.tokenMint, e);
    }
  }

  const sum = (xs: readonly OracleGame[], f: (g: OracleGame) => number): number => xs.reduce((a, g) => a + f(g), 0);
  const sumBig = (xs: readonly OracleGame[], f: (g: OracleGame) => bigint): bigint => xs.reduce((a, g) => a + f(g), 0n);
  const distinct = (xs: readonly OracleGame[], f: (g: OracleGame) => string): number => new Set(xs.map(f)).size;
  const groupBy = <K>(xs: readonly OracleGame[], f: (g: OracleGame) => K): Map<K, OracleGame[]> => {
    const m = new Map<K, OracleGame[]>();
    for (const g of xs) {
      const k = f(g);
      const arr = m.get(k);
      if (arr) arr.push(g);
      else m.set(k, [g]);
    }
    return m;
  };
  const matches = (g: OracleGame, f: GameFilter & { startTime?: number; endTime?: number }): boolean =>
    (f.creator === undefined || g.creator === f.creator) &&
    (f.token === undefined || g.token === f.token) &&
    (f.pool === undefined || g.pool === f.pool) &&
    (f.user === undefined || g.user === f.user) &&
    (f.startTime === undefined || g.time >= f.startTime) && // docs/design.md §4: keeps time ≥ startTime
    (f.endTime === undefined || g.time < f.endTime) && // docs/design.md §4 "Windows": end exclusive
    (!f.onlyJackpots || g.jackpot > 0n); // docs/design.md §4: "jackpot win" = jackpot > 0

  const gameJson = (g: OracleGame): SettledGameJson => ({
    signature: g.signature, wager: g.wager.toString(), payout: g.payout.toString(),
    usd_wager: g.usd_wager, usd_profit: g.usd_profit, profit: g.profit.toString(),
    user: g.user, creator: g.creator, token: g.token, pool: g.pool, jackpot: g.jackpot.toString(),
    multiplier: g.multiplierBps / 10_000, // docs/design.md §3
    time: g.time,
    fairness: g.fairness, fairness_rule: g.fairnessRule, // docs/design.md §14
  });

  /** A dense series: the games matching `keep` per bucket of the request (docs/design.md §4 "Windows"). */
  const series = (q: SeriesQ, keep: (g: OracleGame) => boolean): { b: OracleBucket; gs: OracleGame[] }[] => {
    const buckets = oracleBuckets(q, nowMs);
    const byKey = new Map(buckets.map((b) => [b.key, [] as OracleGame[]]));
    const interval = q.interval ?? 'day';
    for (const g of games) {
      if (!keep(g)) continue;
      const b = byKey.get(bucketKey(q.tz ?? 'UTC', interval, g.time));
      if (b && g.time >= buckets[0]!.from && g.time < buckets[buckets.length - 1]!.to) b.push(g);
    }
    return buckets.map((b) => ({ b, gs: byKey.get(b.key)! }));
  };

  const oracle: Oracle = {
    games, poolChangeEvents, nowMs,

    counts() {
      const sigs = new Set(input.events.map((e) => e.signature));
      let latest: LocatedEvent | undefined;
      for (const e of input.events) if (!latest || chainOrder(e, latest) > 0) latest = e;
      return {
        totalGames: games.length,
        totalPoolChanges: poolChangeEvents.length,
        totalSignatures: sigs.size,
        totalVolumeUsd: sum(games, (g) => g.usd_wager), // types.ts StoreCounts: Σ usd_wager of all games
        unpricedGames: games.filter((g) => !g.priced).length,
        latest: latest ? { signature: latest.signature, blockTime: latest.blockTime } : null,
      };
    },

    stats(q = {}) {
      // docs/design.md §3 aggregates; startTime applies to every field but active_players (docs/design.md §3, §4).
      const xs = games.filter((g) => matches(g, { creator: q.creator, startTime: q.startTime, endTime: q.endTime }));
      const active = games.filter((g) => matches(g, { creator: q.creator }) && g.time >= nowMs - 60 * 60_000 && g.time <= nowMs);
      return {
        players: distinct(xs, (g) => g.user),
        usd_volume: sum(xs, (g) => g.usd_wager),
        plays: xs.length,
        creators: distinct(xs, (g) => g.creator),
        revenue_usd: sum(xs, (g) => g.usd_creator_fee),
        player_net_profit_usd: sum(xs, (g) => g.usd_net),
        active_players: distinct(active, (g) => g.user),
        first_bet_time: xs.length ? Math.min(...xs.map((g) => g.time)) : 0, // docs/design.md §4: 0 when no games
      };
    },

    player(q) {
      const xs = games.filter((g) => matches(g, { user: q.user, creator: q.creator, token: q.token }));
      if (xs.length === 0) return undefined;
      // favorite_token: most plays, then higher USD volume, then address order (docs/design.md §4).
      const byToken = [...groupBy(xs, (g) => g.token)].map(([token, gs]) => ({ token, plays: gs.length, usd: sum(gs, (g) => g.usd_wager) }));
      byToken.sort((a, b) => b.plays - a.plays || cmpNum(b.usd, a.usd) || cmpStr(a.token, b.token));
      const profits = xs.map((g) => g.usd_profit);
      return {
        user: q.user,
        total_plays: xs.length,
        total_volume_usd: sum(xs, (g) => g.usd_wager),
        total_profit_usd: sum(xs, (g) => g.usd_profit),
        biggest_win_usd: Math.max(0, ...profits), // docs/design.md §4: 0 if never won
        biggest_loss_usd: Math.min(0, ...profits), // docs/design.md §4: ≤ 0; 0 if never lost
        favorite_token: byToken[0]!.token,
        first_play: Math.min(...xs.map((g) => g.time)),
        last_play: Math.max(...xs.map((g) => g.time)),
      };
    },

    leaderboard(q) {
      const oneToken = q.token !== undefined || q.pool !== undefined; // R5 / docs/design.md §4
      if (!oneToken && (q.sortBy === 'token_profit' || q.sortBy === 'token_volume')) {
        throw new Error('sortBy token_* needs token or pool (docs/design.md §4: the API answers 400)');
      }
      const xs = games.filter((g) => matches(g, q));
      const rows = [...groupBy(xs, (g) => g.user)].map(([user, gs]) => ({
        user,
        total_plays: gs.length,
        usd_volume: sum(gs, (g) => g.usd_wager),
        usd_profit: sum(gs, (g) => g.usd_profit),
        tv: sumBig(gs, (g) => g.wager),
        tp: sumBig(gs, (g) => g.profit),
        biggest_win_usd: Math.max(0, ...gs.map((g) => g.usd_profit)),
        last_play: Math.max(...gs.map((g) => g.time)),
      }));
      const key: Record<PlayersSortBy, (a: (typeof rows)[number], b: (typeof rows)[number]) => number> = {
        usd_profit: (a, b) => cmpNum(b.usd_profit, a.usd_profit),
        usd_volume: (a, b) => cmpNum(b.usd_volume, a.usd_volume),
        token_profit: (a, b) => cmpBig(b.tp, a.tp),
        token_volume: (a, b) => cmpBig(b.tv, a.tv),
      };
      rows.sort((a, b) => key[q.sortBy](a, b) || cmpStr(a.user, b.user)); // R3: ties by user asc
      return rows.map((r) => ({
        user: r.user, total_plays: r.total_plays, usd_volume: r.usd_volume, usd_profit: r.usd_profit,
        token_volume: oneToken ? r.tv.toString() : null, token_profit: oneToken ? r.tp.toString() : null,
        biggest_win_usd: r.biggest_win_usd, last_play: r.last_play,
      }));
    },

    players(q) {
      const all = oracle.leaderboard(q);
      return { results: all.slice(q.offset, q.offset + q.limit), total: all.length };
    },

    settledGamesAll(q) {
      const xs = games.filter((g) => matches(g, q));
      const key: Record<GamesOrderBy, (a: OracleGame, b: OracleGame) => number> = {
        time: () => 0,
        multiplier: (a, b) => a.multiplierBps - b.multiplierBps,
        usd_profit: (a, b) => cmpNum(a.usd_profit, b.usd_profit),
      };
      const sign = q.sorting === 'ASC' ? 1 : -1;
      // R2: (key, time, signature, eventIndex), all in the requested direction.
      xs.sort((a, b) => sign * (key[q.orderBy](a, b) || a.time - b.time || cmpStr(a.signature, b.signature) || a.eventIndex - b.eventIndex));
      return xs.map(gameJson);
    },

    settledGames(q) {
      const all = oracle.settledGamesAll(q);
      const from = q.page * q.itemsPerPage;
      return { results: all.slice(from, from + q.itemsPerPage), total: all.length };
    },

    poolChangesAll(pool) {
      const xs = poolChangeEvents.filter((c) => c.pool === pool);
      xs.sort((a, b) => -(a.time - b.time || cmpStr(a.signature, b.signature) || a.eventIndex - b.eventIndex)); // R2
      return xs.map((c) => ({
        signature: c.signature, action: c.action, user: c.user, pool: c.pool, token: c.token,
        amount: c.amount.toString(), post_liquidity: c.postLiquidity.toString(), lp_supply: c.lpSupply.toString(),
        usd_amount: c.usd_amount, time: c.time,
      }));
    },

    poolChanges(q) {
      const all = oracle.poolChangesAll(q.pool);
      const from = q.page * q.itemsPerPage;
      return { results: all.slice(from, from + q.itemsPerPage), total: all.length };
    },

    platforms(q) {
      // docs/design.md §4: rolling window now − days × 24 h (R4: every field inside it).
      // docs/design.md §4 "Windows": startTime replaces days; endTime (exclusive) closes the window, which then ends there.
      const from = q.startTime ?? (q.endTime ?? nowMs) - q.days * MS_PER_DAY;
      const xs = games.filter((g) => g.time >= from && (q.endTime === undefined ? g.time <= nowMs : g.time < q.endTime));
      const rows = [...groupBy(xs, (g) => g.creator)].map(([creator, gs]) => ({
        creator,
        usd_volume: sum(gs, (g) => g.usd_wager),
        usd_revenue: sum(gs, (g) => g.usd_creator_fee), // docs/design.md §3: Σ creatorFee × p
        plays: gs.length,
        unique_players: distinct(gs, (g) => g.user),
        last_activity: Math.max(...gs.map((g) => g.time)),
      }));
      rows.sort((a, b) => cmpNum(b[q.sortBy], a[q.sortBy]) || cmpStr(a.creator, b.creator)); // R3
      return rows.slice(0, q.limit);
    },

    platformsByPool(pool) {
      const xs = games.filter((g) => g.pool === pool);
      const rows = [...groupBy(xs, (g) => g.creator)].map(([creator, gs]) => ({
        creator, v: sumBig(gs, (g) => g.wager), usd_volume: sum(gs, (g) => g.usd_wager), plays: gs.length,
      }));
      rows.sort((a, b) => cmpBig(b.v, a.v) || cmpStr(a.creator, b.creator)); // types.ts: volume desc, then creator
      return rows.map((r) => ({ creator: r.creator, volume: r.v.toString(), usd_volume: r.usd_volume, plays: r.plays }));
    },

    tokens(q = {}) {
      const xs = games.filter((g) => matches(g, { creator: q.creator }));
      const rows = [...groupBy(xs, (g) => g.token)].map(([token, gs]) => ({
        token, plays: gs.length, v: sumBig(gs, (g) => g.wager), usd_volume: sum(gs, (g) => g.usd_wager),
      }));
      rows.sort((a, b) => cmpNum(b.usd_volume, a.usd_volume) || cmpStr(a.token, b.token)); // types.ts: usd_volume desc, then token
      return rows.map((r) => ({ token: r.token, plays: r.plays, volume: r.v.toString(), usd_volume: r.usd_volume, decimals: input.decimalsOf(r.token) ?? null }));
    },

    ratio(pool) {
      // R6, docs/design.md §4 /ratio.
      type Obs = { slot: number; signature: string; eventIndex: number; time: number; liquidity: bigint; lp?: bigint };
      const obs: Obs[] = [
        ...games.filter((g) => g.pool === pool).map((g) => ({ ...g, liquidity: g.poolLiquidity })),
        ...poolChangeEvents.filter((c) => c.pool === pool).map((c) => ({ ...c, liquidity: c.postLiquidity, lp: c.lpSupply })),
      ];
      obs.sort(chainOrder);
      const first = hourFloor(nowMs - 30 * MS_PER_DAY);
      const last = hourFloor(nowMs);
      const out: RatioJson[] = [];
      let i = 0;
      let liquidity: bigint | undefined;
      let lp: bigint | undefined;
      for (let h = first; h <= last; h += MS_PER_HOUR) {
        const end = Math.min(h + MS_PER_HOUR - 1, nowMs);
        while (i < obs.length && obs[i]!.time <= end) {
          liquidity = obs[i]!.liquidity;
          if (obs[i]!.lp !== undefined) lp = obs[i]!.lp;
          i++;
        }
        if (lp === undefined || liquidity === undefined) continue;
        out.push({ time: h, pool_liquidity: liquidity.toString(), lp_supply: lp.toString(), ratio: Number(liquidity) / Number(lp) });
      }
      return out;
    },

    total(pool) {
      const xs = games.filter((g) => g.pool === pool);
      return {
        pool,
        token: poolTokens.get(pool)?.token ?? null, // R7
        volume: sumBig(xs, (g) => g.wager).toString(),
        usd_volume: sum(xs, (g) => g.usd_wager),
        plays: xs.length,
      };
    },

    daily(q) {
      return series(q, (g) => g.pool === q.pool).map(({ b, gs }) => ({
        date: b.date, time: b.time, volume: sumBig(gs, (g) => g.wager).toString(), volume_usd: sum(gs, (g) => g.usd_wager), plays: gs.length,
      }));
    },

    chartPlays(q) {
      return series(q, (g) => matches(g, { creator: q.creator })).map(({ b, gs }) => ({ date: b.date, time: b.time, plays: gs.length, volume_usd: sum(gs, (g) => g.usd_wager) }));
    },

    chartDailyUsd(q) {
      return oracle.chartPlays(q); // docs/design.md §4: same points {date, volume_usd, plays}
    },

    poolsAll(q) {
      const key: Record<PoolsSortBy, (p: PoolJson) => number> = {
        tvl_usd: (p) => p.tvl_usd,
        usd_volume: (p) => p.usd_volume,
        plays: (p) => p.plays,
        pool_fees_usd: (p) => p.pool_fees_usd,
        created_time: (p) => p.created_time ?? -1, // R9: unknown creation last
      };
      const rows = [...poolTokens.keys()].map((pool) => oracle.pool({ pool })!).filter((p) => q.token === undefined || p.token === q.token);
      rows.sort((a, b) => cmpNum(key[q.sortBy](b), key[q.sortBy](a)) || cmpStr(a.pool, b.pool));
      return rows;
    },

    pool(q) {
      const token = poolTokens.get(q.pool)?.token;
      if (token === undefined) return undefined;
      if (!input.prices) throw new Error('the oracle needs input.prices for pools (R9: TVL at the latest stored price)');
      type Obs = { slot: number; signature: string; eventIndex: number; time: number; liquidity?: bigint; lp?: bigint };
      const created = input.events.find((e) => e.name === 'PoolCreated' && e.data.pool === q.pool);
      const obs: Obs[] = [
        ...games.filter((g) => g.pool === q.pool).map((g) => ({ ...g, liquidity: g.poolLiquidity })),
        ...poolChangeEvents.filter((c) => c.pool === q.pool).map((c) => ({ ...c, liquidity: c.postLiquidity, lp: c.lpSupply })),
        ...(created ? [{ slot: created.slot, signature: created.signature, eventIndex: created.eventIndex, time: created.blockTime * 1000 }] : []),
      ].sort(chainOrder);
      let liquidity = 0n;
      let lp: bigint | null = null;
      for (const o of obs) {
        if (o.liquidity !== undefined) liquidity = o.liquidity;
        if (o.lp !== undefined) lp = o.lp;
      }
      const latest = input.prices.filter((p) => p.mint === token).reduce<{ hourMs: number; usdPrice: number } | undefined>((a, p) => (!a || p.hourMs > a.hourMs ? p : a), undefined);
      const decimals = input.decimalsOf(token);
      const tvl = latest === undefined || decimals === undefined ? 0 : Number(liquidity) * (latest.usdPrice / 10 ** decimals);
      const xs = games.filter((g) => g.pool === q.pool && (q.startTime === undefined || g.time >= q.startTime) && (q.endTime === undefined || g.time < q.endTime));
      const volume = sumBig(xs, (g) => g.wager);
      return {
        pool: q.pool,
        token,
        authority: created?.name === 'PoolCreated' ? created.data.authority : null,
        created_time: created ? created.blockTime * 1000 : null,
        liquidity: liquidity.toString(),
        lp_supply: lp === null ? null : lp.toString(),
        lp_price: lp === null ? null : lp === 0n ? 1 : Number(liquidity) / Number(lp),
        tvl_usd: tvl,
        plays: xs.length,
        volume: volume.toString(),
        usd_volume: sum(xs, (g) => g.usd_wager),
        pool_fees: sumBig(xs, (g) => g.poolFee).toString(),
        pool_fees_usd: sum(xs, (g) => g.usd_pool_fee),
        house_pnl: (volume - sumBig(xs, (g) => g.payout)).toString(),
        house_pnl_usd: sum(xs, (g) => g.usd_house_pnl),
        last_activity: Math.max(...obs.map((o) => o.time)),
      };
    },

    chartDaoUsd(q) {
      // docs/design.md §3: Σ gambaFee × p
      return series(q, (g) => matches(g, { creator: q.creator })).map(({ b, gs }) => ({ date: b.date, time: b.time, dao_fees_usd: sum(gs, (g) => g.usd_gamba_fee) }));
    },
  };
  return oracle;
}
