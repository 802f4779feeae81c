/**
 * The typed SDK's generated files (packages/client, docs in packages/client/README.md): dumps the
 * service's OpenAPI document — built by `buildApp` over an empty SQLite store in a temp dir, no
 * indexer, no network; its recorded examples left out — to `packages/client/openapi.json`, generates its TypeScript types with
 * openapi-typescript into `packages/client/src/schema.d.ts`, and writes
 * `packages/client/src/operations.ts`: per operation, the JSON paths of its exact token amounts
 * (the u64 integer-string fields: schema pattern `^-?\d+$`, docs/design.md §3) and, for the
 * cursor-paged lists, the array field that holds the rows.
 *
 * Run after changing an operation or an answer's shape (test/client/generated.test.ts fails while
 * the committed files differ from what this writes):
 *   node --import tsx scripts/client-schema.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '../src/api/index.js';
import { ManualClock, createCommon, createLogger } from '../src/core/index.js';
import { createIdleSyncController } from '../src/ingest/index.js';
import { createKeyService } from '../src/keys/index.js';
import { createMemoryRateLimiter } from '../src/ratelimit/index.js';
import { createStore } from '../src/store/index.js';

/** packages/client, where the generated files live. */
export const CLIENT_DIR = fileURLToPath(new URL('../packages/client/', import.meta.url));

/** The three generated files: path relative to packages/client → content. */
export type ClientFiles = Record<'openapi.json' | 'src/schema.d.ts' | 'src/operations.ts', string>;

type Json = Record<string, any>;

