import { AppError, type Clock } from '../core/index.js';
import type { ApiKeyRecord, ApiKeyStore, Scope, Tier } from '../store/index.js';
import { generateKey, generateKeyId, hashKey, normalizeKey, sameHash } from './material.js';
import { DEFAULT_SCOPES, PUBLISHABLE_SCOPES, SCOPES, normalizeOrigin } from './scopes.js';
import { resolveLimits } from './tiers.js';

/**
 * A key to issue: name, tier, enterprise limits (rpm, burst), expiry (Unix ms), scopes, and for a
 * publishable key its allowed origins (docs/design.md §4 "Scopes and publishable keys").
 */
export interface CreateKeyInput {
  name: string;
  /** Ignored for a publishable key (always tier `publishable`); required otherwise. */
  tier?: Tier;
  /** Default DEFAULT_SCOPES (all four) for a secret key, `read` for a publishable one. */
  scopes?: readonly Scope[];
  /** A browser key: read scope only, accepted only from `origins`, tier `publishable`. */
  publishable?: boolean;
  /** Allowed origins of a publishable key (at least one); refused on a secret key. */
  origins?: readonly string[];
  /** Enterprise only (see resolveLimits). */
  rpm?: number;
  burst?: number;
  /** Unix ms; undefined = never expires. */
  expiresAt?: number;
}

/** A newly issued key: its id, the key text (returned once) and the stored record. */
export interface CreatedKey {
  id: string;
  /** The key itself, 64 lowercase hex: shown once, never stored (docs/design.md §4). */
  key: string;
  record: ApiKeyRecord;
}

