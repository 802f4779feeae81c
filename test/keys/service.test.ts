import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AppError, ManualClock, createCommon } from '../../src/core/index.js';
import { ENTERPRISE_DEFAULT_RPM, TIER_LIMITS, createKeyService, parseExpiry, resolveLimits } from '../../src/keys/index.js';
import { createStore } from '../../src/store/index.js';
import { setupStore } from '../helpers/store.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('key service', () => {
  test('issues 64 lowercase hex keys, stores only their SHA-256, and verifies them', async () => {
    const store = await setupStore();
    const clock = new ManualClock();
    const keys = createKeyService({ store: store.keys, clock });
    const created = await keys.create({ name: 'dashboard', tier: 'standard' });
    expect(created.key).toMatch(/^[0-9a-f]{64}$/);
    expect(created.record).toMatchObject({ id: created.id, name: 'dashboard', tier: 'standard', rpm: 100, burst: 200, createdAt: clock.now(), expiresAt: null, revokedAt: null });
    expect(created.record.keyHash).toBe(sha256(created.key));
    const [listed] = await keys.list();
    expect(listed).toEqual(created.record);
    expect(JSON.stringify(await keys.list())).not.toContain(created.key);
    const ok = await keys.verify(created.key);
    expect(ok.ok && ok.record.id).toBe(created.id);
    // Hex is case-insensitive: the same key in capitals is the same key.
    expect((await keys.verify(created.key.toUpperCase())).ok).toBe(true);
    const other = await keys.create({ name: 'other', tier: 'premium' });
    expect(other.key).not.toBe(created.key);
    const v = await keys.verify(other.key);
    expect(v.ok && v.record.rpm).toBe(1000);
  });

  test('the key text never reaches the database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gamba-keys-'));
    try {
      const store = await createStore({ common: createCommon(), config: { kind: 'sqlite', path: join(dir, 'k.db') } });
      const keys = createKeyService({ store: store.keys, clock: new ManualClock() });
      const { key, record } = await keys.create({ name: 'x', tier: 'standard' });
      await store.close();
      const files = readdirSync(dir);
      expect(files).toContain('k.db');
      const all = Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
      // The hash is there (so the scan does see the row); the key text is not.
      expect(all.includes(Buffer.from(record.keyHash))).toBe(true);
      expect(all.includes(Buffer.from(key))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('malformed, unknown, revoked and expired keys are all UNAUTHORIZED', async () => {
    const store = await setupStore();
    const clock = new ManualClock();
    const keys = createKeyService({ store: store.keys, clock });
    const good = await keys.create({ name: 'a', tier: 'standard' });
    const expiring = await keys.create({ name: 'b', tier: 'standard', expiresAt: clock.now() + 60_000 });
    const cases: [string, string][] = [
      [good.key.slice(0, 63), 'malformed'],
      [`${good.key}0`, 'malformed'],
      [`${good.key.slice(0, 63)}g`, 'malformed'],
      ['', 'malformed'],
      [`${good.key.slice(0, 63)}${good.key[63] === '0' ? '1' : '0'}`, 'unknown'],
    ];
    for (const [key, reason] of cases) expect(await keys.verify(key)).toEqual({ ok: false, code: 'UNAUTHORIZED', reason });
    expect((await keys.verify(expiring.key)).ok).toBe(true);
    clock.advance(60_000);
    expect(await keys.verify(expiring.key)).toEqual({ ok: false, code: 'UNAUTHORIZED', reason: 'expired' });
    expect(await keys.revoke(good.id)).toBe(true);
    expect(await keys.revoke(good.id)).toBe(false);
    expect(await keys.revoke('key_nope')).toBe(false);
    expect(await keys.verify(good.key)).toEqual({ ok: false, code: 'UNAUTHORIZED', reason: 'revoked' });
    const revoked = (await keys.list()).find((r) => r.id === good.id);
    expect(revoked?.revokedAt).toBe(clock.now());
  });

  test('tier limits follow docs/spec.md §8; enterprise takes custom numbers', () => {
    expect(resolveLimits('standard')).toEqual({ rpm: 100, burst: 200 });
    expect(resolveLimits('premium')).toEqual({ rpm: 1000, burst: 2000 });
    expect(TIER_LIMITS.standard).toEqual({ rpm: 100, burst: 200 });
    expect(resolveLimits('enterprise', 5000, 7000)).toEqual({ rpm: 5000, burst: 7000 });
    expect(resolveLimits('enterprise', 5000)).toEqual({ rpm: 5000, burst: 10000 });
    expect(resolveLimits('enterprise', undefined, 300)).toEqual({ rpm: 150, burst: 300 });
    expect(resolveLimits('enterprise')).toEqual({ rpm: ENTERPRISE_DEFAULT_RPM, burst: 2 * ENTERPRISE_DEFAULT_RPM });
    expect(() => resolveLimits('standard', 500)).toThrow(AppError);
    expect(() => resolveLimits('premium', undefined, 5)).toThrow(/enterprise/);
    expect(() => resolveLimits('enterprise', 0)).toThrow(/rpm/);
    expect(() => resolveLimits('enterprise', 10, 1.5)).toThrow(/burst/);
    expect(() => resolveLimits('gold' as never)).toThrow(/tier/);
  });

  test('create rejects an empty name', async () => {
    const store = await setupStore();
    const keys = createKeyService({ store: store.keys, clock: new ManualClock() });
    await expect(keys.create({ name: '  ', tier: 'standard' })).rejects.toThrow(/name/);
    expect(await keys.list()).toEqual([]);
  });
});

