import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import { dayOf, hourFloor, MS_PER_HOUR } from '../core/index.js';
import type { GameSettled, LocatedEvent, PoolChange, PoolCreated } from '../protocol/index.js';
import type { DialectAdapter } from './dialect.js';
import { orderKey } from './order-key.js';
import { PoolAccumulator, refreshPoolTvl } from './pool-rollup.js';
import { gameUsd, PriceLookup, usdPerUnit } from './pricing.js';
import { CounterAccumulator, gameDelta, PoolHourAccumulator, repriceDelta, RollupAccumulator, type GameDelta, type GameDims } from './rollups.js';
import { fixedChunks, runPrecompiled } from './statement-cache.js';
import type { Database } from './schema.js';
import type { HourlyPrice, WriteBatch, WriteResult } from './types.js';
import { splitU64 } from '../core/index.js';

type Db = Transaction<Database> | Kysely<Database>;

const u64Fields = (d: GameSettled) => ({
  underlyingUsed: d.underlyingUsed.toString(),
  bonusUsed: d.bonusUsed.toString(),
  payoutFromBonusPool: d.payoutFromBonusPool.toString(),
  payoutFromNormalPool: d.payoutFromNormalPool.toString(),
  jackpotProbabilityUbps: d.jackpotProbabilityUbps.toString(),
  jackpotResult: d.jackpotResult.toString(),
  nonce: d.nonce.toString(),
  resultIndex: d.resultIndex.toString(),
});

/** The write path's per-transaction context. */
interface Ctx {
  db: Db;
  dialect: DialectAdapter['kind'];
  prices: PriceLookup;
  rollups: RollupAccumulator;
  poolHours: PoolHourAccumulator;
  /** ru_pool (migration 0006): per-pool sums, latest liquidity / LP supply, creation. */
  poolTotals: PoolAccumulator;
  counters: CounterAccumulator;
  /** pool → token of pools touched by this batch. */
  pools: Map<string, string>;
  result: WriteResult;
}

type GameRow = Insertable<Database['games']>;

/** Builds the games row of an event (USD from the price at its hour, or un-priced). */
async function gameRow(ctx: Ctx, e: LocatedEvent & { name: 'GameSettled' }): Promise<{ row: GameRow; delta: GameDelta; dims: GameDims; e: typeof e; usd: ReturnType<typeof gameUsd> }> {
  const d = e.data;
  const timeMs = e.blockTime * 1000;
  const hourMs = hourFloor(timeMs);
  const p = await ctx.prices.perUnit(d.tokenMint, hourMs);
  const usd = gameUsd(
    { wager: d.wager, payout: d.payout, jackpot: d.jackpotPayoutToUser, creatorFee: d.creatorFee, gambaFee: d.gambaFee, poolFee: d.poolFee, jackpotFee: d.jackpotFee },
    p,
  );
  const w = splitU64(d.wager);
  const pay = splitU64(d.payout);
  const j = splitU64(d.jackpotPayoutToUser);
  const row: GameRow = {
    signature: e.signature,
    event_index: e.eventIndex,
    slot: e.slot,
    block_time: e.blockTime,
    time_ms: timeMs,
    day: dayOf(timeMs),
    hour_ms: hourMs,
    player: d.user,
    creator: d.creator,
    token: d.tokenMint,
    pool: d.pool,
    wager: d.wager.toString(),
    payout: d.payout.toString(),
    jackpot: d.jackpotPayoutToUser.toString(),
    wager_hi: w.hi,
    wager_lo: w.lo,
    payout_hi: pay.hi,
    payout_lo: pay.lo,
    jackpot_hi: j.hi,
    jackpot_lo: j.lo,
    creator_fee: d.creatorFee.toString(),
    gamba_fee: d.gambaFee.toString(),
    pool_fee: d.poolFee.toString(),
    jackpot_fee: d.jackpotFee.toString(),
    multiplier_bps: d.multiplierBps,
    is_jackpot: d.jackpotPayoutToUser > 0n ? 1 : 0,
    pool_liquidity: d.poolLiquidity.toString(),
    usd_per_unit: p,
    usd_wager: usd.wager,
    usd_profit: usd.profit,
    usd_creator_fee: usd.creatorFee,
    usd_gamba_fee: usd.gambaFee,
    usd_net: usd.net,
    data: JSON.stringify({ ...u64Fields(d), clientSeed: d.clientSeed, bet: d.bet, rngSeed: d.rngSeed, nextRngSeedHashed: d.nextRngSeedHashed, metadata: d.metadata }),
  };
  return {
    row,
    e,
    dims: { day: dayOf(timeMs), creator: d.creator, token: d.tokenMint, pool: d.pool, player: d.user },
    delta: gameDelta({ timeMs, wager: d.wager, payout: d.payout, jackpot: d.jackpotPayoutToUser, poolFee: d.poolFee, usd }),
    usd,
  };
}

