import type { LoopRun } from './run.js';

/** The re-pricing job of one indexer. */
export interface RepriceLoop {
  /** One pass: prices up to 500 un-priced (mint, hour) pairs whose mint decimals are known; returns games re-priced. Throws what the store throws. */
  repriceNow(): Promise<number>;
  /** Runs `repriceNow` every `intervalMs` until the indexer stops; failures are logged. */
  run(): Promise<void>;
}

/**
 * The re-pricing job (docs/design.md §6): games stored without a price are re-priced — rollups
 * included — when their (mint, hour) price becomes available. `intervalMs`: time between passes, ms.
 */
export function createRepriceLoop(r: LoopRun, o: { intervalMs: number }): RepriceLoop {
  const { common, store, mints, pricer, signal } = r.ctx;
  async function repriceNow(): Promise<number> {
    const pairs = await store.unpricedHours(500);
    if (pairs.length === 0) return 0;
    await mints.ensure(
      pairs.map((p) => p.mint),
      signal,
    );
    const { repriced } = await pricer.ensure(pairs.filter((p) => mints.decimalsOf(p.mint) !== undefined));
    if (repriced > 0) common.logger.info({ games: repriced }, 'games re-priced');
    return repriced;
  }
  return {
    repriceNow,
    async run() {
      while (!r.stopped()) {
        await r.pause(o.intervalMs);
        if (r.stopped()) return;
        await repriceNow().catch((e) => {
          if (!r.isAbort(e)) common.logger.warn({ err: (e as Error).message }, 're-pricing failed');
        });
      }
    },
  };
}