describe('key record cache (recordTtlMs)', () => {
  test('reuses a found record for the TTL: a revocation elsewhere takes effect when it ends; unknown keys are not cached', async () => {
    const store = await setupStore();
    const clock = new ManualClock();
    const keys = createKeyService({ store: store.keys, clock, recordTtlMs: 5_000 });
    const { id, key } = await keys.create({ name: 'cached', tier: 'standard' });
    expect((await keys.verify(key)).ok).toBe(true);
    // Revoked by another process (straight in the store): this one still trusts its copy…
    await store.keys.revoke(id, clock.now());
    clock.advance(4_999);
    expect((await keys.verify(key)).ok).toBe(true);
    // …until the TTL ends.
    clock.advance(1);
    expect(await keys.verify(key)).toMatchObject({ ok: false, reason: 'revoked' });

    // A key that was unknown works as soon as it is stored (misses are not cached).
    const other = createKeyService({ store: store.keys, clock, recordTtlMs: 5_000 });
    const later = 'ab'.repeat(32);
    expect((await other.verify(later)).ok).toBe(false);
    await store.keys.insert({
      id: 'key_later', name: 'later', tier: 'premium', rpm: 1000, burst: 2000,
      keyHash: createHash('sha256').update(later).digest('hex'), createdAt: clock.now(), expiresAt: null, revokedAt: null, scopes: ['read'], publishable: false, origins: [],
    });
    expect((await other.verify(later)).ok).toBe(true);
    const fresh = { id: 'key_later', key: later };
    // Revoking through this service forgets its own copy at once.
    expect(await other.revoke(fresh.id)).toBe(true);
    expect(await other.verify(fresh.key)).toMatchObject({ ok: false, reason: 'revoked' });
  });
});

describe('verifyCached (the synchronous answer of the hot path)', () => {
  test('answers only from a record fetched within recordTtlMs, exactly as verify would; malformed keys at once', async () => {
    const store = await setupStore();
    const clock = new ManualClock();
    const keys = createKeyService({ store: store.keys, clock, recordTtlMs: 5_000 });
    const { id, key } = await keys.create({ name: 'hot', tier: 'standard', expiresAt: clock.now() + 60_000 });
    expect(keys.verifyCached('nope')).toEqual({ ok: false, code: 'UNAUTHORIZED', reason: 'malformed' });
    // Not fetched yet: no answer without the store.
    expect(keys.verifyCached(key)).toBeUndefined();
    // An unknown key is never remembered.
    const unknown = 'ab'.repeat(32);
    expect(await keys.verify(unknown)).toMatchObject({ ok: false, reason: 'unknown' });
    expect(keys.verifyCached(unknown)).toBeUndefined();
    const verified = await keys.verify(key);
    expect(keys.verifyCached(key)).toEqual(verified);
    expect(keys.verifyCached(key.toUpperCase())).toEqual(verified);
    clock.advance(4_999);
    expect(keys.verifyCached(key)).toMatchObject({ ok: true });
    clock.advance(1);
    expect(keys.verifyCached(key)).toBeUndefined();
    // Expiry is judged at each call, also on a remembered record.
    const soon = await keys.create({ name: 'soon', tier: 'standard', expiresAt: clock.now() + 3_000 });
    expect((await keys.verify(soon.key)).ok).toBe(true);
    clock.advance(2_999);
    expect(keys.verifyCached(soon.key)).toMatchObject({ ok: true });
    clock.advance(1);
    expect(keys.verifyCached(soon.key)).toEqual({ ok: false, code: 'UNAUTHORIZED', reason: 'expired' });
    expect((await keys.verify(key)).ok).toBe(true);
    // Revoking through the service forgets the record at once.
    await keys.revoke(id);
    expect(keys.verifyCached(key)).toBeUndefined();
    expect(await keys.verify(key)).toMatchObject({ ok: false, reason: 'revoked' });
    // Without recordTtlMs nothing is remembered.
    const uncached = createKeyService({ store: store.keys, clock });
    const other = await uncached.create({ name: 'plain', tier: 'standard' });
    expect((await uncached.verify(other.key)).ok).toBe(true);
    expect(uncached.verifyCached(other.key)).toBeUndefined();
  });
});

describe('parseExpiry', () => {
  const now = Date.UTC(2025, 0, 1);
  test.each([
    ['90d', now + 90 * 86_400_000],
    ['12h', now + 12 * 3_600_000],
    ['30m', now + 30 * 60_000],
    ['2w', now + 14 * 86_400_000],
    ['1y', now + 365 * 86_400_000],
    ['2025-06-01', Date.UTC(2025, 5, 1)],
    ['2025-06-01T12:00:00Z', Date.UTC(2025, 5, 1, 12)],
  ])('%s', (text, expected) => {
    expect(parseExpiry(text, now)).toBe(expected);
  });
  test.each(['', '90', 'd', '3q', 'soon', '2024-12-31', '0d'])('rejects %j', (text) => {
    expect(() => parseExpiry(text, now)).toThrow(AppError);
  });
});