/** Bulk-inserts games (ON CONFLICT DO NOTHING … RETURNING) and rolls up only the new ones. */
async function insertGames(ctx: Ctx, events: (LocatedEvent & { name: 'GameSettled' })[]): Promise<void> {
  const built = [];
  for (const e of events) built.push(await gameRow(ctx, e));
  // 35 columns × 256 rows stays under SQLite's and PostgreSQL's bound-parameter limits.
  for (const chunk of fixedChunks(built)) {
    const rows = chunk.map((b) => b.row);
    const cols = Object.keys(rows[0]!) as (keyof GameRow)[];
    const params: unknown[] = [];
    for (const r of rows) for (const c of cols) params.push(r[c]);
    const inserted = await runPrecompiled<{ signature: string; event_index: number }>(
      ctx.db,
      `${ctx.dialect}:games:${rows.length}`,
      () => ctx.db.insertInto('games').values(rows).onConflict((oc) => oc.columns(['signature', 'event_index']).doNothing()).returning(['signature', 'event_index']).compile(),
      params,
    );
    const isNew = new Set(inserted.rows.map((r) => `${r.signature} ${r.event_index}`));
    for (const b of chunk) {
      if (!isNew.has(`${b.e.signature} ${b.e.eventIndex}`)) {
        ctx.result.duplicates++;
        continue;
      }
      ctx.result.gamesInserted++;
      if (b.row.usd_per_unit === null) ctx.counters.add('unpriced_games', 1);
      ctx.rollups.add(b.dims, b.delta);
      const key = orderKey(b.e.slot, b.e.signature, b.e.eventIndex);
      ctx.poolHours.add(b.e.data.pool, Number(b.row.hour_ms), key, b.e.data.poolLiquidity, null);
      const d = b.e.data;
      ctx.poolTotals.game(d.pool, d.tokenMint, { timeMs: Number(b.row.time_ms), wager: d.wager, payout: d.payout, poolFee: d.poolFee, usd: b.usd, key, liquidity: d.poolLiquidity });
      ctx.pools.set(b.e.data.pool, b.e.data.tokenMint);
    }
  }
}

async function insertPoolChange(ctx: Ctx, e: LocatedEvent & { name: 'PoolChange' }): Promise<void> {
  const d: PoolChange = e.data;
  const timeMs = e.blockTime * 1000;
  const hourMs = hourFloor(timeMs);
  const p = await ctx.prices.perUnit(d.tokenMint, hourMs);
  const res = await ctx.db
    .insertInto('pool_changes')
    .values({
      signature: e.signature,
      event_index: e.eventIndex,
      slot: e.slot,
      block_time: e.blockTime,
      time_ms: timeMs,
      hour_ms: hourMs,
      player: d.user,
      pool: d.pool,
      token: d.tokenMint,
      action: d.action,
      amount: d.amount.toString(),
      post_liquidity: d.postLiquidity.toString(),
      lp_supply: d.lpSupply.toString(),
      usd_per_unit: p,
      usd_amount: p === null ? 0 : Number(d.amount) * p,
    })
    .onConflict((oc) => oc.columns(['signature', 'event_index']).doNothing())
    .executeTakeFirst();
  if (Number(res.numInsertedOrUpdatedRows ?? 0) === 0) {
    ctx.result.duplicates++;
    return;
  }
  ctx.result.poolChangesInserted++;
  ctx.counters.add('pool_changes', 1);
  ctx.counters.add(`pool_changes:${d.pool}`, 1);
  const key = orderKey(e.slot, e.signature, e.eventIndex);
  ctx.poolHours.add(d.pool, hourMs, key, d.postLiquidity, d.lpSupply);
  ctx.poolTotals.change(d.pool, d.tokenMint, timeMs, key, d.postLiquidity, d.lpSupply);
  ctx.pools.set(d.pool, d.tokenMint);
}

async function insertPoolCreated(ctx: Ctx, e: LocatedEvent & { name: 'PoolCreated' }): Promise<void> {
  const d: PoolCreated = e.data;
  const existing = await ctx.db.selectFrom('pools').selectAll().where('pool', '=', d.pool).executeTakeFirst();
  if (existing?.created_signature) {
    ctx.result.duplicates++;
    return;
  }
  const created = { authority: d.authority, created_signature: e.signature, created_event_index: e.eventIndex, created_time_ms: e.blockTime * 1000 };
  if (existing) await ctx.db.updateTable('pools').set(created).where('pool', '=', d.pool).execute();
  else await ctx.db.insertInto('pools').values({ pool: d.pool, token: d.tokenMint, ...created }).execute();
  ctx.poolTotals.created(d.pool, existing?.token ?? d.tokenMint, d.authority, created.created_time_ms);
  ctx.result.poolsCreatedInserted++;
}

