import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError, createCommon, ManualClock } from '../../src/core/index.js';
import {
  KNOWN_PYTH_FEEDS,
  createHermesSource,
  createJupiterSource,
  createOverridesSource,
  createPriceChain,
  createPriceSources,
  parseOverrides,
} from '../../src/prices/index.js';
import { startPriceServer, type PriceServer, type PriceServerScript } from '../helpers/price-server.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const WIF = 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm';
const NOPE = 'NoPrice1111111111111111111111111111111111111';
const HOUR = Date.UTC(2025, 5, 1, 14);

const servers: PriceServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function priceServer(script: PriceServerScript) {
  const s = await startPriceServer(script);
  servers.push(s);
  return s;
}

/** SOL = 100 + hour index, USDC = 1 (the test's "Pyth history"). */
const hermesHistory = (id: string, t: number) =>
  id === KNOWN_PYTH_FEEDS[SOL] ? 100 + Math.floor(t / 3600) % 1000 : id === KNOWN_PYTH_FEEDS[USDC] ? 1 : undefined;

describe('Hermes source', () => {
  it('asks at the hour start with the feed ids and Bearer key, and returns price × 10^expo', async () => {
    const s = await priceServer({ hermesPrice: hermesHistory });
    const src = createHermesSource({ common: createCommon(), url: s.hermesUrl, apiKey: 'pyth-secret', feeds: KNOWN_PYTH_FEEDS });
    const got = await src.priceAt([SOL, USDC, WIF], HOUR + 0);
    expect(s.hermesRequests).toHaveLength(1);
    expect(s.hermesRequests[0]!.t).toBe(HOUR / 1000);
    expect(s.hermesRequests[0]!.ids.sort()).toEqual([KNOWN_PYTH_FEEDS[SOL], KNOWN_PYTH_FEEDS[USDC]].sort());
    expect(s.hermesRequests[0]!.auth).toBe('Bearer pyth-secret');
    expect(got.get(SOL)).toEqual({ usdPrice: 100 + ((HOUR / 3_600_000) % 1000), source: 'pyth', publishTime: HOUR / 1000 });
    expect(got.get(USDC)?.usdPrice).toBe(1);
    expect(got.has(WIF)).toBe(false);
    expect(src.covers(WIF)).toBe(false);
  });

  it('rejects an update published after the hour (a feed gap must not lend a later price)', async () => {
    const s = await priceServer({ hermesPrice: hermesHistory, hermesPublishTime: (t) => t + 3600 });
    const src = createHermesSource({ common: createCommon(), url: s.hermesUrl, feeds: KNOWN_PYTH_FEEDS });
    expect((await src.priceAt([SOL], HOUR)).size).toBe(0);
  });

  it('treats 404 as "no price" and 503 as a retryable failure', async () => {
    let status = 404;
    const s = await priceServer({ hermesPrice: hermesHistory, hermesStatus: () => status });
    const src = createHermesSource({ common: createCommon(), url: s.hermesUrl, feeds: KNOWN_PYTH_FEEDS });
    expect((await src.priceAt([SOL], HOUR)).size).toBe(0);
    status = 503;
    const e = await src.priceAt([SOL], HOUR).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).retryable).toBe(true);
  });

  it('retries a transient failure, but not a 404', async () => {
    let n = 0;
    let failWith = 503;
    const s = await priceServer({ hermesPrice: hermesHistory, hermesStatus: () => (n++ === 0 ? failWith : undefined) });
    const src = createHermesSource({ common: createCommon(), url: s.hermesUrl, feeds: KNOWN_PYTH_FEEDS, retryDelayMs: 5 });
    expect((await src.priceAt([SOL], HOUR)).get(SOL)?.source).toBe('pyth');
    expect(s.hermesRequests).toHaveLength(2);
    n = 0;
    failWith = 404;
    expect((await src.priceAt([SOL], HOUR)).size).toBe(0);
    expect(s.hermesRequests).toHaveLength(3);
  });
});

describe('Hermes without a valid key', () => {
  it('answers 401 → retryable, then pauses instead of asking again for every hour', async () => {
    const s = await priceServer({ hermesPrice: hermesHistory, hermesStatus: () => 401 });
    const clock = new ManualClock(HOUR);
    const src = createHermesSource({ common: createCommon({ clock }), url: s.hermesUrl, feeds: KNOWN_PYTH_FEEDS, retryDelayMs: 1 });
    for (let i = 0; i < 3; i++) await expect(src.priceAt([SOL], HOUR - i * 3_600_000)).rejects.toMatchObject({ retryable: true });
    expect(s.hermesRequests).toHaveLength(1);
    clock.advance(600_001);
    await expect(src.priceAt([SOL], HOUR)).rejects.toMatchObject({ retryable: true });
    expect(s.hermesRequests).toHaveLength(2);
  });
});

describe('Jupiter source', () => {
  it('sends x-api-key, asks ≤ 50 ids per request and reuses a current price for other hours', async () => {
    const s = await priceServer({ jupiterPrice: (m) => (m === NOPE ? undefined : m === WIF ? 2.5 : 0.01) });
    const clock = new ManualClock(HOUR + 5 * 60_000);
    const src = createJupiterSource({ common: createCommon({ clock }), url: s.jupiterUrl, apiKey: 'jup-key' });
    const mints = [WIF, NOPE, ...Array.from({ length: 118 }, (_, i) => `Mint${i}`)];
    const got = await src.priceAt(mints, HOUR);
    expect(s.jupiterRequests.map((r) => r.ids.length)).toEqual([50, 50, 20]);
    expect(s.jupiterRequests.every((r) => r.apiKey === 'jup-key')).toBe(true);
    expect(got.get(WIF)).toEqual({ usdPrice: 2.5, source: 'jupiter', publishTime: (HOUR + 5 * 60_000) / 1000 });
    expect(got.has(NOPE)).toBe(false);
    expect(got.size).toBe(119);
    await src.priceAt([WIF], HOUR - 3_600_000 * 24);
    expect(s.jupiterRequests).toHaveLength(3);
    clock.advance(61_000);
    await src.priceAt([WIF], HOUR);
    expect(s.jupiterRequests).toHaveLength(4);
  });
});

