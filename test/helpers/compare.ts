/**
 * Deep comparison of an API answer with the oracle's expected JSON: same keys, same JSON
 * types, exact strings/booleans/nulls, exact integers for integer fields (docs/spec.md §2: counts and
 * ms times are integers), and USD numbers within a relative tolerance (docs/design.md §3: IEEE doubles
 * are fine for USD; the store may sum in another order).
 */
import { expect } from 'vitest';

/** Fields that are JSON integers (docs/spec.md §2 tables, docs/design.md §4 responses). */
const INTEGER_KEYS = new Set([
  'players', 'plays', 'creators', 'active_players', 'first_bet_time', 'total_plays', 'first_play', 'last_play',
  'last_activity', 'time', 'total', 'unique_players', 'totalGames', 'totalSignatures', 'totalPoolChanges',
  'blockTime', 'unpricedGames', 'created_time',
]);

/** |a − e| ≤ REL·max(|a|,|e|) + ABS: 1e-9 relative (brief), plus a micro-dollar for values near 0. */
const REL = 1e-9;
const ABS = 1e-6;

export function usdClose(a: number, e: number): boolean {
  return Math.abs(a - e) <= REL * Math.max(Math.abs(a), Math.abs(e)) + ABS;
}

/** JSON text cut to a readable length for failure messages. */
function show(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Collects every difference (path: message), so a failure shows all of them at once. */
export function diffJson(actual: unknown, expected: unknown, path = '$', out: string[] = [], key = ''): string[] {
  const ta = jsonType(actual);
  const te = jsonType(expected);
  if (ta !== te) {
    out.push(`${path}: expected ${te} ${show(expected)}, got ${ta} ${show(actual)}`);
    return out;
  }
  if (te === 'number') {
    const a = actual as number;
    const e = expected as number;
    if (INTEGER_KEYS.has(key)) {
      if (!Number.isInteger(a) || a !== e) out.push(`${path}: expected integer ${e}, got ${a}`);
    } else if (!usdClose(a, e)) {
      out.push(`${path}: expected ≈${e}, got ${a} (diff ${a - e})`);
    }
  } else if (te === 'array') {
    const a = actual as unknown[];
    const e = expected as unknown[];
    if (a.length !== e.length) out.push(`${path}: expected ${e.length} items, got ${a.length}`);
    for (let i = 0; i < Math.min(a.length, e.length); i++) diffJson(a[i], e[i], `${path}[${i}]`, out, key);
  } else if (te === 'object') {
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    const ka = Object.keys(a).sort();
    const ke = Object.keys(e).sort();
    if (ka.join(',') !== ke.join(',')) out.push(`${path}: expected keys [${ke.join(', ')}], got [${ka.join(', ')}]`);
    for (const k of ke) if (k in a) diffJson(a[k], e[k], `${path}.${k}`, out, k);
  } else if (actual !== expected) {
    out.push(`${path}: expected ${show(expected)}, got ${show(actual)}`);
  }
  return out;
}

/** Asserts no difference; the failure message lists the first 15. */
export function expectJson(actual: unknown, expected: unknown, what = ''): void {
  const diffs = diffJson(actual, expected);
  const shown = diffs.slice(0, 15).join('\n');
  expect(diffs.length, `${what}\n${shown}${diffs.length > 15 ? `\n… and ${diffs.length - 15} more` : ''}`).toBe(0);
}

/** A list answer without its `nextCursor` (opaque keyset text, docs/design.md §4), for comparing the rest with the oracle. */
export function withoutCursor(body: any): unknown {
  if (body === null || typeof body !== 'object' || !('nextCursor' in body)) return body;
  const { nextCursor: _, ...rest } = body;
  return rest;
}
