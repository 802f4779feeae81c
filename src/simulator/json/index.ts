/**
 * JSON as a Solana node writes it: canonical (key-sorted) text and pre-rendered bytes, and the
 * reusable byte writer behind the hot getTransaction answer. Imports nothing; `transactions/` and
 * `rpc/` use it (docs/architecture.md "Layout", simulator row).
 */
export { RawJson, canonicalJson, orderedJson } from './canonical-json.js';
export { JsonText } from './json-text.js';
