/**
 * Records the OpenAPI document's examples from real answers (docs/design.md §4 "Versioning"):
 * loads the test suite's deterministic demo history (test/helpers/fixture.ts, the contract
 * tests' world) into a fresh SQLite store, builds the API over it, calls every documented
 * operation with valid parameters taken from that history, provokes each error it can, and writes
 * src/api/openapi-examples.ts (success bodies by operationId, arrays cut to two entries; error
 * bodies by code). The document (src/api/openapi-document.ts) serves them; Spectral's
 * oas3-valid-media-example checks each against its schema (test/api/openapi-lint.test.ts).
 *
 * Run after changing an answer's shape or adding an operation:
 *   node --import tsx scripts/openapi-examples.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/api/index.js';
import { ManualClock, createCommon, createLogger } from '../src/core/index.js';
import { createIdleSyncController } from '../src/ingest/index.js';
import { createKeyService } from '../src/keys/index.js';
import { createMemoryRateLimiter } from '../src/ratelimit/index.js';
import { createStore } from '../src/store/index.js';
import { generateFixture, loadFixture } from '../test/helpers/fixture.js';

const OUT = fileURLToPath(new URL('../src/api/openapi-examples.ts', import.meta.url));
/** The contract tests' world, smaller: enough for every answer to have entries. */
const FIXTURE = { seed: 20260115, games: 600, poolChanges: 80 } as const;
/** Entries kept per array: an example shows the shape, not the data set. */
const KEEP = 2;

