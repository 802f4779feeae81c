import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { ApiKeyRecord, ApiKeyStore, Scope, Tier } from './types.js';

const toRecord = (r: Database['api_keys']): ApiKeyRecord => ({
  id: r.id,
  name: r.name,
  tier: r.tier as Tier,
  rpm: Number(r.rpm),
  burst: Number(r.burst),
  keyHash: r.key_hash,
  createdAt: Number(r.created_at),
  expiresAt: r.expires_at === null ? null : Number(r.expires_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  scopes: r.scopes.split(',').filter((x) => x !== '') as Scope[],
  publishable: Number(r.publishable) === 1,
  origins: r.origins === null ? [] : r.origins.split(' ').filter((x) => x !== ''),
});

/** API key rows: only the SHA-256 hash of a key is stored (docs/design.md §4). */
export function createApiKeyStore(db: Kysely<Database>): ApiKeyStore {
  return {
    async insert(k) {
      await db
        .insertInto('api_keys')
        .values({ id: k.id, name: k.name, tier: k.tier, rpm: k.rpm, burst: k.burst, key_hash: k.keyHash, created_at: k.createdAt, expires_at: k.expiresAt, revoked_at: k.revokedAt,
          scopes: k.scopes.join(','), publishable: k.publishable ? 1 : 0, origins: k.origins.length === 0 ? null : k.origins.join(' ') })
        .execute();
    },
    async findByHash(keyHash) {
      const r = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
      return r ? toRecord(r) : undefined;
    },
    async list() {
      return (await db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute()).map(toRecord);
    },
    async revoke(id, atMs) {
      const res = await db.updateTable('api_keys').set({ revoked_at: atMs }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
    async count() {
      const r = await db.selectFrom('api_keys').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
      return Number(r?.n ?? 0);
    },
  };
}
