import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * USD per smallest unit = USD price of one whole token / 10^decimals, at the UTC hour of the
 * event (docs/design.md §6). Unknown decimals or unknown price → null (the event is un-priced).
 */
export function usdPerUnit(usdPrice: number | undefined, decimals: number | undefined): number | null {
  if (usdPrice === undefined || decimals === undefined) return null;
  return usdPrice / 10 ** decimals;
}

/**
 * USD values of one game (docs/design.md §3): wager, profit, creator and Gamba fees, net (profit −
 * fees), the pool fee, and the house PnL (wager − payout: the pool's side, jackpots excluded).
 * p (USD per smallest unit) null → all 0 (un-priced).
 */
export function gameUsd(
  g: { wager: bigint; payout: bigint; jackpot: bigint; creatorFee: bigint; gambaFee: bigint; poolFee: bigint; jackpotFee: bigint },
  p: number | null,
): { wager: number; profit: number; creatorFee: number; gambaFee: number; net: number; poolFee: number; housePnl: number } {
  if (p === null) return { wager: 0, profit: 0, creatorFee: 0, gambaFee: 0, net: 0, poolFee: 0, housePnl: 0 };
  const profit = g.payout + g.jackpot - g.wager;
  const fees = g.creatorFee + g.gambaFee + g.poolFee + g.jackpotFee;
  return {
    wager: Number(g.wager) * p,
    profit: Number(profit) * p,
    creatorFee: Number(g.creatorFee) * p,
    gambaFee: Number(g.gambaFee) * p,
    net: Number(profit - fees) * p,
    poolFee: Number(g.poolFee) * p,
    housePnl: Number(g.wager - g.payout) * p,
  };
}

/** (mint, hour) prices kept across transactions; cleared when full (a year of six mints is ≈ 53,000). */
const KNOWN_PRICES_MAX = 200_000;

/**
 * Memoised (mint, hour) → USD price lookups. `known` is shared by the store's transactions:
 * a stored price never changes (docs/design.md §6; putPrices keeps an existing row), so a price
 * once read is never read again; a missing one is asked each transaction (it may arrive).
 */
export class PriceLookup {
  private readonly missing = new Set<string>();
  constructor(
    private readonly db: Transaction<Database> | Kysely<Database>,
    private readonly decimals: Map<string, number>,
    private readonly known: Map<string, number> = new Map(),
  ) {}

  async perUnit(mint: string, hourMs: number): Promise<number | null> {
    const id = `${mint} ${hourMs}`;
    let price = this.known.get(id);
    if (price === undefined && !this.missing.has(id)) {
      const row = await this.db
        .selectFrom('prices')
        .select('usd_price')
        .where('mint', '=', mint)
        .where('hour_ms', '=', hourMs)
        .executeTakeFirst();
      if (row) {
        price = Number(row.usd_price);
        if (this.known.size >= KNOWN_PRICES_MAX) this.known.clear();
        this.known.set(id, price);
      } else this.missing.add(id);
    }
    return usdPerUnit(price, this.decimals.get(mint));
  }
}
