/**
 * The fairness audit (docs/design.md §14) against the simulator's ground truth with rigged games
 * (fault `rig`): every rigged game is a violation with its rule and nothing else is; the verdicts
 * are the same whether the history arrives oldest first (tail), newest first in pages
 * (backfill), with replayed batches (crash recovery) or cut at a backfill start; rebuild equals
 * incremental; and GET /audit/fairness (counts, groups, window, violations pages) and the settled
 * games' verdicts equal a brute force that runs the HMAC and SHA-256 itself (test/helpers/fairness-oracle.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import type { LocatedEvent } from '../../src/protocol/index.js';
import type { GroundTruthEvent } from '../../src/simulator/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { derivedRows, expectSameDerived, openPlace, type RawPlace } from '../helpers/derived.js';
import { fairnessOracle, type OracleVerdict } from '../helpers/fairness-oracle.js';
import { simulatedHistory } from '../helpers/simulator.js';
import { testDialects } from '../helpers/store.js';

const DAY = 86_400_000;
let truth: GroundTruthEvent[] = [];
let events: LocatedEvent[] = [];
let mints: { mint: string; decimals: number }[] = [];

beforeAll(async () => {
  ({ truth, events, mints } = await simulatedHistory({ seed: 43, days: 4, playsPerDay: 700, startTimeMs: Date.UTC(2026, 3, 10, 7, 30), faults: 'rig=0.02' }));
});

/** Batches that never split a transaction, in the given order of transactions. */
function batchesOf(list: LocatedEvent[], size: number): LocatedEvent[][] {
  const out: LocatedEvent[][] = [];
  let cur: LocatedEvent[] = [];
  for (let i = 0; i < list.length; i++) {
    cur.push(list[i]!);
    if (cur.length >= size && list[i + 1]?.signature !== list[i]!.signature) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length) out.push(cur);
  return out;
}

async function write(store: Store, batches: LocatedEvent[][]): Promise<void> {
  await store.upsertMints(mints);
  for (const b of batches) await store.writeBatch({ events: b });
}


const verdictMap = (o: Map<string, OracleVerdict>) => new Map([...o].map(([k, v]) => [k, { fairness: v.fairness, rule: v.rule }]));