/** Outcome of verifying a presented key: a value, not an exception (docs/architecture.md convention 5). */
export type VerifyOutcome = { ok: true; record: ApiKeyRecord } | { ok: false; code: 'UNAUTHORIZED'; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' };

/** Issues, verifies, lists and revokes API keys (hashes only in the store, docs/design.md §4). */
export interface KeyService {
  /**
   * Issues a key. Throws AppError INVALID_ARGUMENT on a bad tier/rpm/burst, an empty name, an
   * unknown scope, a publishable key with a scope other than `read` or without an origin, or
   * origins on a secret key.
   */
  create(input: CreateKeyInput): Promise<CreatedKey>;
  /**
   * Checks a presented key. Malformed, unknown, revoked and expired keys all give
   * `{ ok: false, code: 'UNAUTHORIZED' }` (`reason` is for metrics/logs only, never the client).
   */
  verify(key: string): Promise<VerifyOutcome>;
  /**
   * `verify`'s answer when it needs no store query — a malformed key, or a key whose record this
   * process fetched less than `recordTtlMs` ago — else undefined (then call `verify`). Lets the
   * API's auth hook stay synchronous on the hot path (docs/benchmarks.md). Never caches an unknown key.
   */
  verifyCached(key: string): VerifyOutcome | undefined;
  list(): Promise<ApiKeyRecord[]>;
  /** true when the key existed and was not yet revoked. */
  revoke(id: string): Promise<boolean>;
}

/** What the key service needs: the key store, a clock (expiry and record reuse) and the record reuse time. */
export interface KeyServiceDeps {
  store: ApiKeyStore;
  clock: Clock;
  /**
   * How long (ms) a found key record is reused without asking the store again (default 0 = every
   * request asks). The API sets a few seconds so the hot path makes no store query per request;
   * a revocation or expiry then takes effect within that time. Unknown keys are never cached.
   */
  recordTtlMs?: number;
}

/** At most this many key records are kept in memory; the oldest entry goes first. */
const MAX_CACHED_RECORDS = 10_000;

/** The key service over `deps.store`; found records are reused for `recordTtlMs` (at most 10,000 kept). */
export function createKeyService(deps: KeyServiceDeps): KeyService {
  const { store, clock } = deps;
  const ttl = deps.recordTtlMs ?? 0;
  // Records by key hash, each kept only after its constant-time hash check passed.
  const cache = new Map<string, { record: ApiKeyRecord; until: number }>();
  const MALFORMED: VerifyOutcome = Object.freeze({ ok: false, code: 'UNAUTHORIZED', reason: 'malformed' });
  const judge = (record: ApiKeyRecord): VerifyOutcome => {
    if (record.revokedAt !== null) return { ok: false, code: 'UNAUTHORIZED', reason: 'revoked' };
    if (record.expiresAt !== null && record.expiresAt <= clock.now()) return { ok: false, code: 'UNAUTHORIZED', reason: 'expired' };
    return { ok: true, record };
  };
  /** The cached record of `hash` while fresh; an expired entry is dropped. */
  const cached = (hash: string): ApiKeyRecord | undefined => {
    if (ttl <= 0) return undefined;
    const hit = cache.get(hash);
    if (hit === undefined) return undefined;
    if (hit.until > clock.now()) return hit.record;
    cache.delete(hash);
    return undefined;
  };
  return {
    async create(input) {
      const name = input.name?.trim();
      if (!name) throw new AppError('INVALID_ARGUMENT', 'name must not be empty');
      const publishable = input.publishable === true;
      if (!publishable && input.tier === 'publishable') throw new AppError('INVALID_ARGUMENT', 'tier publishable is for publishable keys (--publishable)');
      if (!publishable && input.tier === undefined) throw new AppError('INVALID_ARGUMENT', 'tier is required');
      const tier: Tier = publishable ? 'publishable' : input.tier!;
      for (const s of input.scopes ?? []) if (!SCOPES.includes(s)) throw new AppError('INVALID_ARGUMENT', `scope must be one of ${SCOPES.join(', ')}; got ${JSON.stringify(s)}`);
      const scopes = SCOPES.filter((s) => (input.scopes ?? (publishable ? PUBLISHABLE_SCOPES : DEFAULT_SCOPES)).includes(s));
      if (scopes.length === 0) throw new AppError('INVALID_ARGUMENT', 'a key needs at least one scope');
      let origins: string[] = [];
      if (publishable) {
        if (scopes.some((s) => !PUBLISHABLE_SCOPES.includes(s))) throw new AppError('INVALID_ARGUMENT', `a publishable key can only have the scope ${PUBLISHABLE_SCOPES.join(', ')}`);
        if (input.rpm !== undefined || input.burst !== undefined) throw new AppError('INVALID_ARGUMENT', 'rpm/burst cannot be set on a publishable key (its tier is fixed)');
        origins = [...new Set((input.origins ?? []).map(normalizeOrigin))];
        if (origins.length === 0) throw new AppError('INVALID_ARGUMENT', 'a publishable key needs at least one allowed origin (--origin https://casino.example)');
      } else if ((input.origins ?? []).length > 0) {
        throw new AppError('INVALID_ARGUMENT', 'origins apply to publishable keys only (--publishable)');
      }
      const { rpm, burst } = resolveLimits(tier, input.rpm, input.burst);
      const key = generateKey();
      const record: ApiKeyRecord = {
        id: generateKeyId(),
        name,
        tier,
        rpm,
        burst,
        keyHash: hashKey(key),
        createdAt: clock.now(),
        expiresAt: input.expiresAt ?? null,
        revokedAt: null,
        scopes,
        publishable,
        origins,
      };
      await store.insert(record);
      return { id: record.id, key, record };
    },
    verifyCached(presented) {
      const key = normalizeKey(presented);
      if (key === undefined) return MALFORMED;
      const record = cached(hashKey(key));
      return record === undefined ? undefined : judge(record);
    },
    async verify(presented) {
      const key = normalizeKey(presented);
      if (key === undefined) return MALFORMED;
      const hash = hashKey(key);
      const hit = cached(hash);
      if (hit !== undefined) return judge(hit);
      const record = await store.findByHash(hash);
      // The lookup is by hash; the constant-time compare guards against a store that matches loosely.
      if (record === undefined || !sameHash(record.keyHash, hash)) return { ok: false, code: 'UNAUTHORIZED', reason: 'unknown' };
      if (ttl > 0) {
        if (cache.size >= MAX_CACHED_RECORDS) cache.delete(cache.keys().next().value!);
        cache.set(hash, { record, until: clock.now() + ttl });
      }
      return judge(record);
    },
    list: () => store.list(),
    async revoke(id) {
      const done = await store.revoke(id, clock.now());
      // This process forgets at once; others within recordTtlMs.
      for (const [hash, entry] of cache) if (entry.record.id === id) cache.delete(hash);
      return done;
    },
  };
}