/** The document as the running service serves it at GET /openapi.json (an empty store: the document does not depend on data). */
export async function liveDocument(): Promise<Json> {
  const dir = mkdtempSync(join(tmpdir(), 'gamba-client-schema-'));
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const common = createCommon({ clock, logger: createLogger({ level: 'silent' }) });
  const store = await createStore({ common, config: { kind: 'sqlite', path: join(dir, 'schema.db') } });
  try {
    const keys = createKeyService({ store: store.keys, clock });
    const app = await buildApp({ common, store, keys, limiter: createMemoryRateLimiter({ clock }), sync: createIdleSyncController(clock) });
    try {
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
      return JSON.parse(res.body) as Json;
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The patterns of the amount schemas (src/api/schemas.ts `amount`; unsigned LP supplies `^\d+$`). */
const AMOUNT_PATTERNS = new Set(['^-?\\d+$', '^\\d+$']);

/** Resolves a local `$ref` (`#/components/schemas/X`). */
function deref(doc: Json, s: Json | undefined): Json | undefined {
  if (s?.$ref === undefined) return s;
  return String(s.$ref).replace(/^#\//, '').split('/').reduce<any>((o, k) => o?.[k], doc);
}

/**
 * JSON paths (`results[].wager`, `start.liquidity`) of the integer-string amount fields under `s`
 * into `out`; every other string field's path into `others`.
 */
function amountPaths(doc: Json, s: Json | undefined, at: string, out: string[], others: string[] = []): string[] {
  const schema = deref(doc, s);
  if (schema === undefined) return out;
  const types = ([] as string[]).concat(schema.type ?? []);
  if (types.includes('string')) (AMOUNT_PATTERNS.has(schema.pattern) ? out : others).push(at);
  for (const [k, v] of Object.entries<Json>(schema.properties ?? {})) amountPaths(doc, v, at === '' ? k : `${at}.${k}`, out, others);
  if (schema.items !== undefined) amountPaths(doc, schema.items, `${at}[]`, out, others);
  if (typeof schema.additionalProperties === 'object' && amountPaths(doc, schema.additionalProperties, `${at}{}`, []).length > 0) {
    throw new Error(`${at}: amounts inside a map (additionalProperties) are not supported by the SDK's amount table`);
  }
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) amountPaths(doc, alt, at, out, others);
  return out;
}

/** A JSON path's last field name: `results[].wager` → `wager`. */
const leaf = (path: string) => path.slice(path.lastIndexOf('.') + 1);

/** What the SDK needs to know per GET operation beyond the types: amounts, and the rows' field of a paged list. */
export interface OperationFacts {
  /** JSON paths of the u64 integer-string fields of the 200 answer (exact amounts). */
  amounts: string[];
  /** For a list with `nextCursor`: the array property holding the paged rows (of several arrays, the one whose description says "page"). */
  items?: string;
  /** A live stream (text/event-stream): the list operation whose rows its events carry. */
  stream?: boolean;
}

/** Facts of every GET operation of `doc`, by path. */
export function operationFacts(doc: Json): Record<string, OperationFacts> {
  const out: Record<string, OperationFacts> = {};
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const content = item.get?.responses?.['200']?.content ?? {};
    if (content['text/event-stream'] !== undefined) {
      out[path] = { amounts: [], stream: true };
      continue;
    }
    const schema = deref(doc, content['application/json']?.schema);
    if (schema === undefined) continue;
    const others: string[] = [];
    const facts: OperationFacts = { amounts: amountPaths(doc, schema, '', [], others) };
    // The SDK's types convert by field name within an operation: a name must not be an amount in one place and text in another.
    const clash = others.find((o) => facts.amounts.some((a) => leaf(a) === leaf(o)));
    if (clash !== undefined) throw new Error(`${path}: the field name of ${clash} is an amount elsewhere in the answer`);
    if (schema.properties?.nextCursor !== undefined) {
      let arrays = Object.entries<Json>(schema.properties).filter(([, v]) => ([] as string[]).concat(deref(doc, v)?.type ?? []).includes('array'));
      // Several arrays (e.g. /audit/coverage: `days` whole, `diffs` paged): the paged one says "page" in its description.
      if (arrays.length > 1) arrays = arrays.filter(([, v]) => /\bpage\b/i.test(String(deref(doc, v)?.description ?? '')));
      if (arrays.length !== 1) throw new Error(`${path}: a paged list must have one array field (or one whose description names its page), has ${arrays.length}`);
      facts.items = arrays[0]![0];
    }
    out[path] = facts;
  }
  return out;
}

function operationsSource(facts: Record<string, OperationFacts>): string {
  const body = JSON.stringify(facts, null, 2).replace(/"([A-Za-z_$][\w$]*)":/g, '$1:');
  return `// Generated by scripts/client-schema.ts from the service's OpenAPI document. Do not edit.

/**
 * Per GET operation (by path): \`amounts\`, the JSON paths of its answer's exact token amounts
 * (u64 integer strings in the smallest token unit, schema pattern ^-?\\d+$: docs/design.md §3);
 * \`items\`, for a cursor-paged list, the array field holding the rows; \`stream\`, a live stream.
 */
export const OPERATIONS = ${body} as const;
`;
}

/**
 * `doc` without its examples (`example` / `examples` of media types, headers, parameters and
 * schemas; a schema's property of that name is kept): they are recorded answers, re-recorded
 * with fresh keys by scripts/openapi-examples.ts, and carry nothing the client's types use.
 */
export function withoutExamples<T>(node: T, inProperties = false): T {
  if (Array.isArray(node)) return node.map((n) => withoutExamples(n)) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (!inProperties && (k === 'example' || k === 'examples')) continue;
    out[k] = withoutExamples(v, !inProperties && k === 'properties');
  }
  return out as T;
}

/** The generated files for `live` (the document as served; its examples are left out), as they are committed. */
export async function clientFiles(live: Json): Promise<ClientFiles> {
  const doc = withoutExamples(live);
  const ast = await openapiTS(doc as never, { alphabetize: true });
  const header = "// Generated by scripts/client-schema.ts (openapi-typescript) from the service's OpenAPI document. Do not edit.\n\n";
  return {
    'openapi.json': `${JSON.stringify(doc, null, 2)}\n`,
    'src/schema.d.ts': header + astToString(ast),
    'src/operations.ts': operationsSource(operationFacts(doc)),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const files = await clientFiles(await liveDocument());
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(CLIENT_DIR, name), text);
    console.log(`wrote packages/client/${name} (${text.length} characters)`);
  }
}