/** Pools first seen in this batch get a row (token known from their events). */
async function ensurePools(db: Db, pools: Map<string, string>): Promise<void> {
  if (pools.size === 0) return;
  await db
    .insertInto('pools')
    .values([...pools].map(([pool, token]) => ({ pool, token, authority: null, created_signature: null, created_event_index: null, created_time_ms: null })))
    .onConflict((oc) => oc.column('pool').doNothing())
    .execute();
}

/**
 * The one write path (docs/design.md §7): events, signatures, checkpoints and rollups in one
 * transaction. `knownPrices`: the store's (mint, hour) → USD price cache (pricing.ts PriceLookup).
 */
export async function writeBatch(
  db: Kysely<Database>,
  a: DialectAdapter,
  decimals: Map<string, number>,
  batch: WriteBatch,
  knownPrices?: Map<string, number>,
): Promise<WriteResult> {
  return db.transaction().execute(async (trx) => {
    const ctx: Ctx = {
      db: trx,
      dialect: a.kind,
      prices: new PriceLookup(trx, decimals, knownPrices),
      rollups: new RollupAccumulator(),
      poolHours: new PoolHourAccumulator(),
      poolTotals: new PoolAccumulator(),
      counters: new CounterAccumulator(),
      pools: new Map(),
      result: { gamesInserted: 0, poolChangesInserted: 0, poolsCreatedInserted: 0, duplicates: 0 },
    };
    const sigs = batch.signatures ?? [];
    for (const chunk of fixedChunks(sigs)) {
      const inserted = await trx
        .insertInto('signatures')
        .values(chunk.map((s) => ({ signature: s.signature, slot: s.slot, block_time: s.blockTime, failed: s.failed ? 1 : 0 })))
        .onConflict((oc) => oc.column('signature').doNothing())
        .returning('signature')
        .execute();
      ctx.counters.add('signatures', inserted.length);
    }
    const games = batch.events.filter((e): e is LocatedEvent & { name: 'GameSettled' } => e.name === 'GameSettled');
    await insertGames(ctx, games);
    for (const e of batch.events) {
      if (e.name === 'PoolChange') await insertPoolChange(ctx, e);
      else if (e.name === 'PoolCreated') await insertPoolCreated(ctx, e);
    }
    await ensurePools(trx, ctx.pools);
    await ctx.rollups.flush(trx, a, ctx.counters);
    await ctx.poolHours.flush(trx);
    await ctx.poolTotals.flush(trx);
    await ctx.counters.flush(trx);
    const state: Record<string, string> = { ...(batch.state ?? {}) };
    for (const [reason, n] of Object.entries(batch.skipped ?? {})) {
      if (!n) continue;
      const key = `skipped.${reason}`;
      const row = await trx.selectFrom('sync_state').select('value').where('key', '=', key).executeTakeFirst();
      state[key] = String(Number(row?.value ?? 0) + n);
    }
    await setStateIn(trx, state);
    return ctx.result;
  });
}

export async function setStateIn(db: Db, entries: Record<string, string>): Promise<void> {
  for (const [key, value] of Object.entries(entries)) {
    await db
      .insertInto('sync_state')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }
}

/**
 * Stores new hourly prices (an existing (mint, hour) is kept: stored prices never change) and
 * re-prices the un-priced games and pool changes of those hours, rollups included, in one
 * transaction; pools of a token with a new price get their TVL at the latest price.
 */
