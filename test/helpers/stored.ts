import type { LocatedEvent } from '../../src/protocol/index.js';
import type { KeysetPosition, Store } from '../../src/store/index.js';

/**
 * What the store holds, read back through its public queries, as a sorted multiset of
 * "signature kind field…" lines — so "no loss, no duplicate" is a plain array equality with the
 * same lines built from the truth's events.
 */
export async function storedEventLines(store: Store, pools: string[]): Promise<string[]> {
  const lines: string[] = [];
  let after: KeysetPosition | undefined;
  for (;;) {
    const page = await store.queries.settledGames({ itemsPerPage: 200, page: 0, after, onlyJackpots: false, orderBy: 'time', sorting: 'ASC' });
    for (const g of page.results) lines.push(`${g.signature} GameSettled ${g.user} ${g.token} ${g.wager} ${g.payout} ${g.jackpot} ${g.time}`);
    if (!page.next) break;
    after = page.next;
  }
  for (const pool of pools) {
    let c: KeysetPosition | undefined;
    for (;;) {
      const page = await store.queries.poolChanges({ pool, itemsPerPage: 200, page: 0, after: c });
      for (const p of page.results) lines.push(`${p.signature} PoolChange ${p.user} ${p.token} ${p.amount} ${p.post_liquidity} ${p.lp_supply} ${p.time}`);
      if (!page.next) break;
      c = page.next;
    }
  }
  return lines.sort();
}

export function expectedEventLines(events: LocatedEvent[]): string[] {
  const lines: string[] = [];
  for (const e of events) {
    const time = e.blockTime * 1000;
    if (e.name === 'GameSettled') {
      const d = e.data;
      lines.push(`${e.signature} GameSettled ${d.user} ${d.tokenMint} ${d.wager} ${d.payout} ${d.jackpotPayoutToUser} ${time}`);
    } else if (e.name === 'PoolChange') {
      const d = e.data;
      lines.push(`${e.signature} PoolChange ${d.user} ${d.tokenMint} ${d.amount} ${d.postLiquidity} ${d.lpSupply} ${time}`);
    }
  }
  return lines.sort();
}

export function poolsOf(events: LocatedEvent[]): string[] {
  return [...new Set(events.filter((e) => e.name === 'PoolChange').map((e) => e.data.pool))];
}