const dir = mkdtempSync(join(tmpdir(), 'gamba-examples-'));
const f = generateFixture(FIXTURE);
const clock = new ManualClock(f.nowMs);
const common = createCommon({ clock, logger: createLogger({ level: 'silent' }) });
const store = await createStore({ common, config: { kind: 'sqlite', path: join(dir, 'demo.db') } });
try {
  await loadFixture(store, f);
  // A stored verification for GET /audit/coverage and /status `coverage` (docs/design.md §13): the
  // fixture's last three days as the store holds them, one signature of the newest listed as a
  // surplus (the fixture has no chain to walk, so this run is written as verify would store it).
  const sigs = f.signatures.filter((s) => s.blockTime >= Math.floor(f.nowMs / 1000) - 3 * 86_400);
  const dayOf = (t: number) => Math.floor(t / 86_400);
  const byDay = new Map<number, number>();
  for (const s of sigs) byDay.set(dayOf(s.blockTime), (byDay.get(dayOf(s.blockTime)) ?? 0) + 1);
  const days = [...byDay].sort((a, b) => b[0] - a[0]);
  const odd = sigs.reduce((a, b) => (b.slot > a.slot ? b : a));
  await store.putCoverage({
    run: { verifiedAtMs: f.nowMs, sinceDay: days.at(-1)![0], untilDay: days[0]![0], fromSlot: Math.min(...sigs.map((s) => s.slot)), toSlot: odd.slot, daysVerified: days.length, completeSinceDay: null, completeThroughDay: days[1]?.[0] ?? null, chainSignatures: sigs.length - 1, storeSignatures: sigs.length, gaps: 0, surpluses: 1, listed: 1, durationMs: 840 },
    days: days.map(([day, n]) => ({ day, chainTotal: day === dayOf(odd.blockTime) ? n - 1 : n, chainFailed: 0, storeEvents: n, storeEmpty: 0, storeFailed: 0, gaps: 0, surpluses: day === dayOf(odd.blockTime) ? 1 : 0, failedMismatches: 0 })),
    diffs: [{ day: dayOf(odd.blockTime), signature: odd.signature, slot: odd.slot, side: 'surplus', failed: false }],
  });
  const keys = createKeyService({ store: store.keys, clock });
  const app = await buildApp({ common, store, keys, limiter: createMemoryRateLimiter({ clock }), sync: createIdleSyncController(clock) });
  const key = (await keys.create({ name: 'examples', tier: 'standard' })).key;
  const readOnly = (await keys.create({ name: 'dashboard', tier: 'standard', scopes: ['read'] })).key;
  const browser = (await keys.create({ name: 'casino-web', publishable: true, origins: ['https://casino.example'] })).key;
  const tiny = (await keys.create({ name: 'tiny', tier: 'enterprise', rpm: 6, burst: 1 })).key;

  /** Valid values for the required parameters, from the loaded history. */
  const values: Record<string, string> = {
    pool: f.pools.SOL_A,
    user: f.users[0]!,
    creator: f.creators[0]!,
    token: f.tokens.SOL,
    // A window start where one is required: the last 30 days of the history.
    startTime: String(f.nowMs - 30 * 86_400_000),
  };
  const inject = (method: string, url: string, headers: Record<string, string> = {}, payload?: string) =>
    app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });

  const doc = JSON.parse((await inject('GET', '/openapi.json')).body);
  const operations: Record<string, unknown> = {};
  const ops: { id: string; method: string; path: string; required: string[] }[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      // Live streams (text/event-stream) never end: they have no JSON answer to record.
      if (op.responses?.['200']?.content?.['text/event-stream'] !== undefined) continue;
      const required = ((op.parameters ?? []) as { in: string; name: string; required?: boolean }[]).filter((p) => p.in === 'query' && p.required).map((p) => p.name);
      ops.push({ id: op.operationId, method: method.toUpperCase(), path, required });
    }
  }
  // /usage last, so it reports the calls before it.
  ops.sort((a, b) => Number(a.id === 'getUsage') - Number(b.id === 'getUsage'));
  for (const op of ops) {
    const missing = op.required.filter((n) => values[n] === undefined);
    if (missing.length) throw new Error(`${op.method} ${op.path} requires ${missing.join(', ')}: add a value to \`values\` in scripts/openapi-examples.ts`);
    const qs = new URLSearchParams(op.required.map((n) => [n, values[n]!])).toString();
    const res = await inject(op.method, qs ? `${op.path}?${qs}` : op.path, { 'x-api-key': key });
    if (res.statusCode >= 300) throw new Error(`${op.method} ${op.path} answered ${res.statusCode}: ${res.body}`);
    operations[op.id] = trim(JSON.parse(res.body));
  }

  // Each error code a request can provoke, as the API answers it.
  const errors: Record<string, unknown> = {};
  const provoke = async (code: string, method: string, url: string, headers: Record<string, string> = {}, payload?: string) => {
    const res = await inject(method, url, headers, payload);
    const body = JSON.parse(res.body);
    if (body.code !== code) throw new Error(`expected ${code} from ${method} ${url}, got ${res.statusCode} ${res.body}`);
    errors[code] = body;
  };
  await provoke('INVALID_PARAMETER', 'GET', '/players?limit=0', { 'x-api-key': key });
  await provoke('BAD_REQUEST', 'POST', '/sync', { 'x-api-key': key, 'content-type': 'application/json' }, '{"oops":');
  await provoke('MISSING_API_KEY', 'GET', '/stats');
  await provoke('UNAUTHORIZED', 'GET', '/stats', { 'x-api-key': 'ab'.repeat(32) });
  await provoke('INSUFFICIENT_SCOPE', 'POST', '/sync', { 'x-api-key': readOnly });
  await provoke('ORIGIN_NOT_ALLOWED', 'GET', '/stats', { 'x-api-key': browser, origin: 'https://elsewhere.example' });
  await provoke('PLAYER_NOT_FOUND', 'GET', '/player?user=11111111111111111111111111111111', { 'x-api-key': key });
  await provoke('POOL_NOT_FOUND', 'GET', '/pool?pool=11111111111111111111111111111111', { 'x-api-key': key });
  await provoke('NOT_FOUND', 'GET', '/nope');
  await provoke('METHOD_NOT_ALLOWED', 'DELETE', '/stats', { 'x-api-key': key });
  await provoke('PAYLOAD_TOO_LARGE', 'POST', '/sync', { 'x-api-key': key, 'content-type': 'application/json' }, JSON.stringify({ pad: 'x'.repeat(64 * 1024) }));
  await provoke('UNSUPPORTED_MEDIA_TYPE', 'POST', '/sync', { 'x-api-key': key, 'content-type': 'text/csv' }, 'a,b');
  await inject('GET', '/stats', { 'x-api-key': tiny });
  await provoke('RATE_LIMITED', 'GET', '/stats', { 'x-api-key': tiny });
  await app.close();

  const text = [
    '// Generated by scripts/openapi-examples.ts from real answers over the demo history of test/helpers/fixture.ts; do not edit.',
    "import type { RecordedExamples } from './openapi-document.js';",
    '',
    '/** Real answers of every operation (by operationId) and of every error code a request can provoke (by code), for the OpenAPI document. */',
    `export const OPENAPI_EXAMPLES: RecordedExamples = ${JSON.stringify({ operations, errors }, null, 2)};`,
    '',
  ].join('\n');
  writeFileSync(OUT, text);
  process.stdout.write(`wrote ${OUT}: ${Object.keys(operations).length} operations, ${Object.keys(errors).length} error codes\n`);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

/** Cuts every array of `value` to its first KEEP entries (objects recursively). */
function trim(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, KEEP).map(trim);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trim(v)]));
  return value;
}