export async function putPrices(db: Kysely<Database>, a: DialectAdapter, decimals: Map<string, number>, prices: HourlyPrice[]): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let repriced = 0;
    const rollups = new RollupAccumulator();
    const poolTotals = new PoolAccumulator();
    const priced = new Set<string>();
    for (const pr of prices) {
      const hourMs = hourFloor(pr.hourMs);
      const res = await trx
        .insertInto('prices')
        .values({ mint: pr.mint, hour_ms: hourMs, usd_price: pr.usdPrice, source: pr.source, publish_time: pr.publishTime })
        .onConflict((oc) => oc.columns(['mint', 'hour_ms']).doNothing())
        .executeTakeFirst();
      if (Number(res.numInsertedOrUpdatedRows ?? 0) === 0) continue;
      priced.add(pr.mint);
      const p = usdPerUnit(pr.usdPrice, decimals.get(pr.mint));
      if (p === null) continue;
      const games = await trx
        .selectFrom('games')
        .select(['signature', 'event_index', 'time_ms', 'day', 'player', 'creator', 'token', 'pool', 'wager', 'payout', 'jackpot', 'creator_fee', 'gamba_fee', 'pool_fee', 'jackpot_fee'])
        .where('token', '=', pr.mint)
        .where('hour_ms', '=', hourMs)
        .where('usd_per_unit', 'is', null)
        .execute();
      for (const g of games) {
        const facts = { wager: BigInt(g.wager), payout: BigInt(g.payout), jackpot: BigInt(g.jackpot), creatorFee: BigInt(g.creator_fee), gambaFee: BigInt(g.gamba_fee), poolFee: BigInt(g.pool_fee), jackpotFee: BigInt(g.jackpot_fee) };
        const usd = gameUsd(facts, p);
        await trx
          .updateTable('games')
          .set({ usd_per_unit: p, usd_wager: usd.wager, usd_profit: usd.profit, usd_creator_fee: usd.creatorFee, usd_gamba_fee: usd.gambaFee, usd_net: usd.net })
          .where('signature', '=', g.signature)
          .where('event_index', '=', g.event_index)
          .execute();
        rollups.add(
          { day: g.day, creator: g.creator, token: g.token, pool: g.pool, player: g.player },
          repriceDelta({ timeMs: Number(g.time_ms), wager: facts.wager, payout: facts.payout, jackpot: facts.jackpot, poolFee: facts.poolFee, usd }),
        );
        poolTotals.reprice(g.pool, g.token, usd);
        repriced++;
      }
      const changes = await trx
        .selectFrom('pool_changes')
        .select(['signature', 'event_index', 'amount'])
        .where('token', '=', pr.mint)
        .where('hour_ms', '=', hourMs)
        .where('usd_per_unit', 'is', null)
        .execute();
      for (const c of changes) {
        await trx
          .updateTable('pool_changes')
          .set({ usd_per_unit: p, usd_amount: Number(BigInt(c.amount)) * p })
          .where('signature', '=', c.signature)
          .where('event_index', '=', c.event_index)
          .execute();
      }
      if (rollups.size > 5000) await rollups.flush(trx, a);
    }
    await rollups.flush(trx, a);
    await poolTotals.flush(trx);
    await refreshPoolTvl(trx, { tokens: [...priced] });
    const counters = new CounterAccumulator();
    counters.add('unpriced_games', -repriced);
    await counters.flush(trx);
    return repriced;
  });
}

/** Recomputes every rollup and counter from raw events, in one transaction (docs/architecture.md convention 3). */
export async function rebuildRollups(db: Kysely<Database>, a: DialectAdapter): Promise<void> {
  await rebuildRollupsIn(db, a);
}

/** Every derived table, in the order `rebuildRollupsIn` clears them (tests compare them row by row). */
export const DERIVED_TABLES = [
  'ru_daily', 'ru_day', 'ru_day_c', 'ru_pool_day', 'ru_ctp', 'ru_user_ctp', 'ru_user', 'ru_user_c', 'ru_user_t', 'ru_user_tp', 'ru_user_ct', 'ru_day_user', 'ru_block_user', 'ru_pool_hour',
  'ru_pool', 'ru_counter',
] as const;

