import { AppError } from '../core/index.js';
import type { Tier } from '../store/index.js';

/** Tier limits of docs/spec.md §8 (requests per minute, burst), plus the publishable keys' tier (docs/design.md §4). Enterprise is custom per key. */
export const TIER_LIMITS = Object.freeze({
  standard: Object.freeze({ rpm: 100, burst: 200 }),
  premium: Object.freeze({ rpm: 1000, burst: 2000 }),
  // Browser keys (docs/design.md §4): read-only, shared by every visitor of one site, public by design;
  // a lower budget bounds what a copied key can cost.
  publishable: Object.freeze({ rpm: 60, burst: 120 }),
}) satisfies Record<Exclude<Tier, 'enterprise'>, { rpm: number; burst: number }>;

/**
 * Enterprise defaults when the operator gives no numbers: 10× premium. Burst defaults to
 * twice the rate, the same ratio as the published tiers (docs/spec.md §8).
 */
export const ENTERPRISE_DEFAULT_RPM = 10_000;

/** Every tier of a secret key, cheapest first (docs/spec.md §8); `publishable` is given by `keys create --publishable` only. */
export const TIERS: readonly Tier[] = ['standard', 'premium', 'enterprise'];

/** Whether `value` names a tier a secret key can be issued on (not `publishable`). */
export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}

/**
 * Resolves a key's bucket limits. `rpm`/`burst` are only accepted for `enterprise` (the
 * published tiers have fixed limits). Throws AppError INVALID_ARGUMENT on a bad combination.
 */
export function resolveLimits(tier: Tier, rpm?: number, burst?: number): { rpm: number; burst: number } {
  if (!isTier(tier) && tier !== 'publishable') throw new AppError('INVALID_ARGUMENT', `tier must be one of ${TIERS.join(', ')}; got ${JSON.stringify(tier)}`);
  if (tier !== 'enterprise') {
    if (rpm !== undefined || burst !== undefined) {
      throw new AppError('INVALID_ARGUMENT', `rpm/burst can only be set for the enterprise tier (${tier} is ${TIER_LIMITS[tier].rpm} rpm, burst ${TIER_LIMITS[tier].burst})`);
    }
    return { ...TIER_LIMITS[tier] };
  }
  for (const [name, v] of [['rpm', rpm], ['burst', burst]] as const) {
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 1)) {
      throw new AppError('INVALID_ARGUMENT', `${name} must be an integer ≥ 1; got ${v}`);
    }
  }
  const r = rpm ?? (burst !== undefined ? Math.max(1, Math.ceil(burst / 2)) : ENTERPRISE_DEFAULT_RPM);
  return { rpm: r, burst: burst ?? r * 2 };
}
