import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.js';
import { GAMBA_PROGRAM_ID } from '../../src/protocol/index.js';
import { createChainClock, createEconomy, createFaultDice, createLedger, createPriceBook, createTimeline, normalizeFaults, slotTimeMs } from '../../src/simulator/chain/index.js';
import { canonicalJson } from '../../src/simulator/json/index.js';
import { createChainView, renderTransaction, renderTransactionJsonText } from '../../src/simulator/transactions/index.js';
import { START_MS } from '../helpers/simulator.js';

/**
 * The `json` answer of getTransaction is written straight to text (renderTransactionJsonText);
 * it must be byte for byte the canonical JSON of the object rendering it replaced, for every
 * kind of transaction the chain holds (plays, settles with one or two games, emit_cpi, pool
 * operations and creations, player accounts, fee distribution, failures, v0 lookups, truncated logs).
 */
describe('getTransaction json text', () => {
  it('equals canonicalJson(renderTransaction(…, "json", …)) for every transaction, with and without version', async () => {
    const seed = 11;
    const timeline = createTimeline(START_MS, 3);
    const prices = createPriceBook(seed);
    const economy = await createEconomy({ seed, historySegments: timeline.historySegments, playsPerDay: 400, liveRate: 0, startTimeMs: START_MS, historyStartMs: slotTimeMs(timeline.historyStartSlot), prices });
    const ledger = createLedger({ seed, playsPerDay: 400, liveRate: 0, timeline, economy, prices });
    const clock = createChainClock(START_MS, new ManualClock(START_MS + 60_000));
    const dice = createFaultDice(seed, normalizeFaults('truncate=0.3'));
    const view = createChainView({ seed, ledger, clock, faults: () => dice });
    const kinds = new Set<string>();
    let compared = 0;
    let truncated = 0;
    for (let seg = 0; seg < timeline.historySegments; seg++) {
      const real = await ledger.realize(seg);
      for (const tx of real.txs) {
        const c = view.build(tx);
        kinds.add(`${tx.skel.kind}${tx.skel.v0 ? ':v0' : ''}${tx.skel.emitCpi ? ':cpi' : ''}${tx.skel.fail ? ':fail' : ''}`);
        if (view.logsTruncated(tx.skel) && tx.events.length > 0) truncated++;
        for (const withVersion of [true, false]) {
          expect(renderTransactionJsonText(c, withVersion)).toBe(canonicalJson(renderTransaction(c, 'json', withVersion)));
        }
        compared++;
      }
    }
    expect(view.matcher(GAMBA_PROGRAM_ID)).not.toBeNull();
    expect(compared).toBeGreaterThan(2000);
    expect(truncated).toBeGreaterThan(0);
    for (const k of ['play', 'play:v0', 'settle:v0', 'settle:v0:cpi', 'poolOp', 'poolInit']) expect([...kinds]).toContain(k);
    expect([...kinds].some((k) => k.endsWith(':fail'))).toBe(true);
  });
});
