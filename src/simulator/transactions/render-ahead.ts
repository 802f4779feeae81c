import { renderTransactionJsonBytes } from './txjson.js';
import type { ChainView } from './view.js';

/**
 * Renders every transaction of the history segments `[0, segments)` ahead of time
 * (docs/simulator.md "Scale and limits": the `renderAhead` option). A benchmark's RPC node must
 * not be what it measures: rendering an answer costs the simulator ≈ 250–350 µs of CPU (most of
 * it `bs58` of instruction data), so one core serves ≈ 3,000 answers/s, while an indexer
 * backfilling 5,000 games/s asks for more than 10,000. With the answers rendered first, serving
 * one is a lookup and a copy. Memory: ≈ 6 KB per transaction (≈ 650 MB for 50,000 games).
 * Yields to the event loop between segments, so the node keeps answering meanwhile.
 *
 * The answers are the `result` bytes of the request indexers send (`encoding: "json"` with
 * `maxSupportedTransactionVersion`), written by the same renderer as an answer rendered on
 * request, so serving one is byte-identical (test/simulator/determinism.test.ts). Transactions
 * the truncated-logs fault applies to are left out, and the RPC handler serves a kept answer only
 * while that fault does not apply to it.
 */
export async function renderAhead(view: ChainView, segments: number): Promise<void> {
  for (let seg = 0; seg < segments; seg++) {
    const real = await view.ledger.realize(seg);
    for (const tx of real.txs) {
      if (view.logsTruncated(tx.skel)) continue;
      view.rendered.set(view.signature(tx.skel), renderTransactionJsonBytes(view.build(tx), true));
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
