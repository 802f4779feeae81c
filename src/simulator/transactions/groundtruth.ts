import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { GambaEvent, LocatedEvent } from '../../protocol/index.js';
import { hourOfMs, TOKEN_BY_MINT, type RigRule } from '../chain/index.js';
import type { ChainView } from './view.js';

/**
 * Ground truth: every event a correct indexer must find, oldest first (block order, then
 * event index), with the USD price of one whole token at the event's UTC hour and the token's
 * decimals. Failed transactions carry none; events hidden by the truncated-logs fault are left
 * out (a decoder cannot recover them), except those emitted by self-CPI, which survive in
 * innerInstructions.
 */
export type GroundTruthEvent = LocatedEvent & {
  /** USD per whole token at the event's UTC hour (the Hermes/Jupiter endpoints serve the same). */
  usdPrice: number;
  decimals: number;
  /** GameSettled only, with the fault `rig`: the fairness rule this game was rigged to break (absent when fair). */
  rigged?: RigRule;
};

/** Yields the ground truth up to `maxSlot`, oldest first, rebuilding segment by segment (memory stays bounded). */
export async function* iterateGroundTruth(view: ChainView, maxSlot: number): AsyncGenerator<GroundTruthEvent> {
  const { ledger } = view;
  const tl = ledger.timeline;
  const last = tl.segmentOfSlot(maxSlot);
  for (let s = 0; s <= last; s++) {
    const seg = await ledger.realize(s);
    for (const t of seg.txs) {
      if (t.skel.slot > maxSlot) break;
      if (t.events.length === 0) continue;
      if (!t.skel.emitCpi && view.logsTruncated(t.skel)) continue;
      const signature = view.signature(t.skel);
      const blockTime = tl.blockTime(t.skel.slot);
      for (let i = 0; i < t.events.length; i++) {
        const e = t.events[i]!;
        const token = TOKEN_BY_MINT.get(e.data.tokenMint)!;
        yield {
          ...e,
          signature,
          slot: t.skel.slot,
          blockTime,
          eventIndex: i,
          usdPrice: ledger.prices.at(token, hourOfMs(blockTime * 1000)).usd,
          decimals: token.decimals,
          ...(e.name === 'GameSettled' && t.games[i]?.rigged ? { rigged: t.games[i]!.rigged } : {}),
        } as GroundTruthEvent;
      }
    }
  }
}

/** One NDJSON line: u64 fields as decimal strings. */
export function groundTruthLine(e: GroundTruthEvent): string {
  return JSON.stringify(
    {
      signature: e.signature,
      slot: e.slot,
      blockTime: e.blockTime,
      eventIndex: e.eventIndex,
      name: e.name,
      data: e.data,
      usdPrice: e.usdPrice,
      decimals: e.decimals,
      ...(e.rigged ? { rigged: e.rigged } : {}),
    },
    (_k, v) => (typeof v === 'bigint' ? v.toString() : v),
  );
}

const U64_FIELDS: Record<GambaEvent['name'], readonly string[]> = {
  GameSettled: [
    'creatorFee',
    'gambaFee',
    'poolFee',
    'jackpotFee',
    'underlyingUsed',
    'bonusUsed',
    'wager',
    'payout',
    'payoutFromBonusPool',
    'payoutFromNormalPool',
    'jackpotProbabilityUbps',
    'jackpotResult',
    'nonce',
    'resultIndex',
    'jackpotPayoutToUser',
    'poolLiquidity',
  ],
  PoolChange: ['amount', 'postLiquidity', 'lpSupply'],
  PoolCreated: [],
};

/**
 * Parses one line of `exportEvents` / `simulate --export-events` back into a located event
 * with BigInt amounts (src/protocol/events.ts shapes). Throws on malformed lines.
 */
export function parseGroundTruthLine(line: string): GroundTruthEvent {
  const raw = JSON.parse(line) as Record<string, unknown> & { name: GambaEvent['name']; data: Record<string, unknown> };
  const fields = U64_FIELDS[raw.name];
  if (!fields) throw new SyntaxError(`unknown event name ${JSON.stringify(raw.name)}`);
  const data: Record<string, unknown> = { ...raw.data };
  for (const f of fields) {
    if (typeof data[f] !== 'string' || !/^\d+$/.test(data[f] as string)) throw new SyntaxError(`${raw.name}.${f} must be a decimal string`);
    data[f] = BigInt(data[f] as string);
  }
  return { ...raw, data } as unknown as GroundTruthEvent;
}

/** Writes NDJSON of the ground truth up to `maxSlot`; returns the number of lines. */
export async function exportGroundTruth(view: ChainView, file: string, maxSlot: number): Promise<number> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  let n = 0;
  try {
    let chunk = '';
    for await (const e of iterateGroundTruth(view, maxSlot)) {
      chunk += groundTruthLine(e) + '\n';
      n++;
      if (chunk.length > 1 << 16) {
        if (!out.write(chunk)) await once(out, 'drain');
        chunk = '';
      }
    }
    out.write(chunk);
  } finally {
    out.end();
    await finished(out);
  }
  return n;
}
