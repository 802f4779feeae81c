/**
 * The helius history source's requests and its guards (docs/indexer.md "Chain sources"): the
 * filters it sends, pagination by token, resume by the cursor's slot, the top of a fresh
 * backfill bounding the first page — and a page without that top (a provider's index behind the
 * node) counted as blocked rather than skipping history.
 */
import { describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import type { IngestContext } from '../../src/ingest/batch.js';
import { createHeliusHistory, createRpcHistory } from '../../src/ingest/sources/index.js';
import type { AddressTransaction, AddressTransactionsQuery, RpcClient } from '../../src/solana/index.js';

const tx = (sig: string, slot: number, err: unknown = null): AddressTransaction => ({
  slot,
  blockTime: 1_700_000_000 + slot,
  transactionIndex: 0,
  meta: { err, logMessages: [] },
  transaction: { signatures: [sig], message: { accountKeys: [] } },
});

function context(pages: { data: AddressTransaction[]; paginationToken: string | null }[], slots: Record<string, number> = {}) {
  const queries: AddressTransactionsQuery[] = [];
  const rpc = {
    getTransactionsForAddress: async (_a: string, q: AddressTransactionsQuery) => {
      queries.push({ ...q, signal: undefined });
      return pages.shift() ?? { data: [], paginationToken: null };
    },
    getSignatureSlots: async (sigs: string[]) => sigs.map((s) => slots[s] ?? null),
  } as unknown as RpcClient;
  const ctx = {
    common: createCommon(),
    store: { knownSignatures: async (s: string[]) => new Set(s.filter((x) => x.startsWith('known'))) },
    rpc,
    programId: 'Gamba2hK6KV3quKq854B3sQG1WMdq3zgQLPKqyK4qS18',
    signal: new AbortController().signal,
  } as unknown as IngestContext;
  return { ctx, queries };
}

describe('helius history source', () => {
  it('first page: bounded by the top slot, starts at the top, follows the token; failed listed, known not decoded', async () => {
    const { ctx, queries } = context(
      [
        { data: [tx('newer', 50), tx('top', 50), tx('failed', 49, { InstructionError: [0, { Custom: 1 }] }), tx('known1', 48)], paginationToken: '48:0' },
        { data: [tx('old', 40)], paginationToken: null },
      ],
      { top: 50 },
    );
    const h = createHeliusHistory(ctx, 1000);
    expect(h.pageSize).toBe(100);
    const first = h.page({}, { cutoff: 1_700_000_000, top: 'top' });
    const l = await first.listing;
    expect(l.sigs.map((s) => s.signature)).toEqual(['top', 'failed', 'known1']);
    expect(l).toMatchObject({ reachedEnd: false, next: '48:0' });
    const f = await first.fetched;
    expect([...f.known]).toEqual(['known1']);
    expect([...f.txs.keys()]).toEqual(['top']);
    expect(queries[0]).toMatchObject({ sortOrder: 'desc', limit: 100, commitment: 'finalized', filters: { blockTime: { gte: 1_700_000_000 }, status: 'any', slot: { lte: 50 } } });
    const second = await h.page({ next: l.next }, { cutoff: 1_700_000_000 }).listing;
    expect(second).toMatchObject({ reachedEnd: true, next: undefined });
    expect(queries[1]).toMatchObject({ paginationToken: '48:0' });
    expect(queries[1]!.filters!.slot).toBeUndefined();
  });

  it('a first page without the top is blocked (nothing listed), not skipped', async () => {
    const { ctx } = context([{ data: [tx('older', 40)], paginationToken: null }], { top: 50 });
    const l = await createHeliusHistory(ctx, 100).page({}, { cutoff: 0, top: 'top' }).listing;
    expect(l).toMatchObject({ sigs: [], blocked: true, reachedEnd: false, next: undefined });
  });

  it('resumes from a cursor by its slot; the cutoff ends the range', async () => {
    const { ctx, queries } = context([{ data: [tx('known-same-slot', 30), tx('a', 29), tx('too-old', 5)], paginationToken: '5:0' }]);
    const l = await createHeliusHistory(ctx, 100).page({ cursor: { signature: 'c', slot: 30, blockTime: null } }, { cutoff: 1_700_000_010 }).listing;
    expect(queries[0]!.filters!.slot).toEqual({ lte: 30 });
    expect(l.sigs.map((s) => s.signature)).toEqual(['known-same-slot', 'a']);
    expect(l.reachedEnd).toBe(true);
  });

  it('costs ⌈n / 100⌉ + 1 requests; the rpc source ⌈n / pageSize⌉ + n', () => {
    const { ctx } = context([]);
    expect(createHeliusHistory(ctx, 1000).requestsFor(1_000_000)).toBe(10_001);
    expect(createRpcHistory(ctx, 1000).requestsFor(1_000_000)).toBe(1_001_000);
  });
});
