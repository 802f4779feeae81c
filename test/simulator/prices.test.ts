import { HermesClient } from '@pythnetwork/hermes-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, startTestSimulator, type GroundTruthEvent, type TestSim } from '../helpers/simulator.js';

/**
 * The price endpoints work with the real clients' expectations (the Pyth Hermes client v1 parses
 * responses with its zod schemas) and agree with the ground truth's USD prices.
 */
let t: TestSim;
let truth: GroundTruthEvent[];

beforeAll(async () => {
  t = await startTestSimulator({ seed: 9, days: 5, playsPerDay: 200 });
  truth = await collect(t.sim.groundTruth());
});

afterAll(async () => {
  await t.sim.stop();
});

const feedOf = (mint: string) => t.sim.mints.find((m) => m.mint === mint)!.pythFeedId;

describe('Hermes-compatible endpoint', () => {
  it('serves historical prices by publish time through @pythnetwork/hermes-client, equal to the ground truth', async () => {
    const client = new HermesClient(t.sim.hermesUrl, { headers: { Authorization: 'Bearer any-key' } });
    const priced = truth.filter((e) => feedOf(e.data.tokenMint as string));
    const sample = priced.filter((_, i) => i % 41 === 0).slice(0, 40);
    expect(sample.length).toBeGreaterThan(10);
    for (const e of sample) {
      const id = feedOf(e.data.tokenMint as string)!;
      const res = await client.getPriceUpdatesAtTimestamp(e.blockTime, [`0x${id}`], { parsed: true });
      const p = res.parsed![0]!;
      expect(p.id).toBe(id);
      expect(p.price.publish_time).toBe(e.blockTime);
      expect(Number(p.price.price) / 10 ** -p.price.expo).toBe(e.usdPrice);
      expect(res.binary.encoding).toBe('hex');
    }
  });

  it('keeps a price constant within a UTC hour and lets it move between hours', async () => {
    const client = new HermesClient(t.sim.hermesUrl);
    const sol = t.sim.mints.find((m) => m.symbol === 'SOL')!.pythFeedId!;
    const hour = Math.floor(truth[truth.length - 1]!.blockTime / 3600) * 3600;
    const at = async (ts: number) => (await client.getPriceUpdatesAtTimestamp(ts, [sol])).parsed![0]!.price.price;
    expect(await at(hour)).toBe(await at(hour + 3599));
    const hours = await Promise.all([0, 1, 2, 3, 4, 5].map((k) => at(hour - k * 3600)));
    expect(new Set(hours).size).toBeGreaterThan(1);
  });

  it('serves the latest update for several ids, and the feed list', async () => {
    const client = new HermesClient(t.sim.hermesUrl);
    const ids = t.sim.mints.filter((m) => m.pythFeedId).map((m) => m.pythFeedId!);
    const latest = await client.getLatestPriceUpdates(ids);
    expect(latest.parsed!.map((p) => p.id)).toEqual(ids);
    const now = Math.floor((Date.UTC(2025, 5, 1, 12) + 60_000) / 1000);
    for (const p of latest.parsed!) expect(p.price.publish_time).toBe(now);
    const feeds = await client.getPriceFeeds({ query: 'bonk' });
    expect(feeds.map((f) => f.id)).toEqual([t.sim.mints.find((m) => m.symbol === 'BONK')!.pythFeedId]);
  });

  it('answers 404 for unknown feed ids and 400 without ids', async () => {
    const res = await fetch(`${t.sim.hermesUrl}/v2/updates/price/1700000000?ids[]=${'ab'.repeat(32)}`);
    expect(res.status).toBe(404);
    expect((await fetch(`${t.sim.hermesUrl}/v2/updates/price/latest`)).status).toBe(400);
  });
});

describe('Jupiter price v3-compatible endpoint', () => {
  it('returns current prices for known mints (WIF constant = its ground-truth price) and omits unknown ones', async () => {
    const wif = t.sim.mints.find((m) => m.symbol === 'WIF')!;
    expect(wif.pythFeedId).toBeNull();
    const unknown = 'So11111111111111111111111111111111111111113';
    const res = await fetch(`${t.sim.jupiterUrl}?ids=${wif.mint},${t.sim.mints[0]!.mint},${unknown}`, { headers: { 'x-api-key': 'k' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, { usdPrice: number; decimals: number; blockId: number; priceChange24h: number; createdAt: string; liquidity: number }>;
    expect(Object.keys(body).sort()).toEqual([wif.mint, t.sim.mints[0]!.mint].sort());
    expect(body[wif.mint]!.decimals).toBe(6);
    const wifTruth = truth.filter((e) => e.data.tokenMint === wif.mint);
    expect(wifTruth.length).toBeGreaterThan(0);
    for (const e of wifTruth) expect(e.usdPrice).toBe(body[wif.mint]!.usdPrice);
    expect(body[wif.mint]!.priceChange24h).toBe(0);
    expect(body[t.sim.mints[0]!.mint]!.blockId).toBe(t.sim.slot('processed'));
  });
});
