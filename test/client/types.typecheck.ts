/**
 * Compile-time checks of the SDK's types (packages/client), run by `npm run typecheck` (never
 * executed): a required query parameter is required, amounts from `toBigInts` are bigint and
 * other fields keep their type, `paginate` takes only paged lists. Each `@ts-expect-error` fails
 * the typecheck when the line it marks stops being an error.
 */
import { createClient, toBigInts } from '../../packages/client/src/index.js';
const c = createClient({ baseUrl: 'http://x' });
async function f() {
  await c.get('/stats');
  await c.get('/player', { user: 'x' });
  // @ts-expect-error user is required
  await c.get('/player');
  const t = toBigInts('/tokens', await c.get('/tokens'));
  const v: bigint = t.results[0]!.volume;
  // @ts-expect-error plays stays a number
  const p: bigint = t.results[0]!.plays;
  for await (const r of c.paginate('/players', { limit: 5 })) { const u: string = r.user; void u; }
  // @ts-expect-error /player is not a paged list
  c.paginate('/player');
  void v; void p;
}
void f;
