import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A key is 64 hex characters (docs/spec.md §5.2); we issue lowercase, from 32 CSPRNG bytes (docs/design.md §4). */
export const KEY_PATTERN = /^[0-9a-f]{64}$/;

/** A new API key: 64 lowercase hex characters from 32 CSPRNG bytes. */
export function generateKey(): string {
  return randomBytes(32).toString('hex');
}

/** Lowercase hex SHA-256 of the key text: the only form a key is stored in (docs/design.md §4). */
export function hashKey(key: string): string {
  // One-shot crypto.hash (Node ≥ 20.12): a third of createHash().update().digest() per request.
  return hash('sha256', key, 'hex');
}

/**
 * Normalises a presented key: hex is case-insensitive, so `ABC…` and `abc…` are the same key.
 * Returns undefined when the text is not 64 hex characters.
 */
export function normalizeKey(presented: string): string | undefined {
  const k = presented.toLowerCase();
  return KEY_PATTERN.test(k) ? k : undefined;
}

/** Constant-time equality of two hex digests (never short-circuits on the first differing byte). */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A short random key id, safe to print and to pass to `keys revoke`. */
export function generateKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}
