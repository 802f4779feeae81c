import { isAppError, type Common } from '../core/index.js';
import type { RpcClient } from '../solana/index.js';
import type { Store } from '../store/index.js';

/**
 * Mint decimals (docs/design.md §6: from the mint account over RPC, cached in the store). The store
 * prices a game only when it knows both the decimals and the hour's price, so the indexer
 * resolves decimals before it prices or writes a batch.
 */
export interface MintRegistry {
  /** Fetches and stores decimals of mints not known yet; never throws on RPC failure (logged; retried on the next call). */
  ensure(mints: Iterable<string>, signal?: AbortSignal): Promise<void>;
  decimalsOf(mint: string): number | undefined;
}

/**
 * The mint registry: decimals loaded from the store once, unknown mints asked over RPC
 * (`getMultipleAccounts`, jsonParsed) and stored; mints that are not mint accounts are asked
 * again at most every 10 min (the injected clock).
 */
export function createMintRegistry(o: { common: Common; store: Pick<Store, 'getMints' | 'upsertMints'>; rpc: RpcClient }): MintRegistry {
  const known = new Map<string, number>();
  let loaded: Promise<void> | undefined;
  /** Mints the chain says are not mint accounts: asked again at most every 10 min. */
  const missing = new Map<string, number>();

  const load = () =>
    (loaded ??= o.store.getMints().then((rows) => {
      for (const r of rows) known.set(r.mint, r.decimals);
    }));

  return {
    async ensure(mints, signal) {
      await load();
      const now = o.common.clock.now();
      const todo = [...new Set(mints)].filter((m) => !known.has(m) && now - (missing.get(m) ?? -Infinity) > 600_000);
      if (todo.length === 0) return;
      let found: Map<string, number>;
      try {
        found = await o.rpc.getMintDecimals(todo, { signal });
      } catch (e) {
        if (isAppError(e) && e.code === 'ABORTED') throw e;
        o.common.logger.warn({ mints: todo.length, err: (e as Error).message }, 'mint decimals lookup failed; games stay un-priced until it succeeds');
        return;
      }
      const rows = [...found].map(([mint, decimals]) => ({ mint, decimals }));
      if (rows.length > 0) await o.store.upsertMints(rows);
      for (const r of rows) known.set(r.mint, r.decimals);
      for (const m of todo) if (!found.has(m)) missing.set(m, now);
    },
    decimalsOf: (mint) => known.get(mint),
  };
}
