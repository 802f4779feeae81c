import { AppError } from '../core/index.js';
import type { Scope } from '../store/index.js';

/** Every scope a key can hold (docs/design.md §4 "Scopes and publishable keys"), in a stable order. */
export const SCOPES: readonly Scope[] = ['read', 'sync', 'stream', 'export'];

/**
 * Scopes of a new secret key given none: all four, as keys made before scopes existed hold
 * (migration 0009), so issuing a key works as it did; narrow with `--scopes` (docs/design.md §4).
 */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES;

/** The only scope of a publishable (browser) key (docs/design.md §4). */
export const PUBLISHABLE_SCOPES: readonly Scope[] = ['read'];

/** Whether `value` names a scope. */
export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Parses a comma-separated scope list (`read,sync`) into distinct scopes in SCOPES order.
 * Throws AppError INVALID_ARGUMENT on an unknown or empty list.
 */
export function parseScopes(text: string): Scope[] {
  const names = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) throw new AppError('INVALID_ARGUMENT', `scopes must list at least one of ${SCOPES.join(', ')}`);
  for (const n of names) if (!isScope(n)) throw new AppError('INVALID_ARGUMENT', `scope must be one of ${SCOPES.join(', ')}; got ${JSON.stringify(n)}`);
  return SCOPES.filter((s) => names.includes(s));
}

/**
 * Normalises an allowed origin of a publishable key to the form browsers send in `Origin`
 * (`scheme://host[:port]`, lowercase host, default port dropped; the WHATWG URL standard's origin).
 * Throws AppError INVALID_ARGUMENT on anything that is not an http(s) origin without path, query or fragment.
 */
export function normalizeOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new AppError('INVALID_ARGUMENT', `origin must be like https://casino.example; got ${JSON.stringify(text)}`);
  }
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !bare) {
    throw new AppError('INVALID_ARGUMENT', `origin must be scheme://host[:port] with no path (like https://casino.example); got ${JSON.stringify(text)}`);
  }
  return url.origin;
}