describe.each(testDialects())('fairness audit (%s)', (dialect) => {
  const places: RawPlace[] = [];
  const stores: Store[] = [];
  let app: TestApp | undefined;
  afterAll(async () => {
    await app?.close();
    for (const s of stores) await s.close();
    for (const p of places) await p.close();
  });
  async function fresh(label: string): Promise<{ place: RawPlace; store: Store }> {
    const place = await openPlace(dialect, label);
    const store = await createStore({ common: createCommon(), config: place.config });
    places.push(place);
    stores.push(store);
    return { place, store };
  }
  async function verdicts(store: Store): Promise<Map<string, { fairness: string; rule: string | null }>> {
    const out = new Map<string, { fairness: string; rule: string | null }>();
    let cursor: import('../../src/store/index.js').KeysetPosition | undefined;
    for (;;) {
      const page = await store.queries.settledGames({ orderBy: 'time', sorting: 'ASC', page: 0, itemsPerPage: 500, onlyJackpots: false, after: cursor });
      for (const g of page.results) out.set(`${g.signature}:${g.event_index}`, { fairness: g.fairness, rule: g.fairness_rule });
      if (!page.next) break;
      cursor = page.next;
    }
    return out;
  }

  it('in order, newest-first pages with replays, and a cut history: the oracle\'s verdicts; rigged games found with their rule; rebuild == incremental', async () => {
    const oracle = fairnessOracle(events);
    const rigged = new Map(truth.filter((e) => e.rigged).map((e) => [`${e.signature}:${e.eventIndex}`, e.rigged]));
    expect(rigged.size).toBeGreaterThan(10);

    // Tail: oldest first.
    const a = await fresh('fair_in');
    await write(a.store, batchesOf(events, 150));
    const inOrder = await verdicts(a.store);
    expect(inOrder).toEqual(verdictMap(oracle));
    const violations = new Map([...inOrder].filter(([, v]) => v.fairness === 'violation').map(([k, v]) => [k, v.rule]));
    expect(violations).toEqual(rigged);

    // Backfill: pages newest first (each page oldest first inside), every third page replayed.
    const b = await fresh('fair_back');
    const pages = batchesOf(events, 120).reverse();
    const replayed: LocatedEvent[][] = [];
    pages.forEach((p, i) => {
      replayed.push(p);
      if (i % 3 === 1) replayed.push(p, pages[i - 1]!);
    });
    await write(b.store, replayed);
    expect(await verdicts(b.store)).toEqual(inOrder);
    const incremental = await derivedRows(b.place);
    expectSameDerived(incremental, await derivedRows(a.place), 'backfill vs tail');
    expect(incremental.get('ru_fair_day')!.length).toBeGreaterThan(100);
    await b.store.rebuildRollups();
    expectSameDerived(await derivedRows(b.place), incremental, 'rebuild');
    expect(await verdicts(b.store)).toEqual(inOrder);

    // A backfill that starts mid-history: the players' first indexed games are first_seen.
    const c = await fresh('fair_cut');
    const cutMs = events[0]!.blockTime * 1000 + 2 * DAY;
    const cut = events.filter((e) => e.blockTime * 1000 >= cutMs);
    await write(c.store, batchesOf(cut, 200).reverse());
    const cutOracle = fairnessOracle(cut);
    expect(await verdicts(c.store)).toEqual(verdictMap(cutOracle));
    expect([...cutOracle.values()].filter((v) => v.rule === 'first_seen').length).toBeGreaterThan(20);
  });

  it('GET /audit/fairness: counts (overall, grouped, filtered, cut-day windows) and violation pages equal the brute force', async () => {
    const { store } = await fresh('fair_api');
    await write(store, batchesOf(events, 300));
    app = await buildTestApp({ store });
    const get = async (qs: string) => {
      const res = await fetch(`${app!.baseUrl}/audit/fairness?${qs}`, { headers: { 'x-api-key': app!.key } });
      expect(res.status, qs).toBe(200);
      return (await res.json()) as any;
    };
    const oracle = [...fairnessOracle(events).values()];
    const countsOf = (vs: OracleVerdict[]) => {
      const c = {
        games: vs.length,
        verified: 0,
        unverifiable: 0,
        violation: 0,
        violations: { commitment: 0, result_index: 0, multiplier: 0, payout: 0 } as Record<string, number>,
        unverifiableReasons: { first_seen: 0, no_bet: 0, not_audited: 0 } as Record<string, number>,
      };
      for (const v of vs) {
        c[v.fairness]++;
        if (v.fairness === 'violation') c.violations[v.rule!]!++;
        if (v.fairness === 'unverifiable') c.unverifiableReasons[v.rule!]!++;
      }
      return c;
    };
    const t0 = Math.min(...oracle.map((v) => v.timeMs));
    const t1 = Math.max(...oracle.map((v) => v.timeMs));
    // A window cut inside its first and last UTC days.
    const ws = Math.floor(t0 / DAY) * DAY + DAY + 5_123_000;
    const we = Math.floor(t1 / DAY) * DAY + 7_777_000;
    // Open windows from inside the second UTC day (most days after it) and inside the last one.
    const early = Math.floor(t0 / DAY) * DAY + DAY + 1_234;
    const late = Math.floor(t1 / DAY) * DAY + 3_000_000;
    const creator = oracle[0]!.creator;
    const player = oracle.find((v) => v.fairness === 'violation')!.player;
    const cases: [string, (v: OracleVerdict) => boolean][] = [
      ['', () => true],
      [`creator=${creator}`, (v) => v.creator === creator],
      [`player=${player}`, (v) => v.player === player],
      [`pool=${oracle[5]!.pool}&token=${oracle[5]!.token}`, (v) => v.pool === oracle[5]!.pool],
      [`startTime=${ws}&endTime=${we}`, (v) => v.timeMs >= ws && v.timeMs < we],
      [`startTime=${ws}&endTime=${ws + 3_600_000}`, (v) => v.timeMs >= ws && v.timeMs < ws + 3_600_000],
      [`creator=${creator}&startTime=${new Date(ws).toISOString()}`, (v) => v.creator === creator && v.timeMs >= ws],
      // Open windows holding most days (all time minus the days before) and few (the days themselves).
      [`startTime=${early}`, (v) => v.timeMs >= early],
      [`creator=${creator}&startTime=${early}`, (v) => v.creator === creator && v.timeMs >= early],
      [`startTime=${late}`, (v) => v.timeMs >= late],
    ];
    for (const [qs, keep] of cases) {
      const want = oracle.filter(keep);
      const body = await get(qs);
      expect(body.counts, qs).toEqual(countsOf(want));
      expect(body.groups, qs).toBeNull();
      // Every violation, newest first, through pages of 4.
      const seen: any[] = [...body.violations];
      let next = body.nextCursor;
      while (seen.length < 1000 && next) {
        const page = await get(`${qs}${qs ? '&' : ''}limit=4&cursor=${next}`);
        seen.push(...page.violations);
        next = page.nextCursor;
      }
      const wantViolations = want
        .filter((v) => v.fairness === 'violation')
        .sort((x, y) => y.timeMs - x.timeMs || (x.signature < y.signature ? 1 : x.signature > y.signature ? -1 : y.eventIndex - x.eventIndex))
        .map((v) => ({ signature: v.signature, time: v.timeMs, user: v.player, creator: v.creator, token: v.token, pool: v.pool, rule: v.rule }));
      expect(seen, qs).toEqual(wantViolations);
    }
    for (const [groupBy, start] of [['creator', ws], ['pool', ws], ['player', ws], ['creator', early], ['pool', early]] as const) {
      const body = await get(`groupBy=${groupBy}&startTime=${start}`);
      const inWindow = oracle.filter((v) => v.timeMs >= start);
      const keyOf = (v: OracleVerdict) => (groupBy === 'creator' ? v.creator : groupBy === 'pool' ? v.pool : v.player);
      const byKey = new Map<string, OracleVerdict[]>();
      for (const v of inWindow) byKey.set(keyOf(v), [...(byKey.get(keyOf(v)) ?? []), v]);
      const want = [...byKey]
        .map(([key, vs]) => ({ key, counts: countsOf(vs) }))
        .sort((x, y) => y.counts.violation - x.counts.violation || y.counts.games - x.counts.games || (x.key < y.key ? -1 : 1))
        .slice(0, 100);
      expect(body.groupsTotal, groupBy).toBe(byKey.size);
      expect(body.groups, groupBy).toEqual(want);
    }
    // Invalid parameters: 400 naming the parameter.
    for (const [qs, name] of [['groupBy=token', 'groupBy'], ['limit=0', 'limit'], ['startTime=5&endTime=4', 'endTime'], ['cursor=abc', 'cursor'], ['player=xyz', 'player'], ['groupBy=player', 'groupBy']] as const) {
      const res = await fetch(`${app.baseUrl}/audit/fairness?${qs}`, { headers: { 'x-api-key': app.key } });
      expect(res.status, qs).toBe(400);
      expect(((await res.json()) as any).error, qs).toContain(`'${name}'`);
    }
    // The settled-game record carries the verdict.
    const res = await fetch(`${app.baseUrl}/events/settledGames?itemsPerPage=200&user=${player}`, { headers: { 'x-api-key': app.key } });
    const games = ((await res.json()) as any).results as any[];
    // (A batch settle holds several games: the record has no event index, so compare per signature and player.)
    const byGame = new Map<string, { fairness: string; rule: string | null }[]>();
    for (const v of oracle) byGame.set(`${v.signature} ${v.player}`, [...(byGame.get(`${v.signature} ${v.player}`) ?? []), { fairness: v.fairness, rule: v.rule }]);
    expect(games.length).toBeGreaterThan(0);
    for (const g of games) expect(byGame.get(`${g.signature} ${g.user}`)).toContainEqual({ fairness: g.fairness, rule: g.fairness_rule });
  });
});