describe('Overrides', () => {
  it('reads constant and per-hour prices (ISO or ms keys, floored to the hour)', async () => {
    const src = createOverridesSource({
      common: createCommon(),
      table: { [WIF]: 3, [NOPE]: { default: 0.5, hours: { '2025-06-01T14:30:00Z': 0.7, [String(HOUR + 3_600_000)]: 0.8 } } },
    });
    expect((await src.priceAt([WIF, NOPE], HOUR)).get(NOPE)?.usdPrice).toBe(0.7);
    expect((await src.priceAt([NOPE], HOUR + 3_600_000)).get(NOPE)?.usdPrice).toBe(0.8);
    expect((await src.priceAt([NOPE], HOUR + 7_200_000)).get(NOPE)?.usdPrice).toBe(0.5);
    expect((await src.priceAt([WIF], 0)).get(WIF)).toEqual({ usdPrice: 3, source: 'override', publishTime: null });
  });

  it('rejects bad files naming the entry', () => {
    expect(() => parseOverrides({ [WIF]: -1 })).toThrow(/must be a non-negative number/);
    expect(() => parseOverrides({ [WIF]: { hours: { yesterday: 1 } } })).toThrow(/not an ISO 8601/);
    expect(() => parseOverrides([1, 2])).toThrow(/JSON object keyed by mint/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ovr-'));
    const f = path.join(dir, 'bad.json');
    fs.writeFileSync(f, '{ nope');
    expect(() => createOverridesSource({ common: createCommon(), file: f })).toThrow(/not valid JSON/);
    fs.rmSync(dir, { recursive: true });
  });

  it('re-reads the file when it changes', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ovr-'));
    const f = path.join(dir, 'prices.json');
    fs.writeFileSync(f, JSON.stringify({ [WIF]: 1 }));
    const src = createOverridesSource({ common: createCommon(), file: f });
    expect((await src.priceAt([WIF, NOPE], HOUR)).size).toBe(1);
    fs.writeFileSync(f, JSON.stringify({ [WIF]: 1, [NOPE]: 9 }));
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(f, later, later);
    expect((await src.priceAt([NOPE], HOUR)).get(NOPE)?.usdPrice).toBe(9);
    fs.rmSync(dir, { recursive: true });
  });
});

describe('Price chain (Hermes → Jupiter → overrides)', () => {
  async function setup(script: PriceServerScript) {
    const s = await priceServer(script);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ovr-'));
    const file = path.join(dir, 'o.json');
    fs.writeFileSync(file, JSON.stringify({ [NOPE]: 0.25, [SOL]: 1 }));
    const chain = createPriceSources({ common: createCommon(), hermesUrl: s.hermesUrl, jupiterUrl: s.jupiterUrl, overridesFile: file });
    return { s, chain };
  }

  it('takes each mint from the first source that has it', async () => {
    const { s, chain } = await setup({ hermesPrice: hermesHistory, jupiterPrice: (m) => (m === WIF ? 2 : m === SOL ? 999 : undefined) });
    const got = await chain.priceAt([SOL, WIF, NOPE], HOUR);
    expect(got.get(SOL)?.source).toBe('pyth');
    expect(got.get(WIF)).toMatchObject({ usdPrice: 2, source: 'jupiter' });
    expect(got.get(NOPE)).toMatchObject({ usdPrice: 0.25, source: 'override' });
    // Jupiter is only asked for what Pyth did not price.
    expect(s.jupiterRequests.flatMap((r) => r.ids).sort()).toEqual([NOPE, WIF].sort());
  });

  it('falls through to Jupiter when Hermes has no data for the hour (404)', async () => {
    const { chain } = await setup({ hermesStatus: () => 404, jupiterPrice: (m) => (m === SOL ? 150 : undefined) });
    expect((await chain.priceAt([SOL], HOUR)).get(SOL)).toMatchObject({ usdPrice: 150, source: 'jupiter' });
  });

  it('leaves a Pyth mint un-priced (no fallback) while Hermes is failing transiently', async () => {
    const { s, chain } = await setup({ hermesStatus: () => 503, jupiterPrice: () => 150 });
    const got = await chain.priceAt([SOL, WIF], HOUR);
    expect(got.has(SOL)).toBe(false);
    expect(got.get(WIF)?.source).toBe('jupiter');
    expect(s.jupiterRequests.flatMap((r) => r.ids)).toEqual([WIF]);
  });

  it('continues past a source that throws a non-retryable error', async () => {
    const common = createCommon();
    const broken = { name: 'broken', covers: () => true, priceAt: async () => { throw new AppError('X', 'bad config'); } };
    const fallback = createOverridesSource({ common, table: { [WIF]: 4 } });
    const got = await createPriceChain(common, [broken, fallback]).priceAt([WIF], HOUR);
    expect(got.get(WIF)?.usdPrice).toBe(4);
  });
});
