/**
 * Exact token arithmetic (AGENTS "Exact numbers"; docs/design.md §3). Amounts are u64 in smallest
 * units. To keep sums exact in SQL on SQLite (i64) and PostgreSQL alike, every stored amount
 * is split into two 32-bit halves, `hi` and `lo` (amount = hi·2^32 + lo). SUM(hi) and SUM(lo)
 * each stay below 2^63 for up to 2^31 rows, and `joinHiLo` rebuilds the exact BigInt.
 */
export const TWO_32 = 4_294_967_296n;

/** A u64 amount (smallest token units) as its 32-bit halves; throws RangeError for a negative amount. */
export function splitU64(amount: bigint): { hi: number; lo: number } {
  if (amount < 0n) throw new RangeError(`u64 amount is negative: ${amount}`);
  return { hi: Number(amount / TWO_32), lo: Number(amount % TWO_32) };
}

/** Rebuilds an exact integer from summed halves; inputs may be number, bigint or numeric strings (drivers differ). */
export function joinHiLo(hi: number | bigint | string | null, lo: number | bigint | string | null): bigint {
  return BigInt(hi ?? 0) * TWO_32 + BigInt(lo ?? 0);
}
