import { decodeCursor, encodeCursor } from '../../core/index.js';
import { STATE_KEYS } from '../checkpoint.js';
import type { LoopRun } from './run.js';
import type { BackfillState, RangeState, TailState } from './state.js';

/**
 * One-time initialisation of an indexer (docs/design.md §5): fixes the backfill's cutoff
 * (BACKFILL_DAYS before the injected clock's now, kept once stored; moved back and the backfill
 * reopened when BACKFILL_DAYS was raised by more than a day) and the tail's starting point (the
 * newest finalized signature when the first backfill starts). Fills `range`, `backfill.done`
 * and `tail.cursor` as it reads them; throws what the store or the RPC throws (the caller retries).
 */
export async function loadCheckpoints(run: LoopRun, o: { backfillDays: number; range: RangeState; backfill: BackfillState; tail: TailState }): Promise<void> {
  const { common, store, rpc, programId, signal } = run.ctx;
  const { range, backfill, tail } = o;
  const desired = Math.floor(common.clock.now() / 1000) - o.backfillDays * 86_400;
  const storedCutoff = Number(await store.getState(STATE_KEYS.backfillCutoff));
  // '' = not done (set when the range is extended; sync-state rows are never deleted).
  backfill.done = Boolean(await store.getState(STATE_KEYS.backfillDone));
  if (!Number.isFinite(storedCutoff) || storedCutoff <= 0) {
    range.cutoff = desired;
    await store.setState({ [STATE_KEYS.backfillCutoff]: String(range.cutoff) });
  } else if (desired < storedCutoff - 86_400) {
    // BACKFILL_DAYS was raised: extend the backfill further back from where it stopped.
    range.cutoff = desired;
    backfill.done = false;
    await store.setState({ [STATE_KEYS.backfillCutoff]: String(range.cutoff), [STATE_KEYS.backfillDone]: '' });
    common.logger.info({ backfill_days: o.backfillDays }, 'backfill range extended');
  } else {
    range.cutoff = storedCutoff;
  }
  tail.cursor = decodeCursor(await store.getState(STATE_KEYS.tailCursor));
  range.tailStart = (await store.getState(STATE_KEYS.tailStart)) ?? undefined;
  if (!tail.cursor) {
    // The tail takes everything newer than the newest finalized signature now; the backfill everything from it back.
    const [newest] = await rpc.getSignaturesForAddress(programId, { limit: 1, commitment: 'finalized', signal });
    if (newest) {
      tail.cursor = { signature: newest.signature, slot: newest.slot, blockTime: newest.blockTime };
      range.tailStart = newest.signature;
      await store.setState({ [STATE_KEYS.tailCursor]: encodeCursor(tail.cursor), [STATE_KEYS.tailStart]: range.tailStart });
    }
  }
}
