import { openGeyserStream, type GeyserStream } from '../../solana/index.js';
import type { LoopRun } from '../loops/run.js';
import type { TailLoop } from '../loops/tail-loop.js';

/** LIVE_SOURCE: how the tail learns of new transactions (docs/indexer.md "Chain sources"). */
export type LiveSourceKind = 'poll' | 'yellowstone';

/** The live source kinds, for the configuration's schema. */
export const LIVE_SOURCES: readonly LiveSourceKind[] = ['poll', 'yellowstone'];

/** LIVE_SOURCE=yellowstone's endpoint: YELLOWSTONE_URL and YELLOWSTONE_TOKEN (`x-token`). */
export interface YellowstoneOptions {
  url: string;
  token?: string;
}

/** The Yellowstone live source of one indexer. */
export interface YellowstoneLive {
  /** Whether a subscription is open now. */
  readonly connected: boolean;
  /** Connects, gap-fills and streams until the indexer stops; reconnects with backoff. */
  run(): Promise<void>;
  /** Ends the open stream (the indexer is stopping). */
  close(): void;
}

/**
 * LIVE_SOURCE=yellowstone (docs/indexer.md "Chain sources"): a Yellowstone gRPC subscription at
 * `confirmed` to the program's transactions (src/solana/geyser-stream.ts) feeds the tail slot by
 * slot (TailLoop.enqueueSlot: the same commit, checkpoint and known-signature rules as a tail
 * pass). Each time the subscription is acknowledged — the first time and after every drop — one
 * tail pass over history (getSignaturesForAddress `until` the tail cursor) fills what the stream
 * did not carry while it was down; slots streamed meanwhile queue behind that pass. The poll loop
 * keeps running as the safety net. A drop is logged and retried after the indexer's backoff.
 */
export function createYellowstoneLive(r: LoopRun, tail: TailLoop, o: YellowstoneOptions): YellowstoneLive {
  const { logger, metrics } = r.ctx.common;
  let stream: GeyserStream | undefined;
  return {
    get connected() {
      return stream !== undefined;
    },
    async run() {
      for (let failures = 0; !r.stopped(); ) {
        try {
          const s = await openGeyserStream({
            common: r.ctx.common,
            url: o.url,
            token: o.token,
            address: r.ctx.programId,
            commitment: 'confirmed',
            onSlot: (slot) => void tail.enqueueSlot(slot),
          });
          if (r.stopped()) {
            s.close();
            return;
          }
          stream = s;
          logger.info({ reconnect: failures > 0 }, 'yellowstone stream subscribed; filling the gap from history');
          await tail.enqueuePass('gap-fill');
          failures = 0;
          const err = await s.ended;
          stream = undefined;
          if (r.stopped()) return;
          metrics.rpcErrors.inc({ method: 'yellowstone.subscribe', kind: 'stream_ended' });
          logger.warn({ err: err?.message ?? null }, 'yellowstone stream ended; reconnecting');
          await r.pause(r.backoff(0));
        } catch (e) {
          stream = undefined;
          if (r.isAbort(e)) return;
          metrics.rpcErrors.inc({ method: 'yellowstone.subscribe', kind: 'connect' });
          logger.warn({ err: (e as Error).message, failures }, 'yellowstone subscription failed; retrying');
          await r.pause(r.backoff(failures++));
        }
      }
    },
    close() {
      stream?.close();
      stream = undefined;
    },
  };
}
