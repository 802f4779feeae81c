import { type Insertable, type Kysely, type Transaction } from 'kysely';
import { dayOf, hourFloor, quarterOf, splitU64 } from '../../core/index.js';
import type { GameSettled, LocatedEvent, PoolChange, PoolCreated } from '../../protocol/index.js';
import type { DialectAdapter } from '../dialect.js';
import { expectedPayout, gameKindOf } from '../edge.js';
import { orderKey } from '../order-key.js';
import { gameUsd, PriceLookup } from '../pricing.js';
import { CounterAccumulator, gameDelta, PoolAccumulator, PoolHourAccumulator, RollupAccumulator, type GameDelta, type GameDims } from '../rollups/index.js';
import { fixedChunks, runPrecompiled } from '../statement-cache.js';
import type { Database } from '../schema.js';
import type { WriteBatch, WriteResult } from '../types.js';
import { applyChanged, auditBatch, FairAccumulator, ownRule, seedHash, type AuditRow } from './fairness.js';
import { ReturnAccumulator } from './returns.js';

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
  /** ru_fair_day (migration 0011): game counts per verdict. */
  fair: FairAccumulator;
  /** ru_active_day / ru_return_day / ru_return_block (migration 0016): players' active days per group. */
  returns: ReturnAccumulator;
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
  const expected = expectedPayout(d.wager, d.bet);
  const x = splitU64(expected);
  const gameKind = gameKindOf(d.metadata);
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
    expected_payout: expected.toString(),
    expected_hi: x.hi,
    expected_lo: x.lo,
    game_kind: gameKind,
    // The fairness audit (docs/design.md "Fairness audit"): the verdict is set by auditBatch.
    seed_hash: seedHash(d.rngSeed),
    next_seed_hash: d.nextRngSeedHashed,
    fair_own: ownRule(d),
    fairness: 'unverifiable',
    fairness_rule: 'first_seen',
  };
  return {
    row,
    e,
    dims: { day: dayOf(timeMs), hour_ms: hourMs, quarter_ms: quarterOf(timeMs), creator: d.creator, token: d.tokenMint, pool: d.pool, player: d.user, game_kind: gameKind },
    delta: gameDelta({ timeMs, wager: d.wager, payout: d.payout, jackpot: d.jackpotPayoutToUser, poolFee: d.poolFee, expected, usd }),
    usd,
  };
}

/** Bulk-inserts games (ON CONFLICT DO NOTHING … RETURNING) and rolls up only the new ones. */
async function insertGames(ctx: Ctx, events: (LocatedEvent & { name: 'GameSettled' })[]): Promise<void> {
  const built = [];
  for (const e of events) built.push(await gameRow(ctx, e));
  // Verdicts: each game against the previous settle of its player, and the stored games whose
  // predecessor this batch changes (their updates follow the inserts).
  const audits = new Map<GameRow, AuditRow>();
  for (const b of built) {
    const r = b.row;
    audits.set(r, {
      signature: r.signature, event_index: r.event_index, slot: b.e.slot, day: r.day, hour_ms: Number(r.hour_ms), player: r.player, creator: r.creator, token: r.token, pool: r.pool,
      fair_own: r.fair_own ?? null, seed_hash: r.seed_hash ?? null, next_seed_hash: r.next_seed_hash ?? null, fairness: 'unverifiable', fairness_rule: null,
    });
  }
  const changed = await auditBatch(ctx.db, [...audits.values()]);
  for (const [row, a] of audits) {
    row.fairness = a.fairness;
    row.fairness_rule = a.fairness_rule;
  }
  // 40 columns × 256 rows stays under SQLite's and PostgreSQL's bound-parameter limits.
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
      ctx.fair.add(audits.get(b.row)!, 1);
      ctx.returns.add(b.row.creator, b.row.player, b.row.day, Number(b.row.time_ms));
      const key = orderKey(b.e.slot, b.e.signature, b.e.eventIndex);
      ctx.poolHours.add(b.e.data.pool, Number(b.row.hour_ms), key, b.e.data.poolLiquidity, null);
      const d = b.e.data;
      ctx.poolTotals.game(d.pool, d.tokenMint, { timeMs: Number(b.row.time_ms), wager: d.wager, payout: d.payout, poolFee: d.poolFee, usd: b.usd, key, liquidity: d.poolLiquidity });
      ctx.pools.set(b.e.data.pool, b.e.data.tokenMint);
    }
  }
  await applyChanged(ctx.db, changed, ctx.fair);
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
    // One write transaction at a time (dialect.ts writeTurn): what this batch reads of earlier ones must be committed.
    if (a.writeTurn !== null) await a.writeTurn.execute(trx);
    const ctx: Ctx = {
      db: trx,
      dialect: a.kind,
      prices: new PriceLookup(trx, decimals, knownPrices),
      rollups: new RollupAccumulator(),
      poolHours: new PoolHourAccumulator(),
      poolTotals: new PoolAccumulator(),
      counters: new CounterAccumulator(),
      fair: new FairAccumulator(),
      returns: new ReturnAccumulator(),
      pools: new Map(),
      result: { gamesInserted: 0, poolChangesInserted: 0, poolsCreatedInserted: 0, duplicates: 0 },
    };
    const sigs = batch.signatures ?? [];
    // Coverage (docs/design.md "Coverage and reconciliation"): each signature's UTC day and kind, in this transaction.
    const withEvents = new Set<string>();
    for (const e of batch.events) withEvents.add(e.signature);
    for (const chunk of fixedChunks(sigs)) {
      const inserted = await trx
        .insertInto('signatures')
        .values(chunk.map((s) => ({ signature: s.signature, slot: s.slot, block_time: s.blockTime, failed: s.failed ? 1 : 0, day: Math.floor(s.blockTime / 86_400), kind: signatureKind(s.failed, withEvents.has(s.signature)) })))
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
    await ctx.fair.flush(trx);
    await ctx.returns.flush(trx, a);
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

/**
 * A processed signature's kind as stored in `signatures.kind` (migration 0012): 2 failed
 * (meta.err set, no events), 1 with stored events, 0 without any (a play transaction; its settle
 * carries the GameSettled: docs/protocol.md).
 */
export function signatureKind(failed: boolean, hasEvents: boolean): 0 | 1 | 2 {
  return failed ? 2 : hasEvents ? 1 : 0;
}

/** Upserts sync_state entries (checkpoints, skip counters: docs/architecture.md convention 3), in `db`'s transaction if any. */
export async function setStateIn(db: Db, entries: Record<string, string>): Promise<void> {
  for (const [key, value] of Object.entries(entries)) {
    await db
      .insertInto('sync_state')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }
}