/** The rebuild inside the caller's transaction (migrations), or in a new one. */
export async function rebuildRollupsIn(db: Kysely<any>, a: DialectAdapter): Promise<void> {
  if (!db.isTransaction) {
    await db.transaction().execute((trx) => rebuildRollupsIn(trx, a));
    return;
  }
  const trx = db as Transaction<Database>;
  {
    for (const t of DERIVED_TABLES) await trx.deleteFrom(t).execute();
    const chunk = 5000;
    let after: { signature: string; event_index: number } | undefined;
    for (;;) {
      let q = trx
        .selectFrom('games')
        .select(['signature', 'event_index', 'slot', 'time_ms', 'day', 'hour_ms', 'player', 'creator', 'token', 'pool', 'wager', 'payout', 'jackpot', 'pool_fee', 'usd_per_unit', 'usd_wager', 'usd_profit', 'usd_creator_fee', 'usd_gamba_fee', 'usd_net', 'pool_liquidity'])
        .orderBy('signature')
        .orderBy('event_index')
        .limit(chunk);
      if (after) {
        const { signature, event_index } = after;
        q = q.where((eb) => eb(eb.refTuple('signature', 'event_index'), '>', eb.tuple(signature, event_index)));
      }
      const rows = await q.execute();
      if (rows.length === 0) break;
      const rollups = new RollupAccumulator();
      const hours = new PoolHourAccumulator();
      const poolTotals = new PoolAccumulator();
      for (const g of rows) {
        const timeMs = Number(g.time_ms);
        const wager = BigInt(g.wager);
        const payout = BigInt(g.payout);
        const poolFee = BigInt(g.pool_fee);
        // The stored USD values, and the pool-side ones as gameUsd computes them from the stored price.
        const p = g.usd_per_unit === null ? null : Number(g.usd_per_unit);
        const usd = {
          wager: Number(g.usd_wager), profit: Number(g.usd_profit), creatorFee: Number(g.usd_creator_fee), gambaFee: Number(g.usd_gamba_fee), net: Number(g.usd_net),
          poolFee: p === null ? 0 : Number(poolFee) * p,
          housePnl: p === null ? 0 : Number(wager - payout) * p,
        };
        rollups.add(
          { day: g.day, creator: g.creator, token: g.token, pool: g.pool, player: g.player },
          gameDelta({ timeMs, wager, payout, jackpot: BigInt(g.jackpot), poolFee, usd }),
        );
        const key = orderKey(Number(g.slot), g.signature, g.event_index);
        hours.add(g.pool, Number(g.hour_ms), key, BigInt(g.pool_liquidity), null);
        poolTotals.game(g.pool, g.token, { timeMs, wager, payout, poolFee, usd, key, liquidity: BigInt(g.pool_liquidity) });
      }
      await rollups.flush(trx, a);
      await hours.flush(trx);
      await poolTotals.flush(trx);
      const last = rows[rows.length - 1]!;
      after = { signature: last.signature, event_index: last.event_index };
    }
    const changes = await trx.selectFrom('pool_changes').select(['signature', 'event_index', 'slot', 'time_ms', 'hour_ms', 'pool', 'token', 'post_liquidity', 'lp_supply']).execute();
    const hours = new PoolHourAccumulator();
    const poolTotals = new PoolAccumulator();
    for (const c of changes) {
      const key = orderKey(Number(c.slot), c.signature, c.event_index);
      hours.add(c.pool, Number(c.hour_ms), key, BigInt(c.post_liquidity), BigInt(c.lp_supply));
      poolTotals.change(c.pool, c.token, Number(c.time_ms), key, BigInt(c.post_liquidity), BigInt(c.lp_supply));
    }
    await hours.flush(trx);
    // Every known pool has a ru_pool row, with its creation when a PoolCreated was indexed.
    for (const p of await trx.selectFrom('pools').selectAll().execute()) {
      poolTotals.created(p.pool, p.token, p.authority, p.created_time_ms === null ? null : Number(p.created_time_ms));
    }
    await poolTotals.flush(trx);
    await refreshPoolTvl(trx);
    // Counters: the only place that counts history, by design (rebuild reads everything anyway).
    await sql`insert into ru_counter (name, n) select 'players', count(*) from ru_user`.execute(trx);
    // The per-filter player counters (rollups.ts PLAYER_COUNTERS): one row per player and filter value.
    const c = (s: string) => sql.lit(s);
    await sql`insert into ru_counter (name, n) select ${c('players:c:')} || creator, count(*) from ru_user_c group by creator`.execute(trx);
    await sql`insert into ru_counter (name, n) select ${c('players:t:')} || token, count(*) from ru_user_t group by token`.execute(trx);
    await sql`insert into ru_counter (name, n) select ${c('players:p:')} || pool, count(*) from ru_user_tp group by pool`.execute(trx);
    await sql`insert into ru_counter (name, n) select ${c('players:ct:')} || creator || ${c(':')} || token, count(*) from ru_user_ct group by creator, token`.execute(trx);
    await sql`insert into ru_counter (name, n) select ${c('players:cp:')} || creator || ${c(':')} || pool, count(*) from ru_user_ctp group by creator, pool`.execute(trx);
    await sql`insert into ru_counter (name, n) select 'signatures', count(*) from signatures`.execute(trx);
    await sql`insert into ru_counter (name, n) select 'pool_changes', count(*) from pool_changes`.execute(trx);
    await sql`insert into ru_counter (name, n) select 'unpriced_games', count(*) from games where usd_per_unit is null`.execute(trx);
    await sql`insert into ru_counter (name, n) select ${sql.lit('pool_changes:')} || pool, count(*) from pool_changes group by pool`.execute(trx);
  }
}

export { MS_PER_HOUR };
