/**
 * Property tests over the authentication headers (docs/hardening.md): long, malformed, binary, duplicated
 * `X-API-Key` and `Authorization` values, written byte for byte on a raw socket (no client
 * library cleans them up). The expected answer is computed independently from docs/design.md §4's rules:
 * 200 for exactly one presented valid key, 401 MISSING_API_KEY when nothing is presented,
 * 401 UNAUTHORIZED for anything else; 400 when the bytes are not HTTP; 431 beyond 16 KiB of
 * headers. Always the docs/spec.md §7 JSON body on errors; never 5xx, never a hang.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { rawExchange } from '../helpers/raw-http.js';

let t: TestApp;
beforeAll(async () => {
  // The per-IP failed-auth guard would turn most answers into 429 after 30 failures: widen it here.
  t = await buildTestApp({ options: { authFailureLimits: { rpm: 1_000_000, burst: 1_000_000 } } });
});
afterAll(() => t.close());

type Header = [name: string, value: string];

/** Header-value text: visible ASCII, tabs, spaces, obs-text (latin1 0x80–0xFF). */
const valueChar = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.constant(0x09) },
  { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
).map((c) => String.fromCharCode(c));
const valueText = (max: number) => fc.array(valueChar, { maxLength: max }).map((a) => a.join(''));

function keyVariants(key: string) {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(key) },
    fc.constant(key.toUpperCase()),
    fc.constant(`  ${key}\t`),
    fc.constant(key.slice(0, 63)),
    fc.constant(`${key}0`),
    fc.constant(`${key.slice(0, 63)}g`),
    fc.constant('0'.repeat(64)),
    fc.constant(''),
    fc.constant('   '),
    fc.constant(`${key},${key}`),
    valueText(80),
    { weight: 2, arbitrary: fc.oneof(fc.integer({ min: 100, max: 14_000 }), fc.integer({ min: 17_000, max: 20_000 })).map((n) => 'k'.repeat(n)) },
  );
}

interface Case {
  headers: Header[];
  /** A control byte in a value: not HTTP. */
  broken: boolean;
}

function caseArb(key: string): fc.Arbitrary<Case> {
  const apiKey = keyVariants(key).map((v): Header => ['X-API-Key', v]);
  const auth = fc
    .oneof(keyVariants(key).map((v) => `Bearer ${v}`), keyVariants(key).map((v) => `bearer  ${v}`), keyVariants(key).map((v) => `Basic ${v}`), valueText(40), keyVariants(key))
    .map((v): Header => ['Authorization', v]);
  const other = fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/), valueText(60)).filter(([n]) => !/^(x-api-key|authorization|content-length|transfer-encoding|host|connection|expect|upgrade)$/i.test(n)).map((h): Header => h);
  return fc.record({
    headers: fc.array(fc.oneof(apiKey, auth, other), { maxLength: 5 }),
    control: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('\u0000', '\u0001', '\u001f', '\u000b') }),
  }).map(({ headers, control }) => {
    if (control === null || headers.length === 0) return { headers, broken: false };
    const [n, v] = headers[0]!;
    return { headers: [[n, `${v.slice(0, 3)}${control}${v.slice(3)}`] as Header, ...headers.slice(1)], broken: true };
  });
}

/** docs/design.md §4, independently: what the API must answer for these headers. */
function expected(c: Case, key: string): { status: number; code?: string } | 'too-large' | 'too-large-or-broken' {
  // Request line + Host + Connection ≈ 60 bytes; the exact boundary (16 KiB) is not what this test is about.
  const bytes = 60 + c.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  if (bytes > 16_384 + 200) return c.broken ? 'too-large-or-broken' : 'too-large';
  if (bytes > 16_384 - 200) return 'too-large-or-broken';
  if (c.broken) return { status: 400, code: 'BAD_REQUEST' };
  const xs = c.headers.filter(([n]) => n.toLowerCase() === 'x-api-key').map(([, v]) => v);
  const auths = c.headers.filter(([n]) => n.toLowerCase() === 'authorization').map(([, v]) => v);
  const valid = (k: string) => k.toLowerCase() === key;
  // Several X-API-Key headers are one ambiguous credential (never a silent pick).
  const x = xs.length > 1 ? xs.join(', ') : xs[0];
  if (x !== undefined && x.trim() !== '') return valid(x.trim()) ? { status: 200 } : { status: 401, code: 'UNAUTHORIZED' };
  // Node keeps the first Authorization header of several (RFC 9110: it is not a list).
  const a = auths[0];
  if (a !== undefined && a.trim() !== '') {
    const m = /^Bearer +(\S+)$/i.exec(a.trim());
    return m && valid(m[1]!) ? { status: 200 } : { status: 401, code: 'UNAUTHORIZED' };
  }
  return { status: 401, code: 'MISSING_API_KEY' };
}

const seen = new Map<number, number>();

test('authentication headers: the answer docs/design.md §4 gives, with the JSON body; never 5xx or a hang', async () => {
  await fc.assert(
    fc.asyncProperty(caseArb(t.key), async (c) => {
      const head = `GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${c.headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
      const a = await rawExchange(t.baseUrl, [Buffer.from(head, 'latin1')], { waitMs: 10_000 });
      const outcome = expected(c, t.key);
      const where = `${JSON.stringify(c.headers).slice(0, 400)} → ${a.text.slice(0, 300)}`;
      expect(a.closedAfterMs, `no answer within 10 s: ${where}`).toBeDefined();
      seen.set(a.status ?? 0, (seen.get(a.status ?? 0) ?? 0) + 1);
      // Oversized and broken: whichever the parser meets first.
      const want =
        outcome === 'too-large' ? { status: 431, code: 'HEADERS_TOO_LARGE' }
        : outcome === 'too-large-or-broken' ? (a.status === 400 ? { status: 400, code: 'BAD_REQUEST' } : a.status === 401 ? { status: 401, code: a.body?.code } : { status: 431, code: 'HEADERS_TOO_LARGE' })
        : outcome;
      expect(a.status, where).toBe(want.status);
      expect(a.headers['content-type'], where).toMatch(/^application\/json/);
      if (want.code) {
        expect(Object.keys(a.body).sort(), where).toEqual(['code', 'error', 'timestamp']);
        expect(a.body.code, where).toBe(want.code);
      } else {
        expect(typeof a.body.totalGames, where).toBe('number');
      }
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 60) * 4, seed: Number(process.env.FUZZ_SEED ?? 7) },
  );
  // The generators reach every outcome.
  for (const s of [200, 400, 401, 431]) expect(seen.get(s) ?? 0, `status ${s} never seen: ${JSON.stringify([...seen])}`).toBeGreaterThan(0);
});
