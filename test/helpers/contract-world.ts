/**
 * One contract-test world: the fixture loaded into a real store (SQLite or PostgreSQL: TEST_STORE) through the store's
 * write path, the API on a real socket over it, its clock stopped at the fixture's `nowMs`,
 * and the oracle computed from the same events and prices.
 */
import { ManualClock } from '../../src/core/index.js';
import type { Store } from '../../src/store/index.js';
import { createOracle, type Oracle } from './bruteforce.js';
import { buildTestApp, type TestApp } from './app.js';
import { generateFixture, loadFixture, type Fixture, type LoadOrder } from './fixture.js';
import { setupStore } from './store.js';

export { loadFixture, type LoadOrder };

/** The fixture every contract file uses (docs/architecture.md: "a few thousand generated games and pool changes"). */
export const FIXTURE_OPTIONS = { seed: 20260115, games: 3000, poolChanges: 300 } as const;

export interface Contract {
  fixture: Fixture;
  oracle: Oracle;
  store: Store;
  app: TestApp;
  clock: ManualClock;
  /** GET with the test key; query values are sent as given (strings, numbers, or '' for a bare flag). */
  get(path: string, query?: Record<string, string | number | boolean | undefined>): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export function queryString(query: Record<string, string | number | boolean | undefined> = {}): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    parts.push(v === '' ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

export async function setupContract(order: LoadOrder = 'prices-first', extra: { extraGameTimesSec?: readonly number[] } = {}): Promise<Contract> {
  const fixture = generateFixture({ ...FIXTURE_OPTIONS, ...extra });
  const oracle = createOracle(fixture);
  const store = await setupStore();
  await loadFixture(store, fixture, order);
  const clock = new ManualClock(fixture.nowMs);
  const app = await buildTestApp({ store, clock });
  // The contract holds for the API as `serve` builds it: reads through the read-only store (reader threads on SQLite).
  if (app.apiStore.access !== 'readonly') throw new Error('the contract API must read through a read-only store');
  const get = httpGetter(app.baseUrl, app.key);
  return { fixture, oracle, store, app, clock, get, close: () => app.close() };
}

/** GET over real HTTP with an API key; the body is parsed JSON (or the raw text when it is not JSON). */
export function httpGetter(baseUrl: string, key: string): Contract['get'] {
  return async (path, query) => {
    const res = await fetch(`${baseUrl}${path}${queryString(query)}`, { headers: { 'X-API-Key': key } });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, body };
  };
}
