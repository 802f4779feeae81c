/**
 * JSON rendered ahead as UTF-8 bytes (a getTransaction result written straight in its
 * canonical form, transactions/txjson.ts): the RPC envelope wraps the bytes as they are, canonicalJson
 * inserts their text verbatim.
 */
export class RawJson {
  constructor(readonly bytes: Buffer) {}

  get text(): string {
    return this.bytes.toString('utf8');
  }
}

/**
 * JSON as a Solana node writes it: the RPC result passes through serde_json's `Value`, whose
 * maps are sorted by key, so every object inside `result` has alphabetically ordered keys.
 * `bigint` values are written as plain integer literals (u64 fields such as `rentEpoch`
 * exceed 2^53 and the node prints them as numbers); `undefined` members are omitted.
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'null';
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof RawJson) return value.text;
      if (Array.isArray(value)) {
        let s = '[';
        for (let i = 0; i < value.length; i++) s += (i ? ',' : '') + canonicalJson(value[i]);
        return s + ']';
      }
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      let s = '{';
      let first = true;
      for (const k of keys) {
        const v = obj[k];
        if (v === undefined) continue;
        s += (first ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(v);
        first = false;
      }
      return s + '}';
    }
    default:
      throw new TypeError(`cannot serialise ${typeof value}`);
  }
}

/**
 * Serialises in insertion order (JSON.stringify) but writes bigints as integer literals; for
 * envelopes and pubsub notifications, which Solana writes from structs in field order.
 */
export function orderedJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `__big__${v}` : v)).replace(/"__big__(\d+)"/g, '$1');
}
