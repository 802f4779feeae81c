/**
 * rebuild == incremental (docs/benchmarks.md): the contract fixture is written through the write path the
 * way the indexer does (batches, half the prices late so the re-pricing path runs, one batch
 * replayed), then every derived table (rollups and counters) is read row by row, rebuilt from
 * raw events with `rebuildRollups`, and read again. Integers (plays, hi/lo token sums, times,
 * counters) must be identical; USD doubles may differ only by summation order (1e-9 relative).
 */
import { describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import { createStore } from '../../src/store/index.js';
import { loadFixture } from '../helpers/contract-world.js';
import { generateFixture } from '../helpers/fixture.js';
import { testDialects } from '../helpers/store.js';
import { derivedRows, expectSameDerived, openPlace } from '../helpers/derived.js';

describe.each(testDialects())('rollups rebuild (%s)', (dialect) => {
  it('rebuilding from raw events gives every derived table row for row', async () => {
    const place = await openPlace(dialect, 'rebuild');
    const store = await createStore({ common: createCommon(), config: place.config });
    try {
      const f = generateFixture({ seed: 99, games: 1500, poolChanges: 150 });
      await loadFixture(store, f, 'split');
      // A replayed batch (crash recovery) must change nothing.
      const replay = f.events.slice(0, 300);
      const sigs = [...new Set(replay.map((e) => e.signature))].map((s) => f.signatures.find((x) => x.signature === s)!);
      const again = await store.writeBatch({ events: replay, signatures: sigs });
      expect(again.gamesInserted + again.poolChangesInserted).toBe(0);

      const incremental = await derivedRows(place);
      expect(incremental.get('ru_daily')!.length).toBeGreaterThan(500);
      expect(incremental.get('ru_counter')!.map((r) => r.name)).toEqual(expect.arrayContaining(['players', 'signatures', 'pool_changes', 'unpriced_games']));

      await store.rebuildRollups();
      expectSameDerived(await derivedRows(place), incremental, 'rebuild');

      // Counters against plain counts of the fixture.
      const counter = (name: string) => Number(incremental.get('ru_counter')!.find((r) => r.name === name)?.n ?? 0);
      const games = f.events.filter((e) => e.name === 'GameSettled');
      expect(counter('players')).toBe(new Set(games.map((e) => (e.name === 'GameSettled' ? e.data.user : ''))).size);
      // Per-filter player counters (the leaderboards' totals) against distinct players of the fixture.
      const distinct = (pick: (d: { user: string; creator: string; tokenMint: string; pool: string }) => string) => {
        const m = new Map<string, Set<string>>();
        for (const e of games) if (e.name === 'GameSettled') {
          const k = pick(e.data);
          if (!m.has(k)) m.set(k, new Set());
          m.get(k)!.add(e.data.user);
        }
        return m;
      };
      const shapes: [string, (d: { creator: string; tokenMint: string; pool: string }) => string][] = [
        ['c', (d) => d.creator],
        ['t', (d) => d.tokenMint],
        ['p', (d) => d.pool],
        ['ct', (d) => `${d.creator}:${d.tokenMint}`],
        ['cp', (d) => `${d.creator}:${d.pool}`],
      ];
      for (const [shape, pick] of shapes) {
        const expected = distinct(pick);
        expect(expected.size, shape).toBeGreaterThan(1);
        for (const [k, players] of expected) expect(counter(`players:${shape}:${k}`), `players:${shape}:${k}`).toBe(players.size);
      }
      expect(counter('signatures')).toBe(f.signatures.length);
      expect(counter('pool_changes')).toBe(f.events.filter((e) => e.name === 'PoolChange').length);
      const unpriced = games.filter((e) => e.name === 'GameSettled' && (f.priceOf(e.data.tokenMint, Math.floor(e.blockTime / 3600) * 3_600_000) === undefined || f.decimalsOf(e.data.tokenMint) === undefined)).length;
      expect(counter('unpriced_games')).toBe(unpriced);
      expect(unpriced).toBeGreaterThan(0);

      // ru_pool against plain sums of the fixture: exact token sums, the latest liquidity and LP
      // supply in chain order (slot, event index: the fixture's order), creation.
      const poolRows = incremental.get('ru_pool')!;
      expect(poolRows.map((r) => r.pool).sort()).toEqual(Object.values(f.pools).sort());
      const joined = (r: Record<string, unknown>, n: string) => (BigInt(String(r[`${n}_hi`])) << 32n) + BigInt(String(r[`${n}_lo`]));
      for (const r of poolRows) {
        const gs = games.flatMap((e) => (e.name === 'GameSettled' && e.data.pool === r.pool ? [e.data] : []));
        const events = f.events.filter((e) => e.name !== 'PoolCreated' && e.data.pool === r.pool);
        const lastChange = events.filter((e) => e.name === 'PoolChange').at(-1);
        const last = events.at(-1)!;
        expect(Number(r.plays)).toBe(gs.length);
        expect(joined(r, 'wager')).toBe(gs.reduce((a, g) => a + g.wager, 0n));
        expect(joined(r, 'payout')).toBe(gs.reduce((a, g) => a + g.payout, 0n));
        expect(joined(r, 'pool_fee')).toBe(gs.reduce((a, g) => a + g.poolFee, 0n));
        expect(String(r.liquidity)).toBe(String(last.name === 'GameSettled' ? last.data.poolLiquidity : last.name === 'PoolChange' ? last.data.postLiquidity : ''));
        expect(String(r.lp_supply)).toBe(String(lastChange?.name === 'PoolChange' ? lastChange.data.lpSupply : null));
        expect(Number(r.last_ms)).toBe(last.blockTime * 1000);
      }
      const created = f.events.find((e) => e.name === 'PoolCreated')!;
      const newPool = poolRows.find((r) => r.pool === f.pools.USDC_NEW)!;
      expect(Number(newPool.created_ms)).toBe(created.blockTime * 1000);
      expect(newPool.authority).toBe(created.name === 'PoolCreated' ? created.data.authority : '');
      expect(poolRows.filter((r) => Number(r.created_ms) === -1)).toHaveLength(6);
      // TVL at the token's latest stored price: priced pools > 0, the never-priced token's pool 0.
      expect(Number(poolRows.find((r) => r.pool === f.pools.NOPE)!.tvl_usd)).toBe(0);
      for (const k of ['SOL_A', 'USDC', 'BONK', 'WBTC'] as const) expect(Number(poolRows.find((r) => r.pool === f.pools[k])!.tvl_usd), k).toBeGreaterThan(0);
    } finally {
      await store.close();
      await place.close();
    }
  });
});
