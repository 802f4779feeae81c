/** A USD price of one **whole** token (not per smallest unit) from one source (docs/design.md §6). */
export interface PriceQuote {
  usdPrice: number;
  /** Name of the source that answered: 'pyth', 'jupiter', 'override'. */
  source: string;
  /** When the source published the price, Unix **seconds**; null when unknown. */
  publishTime: number | null;
}

/**
 * One price source behind the common interface (docs/design.md §6). `priceAt` returns the prices it
 * knows for the UTC hour starting at `hourMs` (ms); a mint it has no price for is simply
 * absent from the map (a definitive "not here", the chain then asks the next source).
 * It throws an AppError with `retryable: true` when the source is temporarily unreachable:
 * the chain then leaves the mints this source covers un-priced for now (a later retry asks
 * again) rather than falling back to a less precise source and storing that forever.
 */
export interface PriceSource {
  readonly name: string;
  /** Whether this source can price `mint` at all (e.g. Hermes only for mints with a Pyth feed). */
  covers(mint: string): boolean;
  priceAt(mints: string[], hourMs: number): Promise<Map<string, PriceQuote>>;
}
