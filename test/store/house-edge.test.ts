/**
 * The house-edge facts of a game (docs/design.md §10) at their edges, through the write path and
 * through migration 0008's fill from games.data: the game kind from odd metadata, the expected
 * payout floored and past 2^64, wins (payout > wager, not ≥), and /house-edge's sums of them.
 */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { getBase58Codec } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { createCommon } from '../../src/core/index.js';
import type { GameSettled, LocatedEvent } from '../../src/protocol/index.js';
import { postgresAdapter, sqliteAdapter } from '../../src/store/dialect.js';
import { createMigrator } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/index.js';
import { openPlace, tableColumns, type RawPlace } from '../helpers/derived.js';
import { testDialects } from '../helpers/store.js';

const b58 = getBase58Codec();
const bytes = (n: number, len: number, last: number) => {
  const b = new Uint8Array(len);
  b[0] = n & 0xff;
  b[1] = (n >> 8) & 0xff;
  b[len - 1] = last;
  return b58.decode(b);
};
const [user, creator, pool] = [1, 2, 3].map((n) => bytes(n, 32, 5));
const MINT = 'So11111111111111111111111111111111111111112';
const U64_MAX = 2n ** 64n - 1n;

/** [metadata, bet, wager, payout, expected game kind, expected payout (written out by hand)] */
const CASES: [string, number[], bigint, bigint, string, bigint][] = [
  ['0:flip', [20000, 0], 1_000n, 2_000n, 'flip', 1_000n],
  ['0:dice:under-50:x', [0, 19600], 10_001n, 0n, 'dice', 9_800n], // 10001 × 19600 / 20000 = 9800.98 → 9800
  ['flip', [20000, 0], 5n, 5n, 'unknown', 5n], // payout = wager: not a win
  ['0::heads', [10000], 7n, 8n, 'unknown', 7n],
  ['', [3, 3, 4], 7n, 0n, 'unknown', 0n], // 7 × 10 / 30000 → 0
  [`0:${'k'.repeat(64)}`, [], 9n, 10n, 'k'.repeat(64), 0n], // empty bet table expects 0
  [`0:${'k'.repeat(65)}`, [10000], 9n, 0n, 'unknown', 9n],
  ['1:flip:heads', [15000], 2n, 3n, 'unknown', 3n],
  ['0:crash', [4294967295], U64_MAX, 1n, 'crash', 7922816249581759351553943n], // ⌊(2^64−1)(2^32−1)/10^4⌋ > 2^64
];

function events(): LocatedEvent[] {
  return CASES.map(([metadata, bet, wager, payout], i) => ({
    name: 'GameSettled',
    signature: bytes(100 + i, 64, 9),
    slot: 300_000_000 + i,
    blockTime: 1_750_000_000 + i * 3600,
    eventIndex: 0,
    data: {
      user, pool, tokenMint: MINT, creator,
      creatorFee: 0n, gambaFee: 0n, poolFee: 0n, jackpotFee: 0n, underlyingUsed: wager, bonusUsed: 0n, wager, payout,
      multiplierBps: bet[0] ?? 0, payoutFromBonusPool: 0n, payoutFromNormalPool: payout, jackpotProbabilityUbps: 0n, jackpotResult: 0n,
      nonce: BigInt(i), clientSeed: 'c', resultIndex: 0n, bet, jackpotPayoutToUser: 0n, poolLiquidity: 10n ** 12n,
      rngSeed: 'r', nextRngSeedHashed: 'h', metadata,
    } satisfies GameSettled,
  }));
}

function kyselyOn(place: RawPlace): Kysely<any> {
  if (place.config.kind === 'sqlite') return new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(place.config.path) }) });
  const p = new pg.Pool({ connectionString: place.config.url, max: 2, options: `-c search_path=${place.config.schema}` });
  return new Kysely({ dialect: new PostgresDialect({ pool: p }) });
}

const gameFacts = async (db: Kysely<any>) =>
  (await db.selectFrom('games').select(['signature', 'expected_payout', 'expected_hi', 'expected_lo', 'game_kind']).orderBy('slot').execute()).map((r) => ({
    kind: r.game_kind as string,
    expected: BigInt(r.expected_payout as string),
    halves: BigInt(r.expected_hi as string) * 2n ** 32n + BigInt(r.expected_lo as string),
  }));

describe.each(testDialects())('house-edge facts (%s)', (dialect) => {
  it('the write path and migration 0008 store the same game kind and expected payout; /house-edge sums them', async () => {
    const written = await openPlace(dialect, 'edge_w');
    const upgraded = await openPlace(dialect, 'edge_u');
    const db = kyselyOn(written);
    const udb = kyselyOn(upgraded);
    try {
      const store = await createStore({ common: createCommon(), config: written.config });
      const evs = events();
      await store.writeBatch({ events: evs, signatures: evs.map((e) => ({ signature: e.signature, slot: e.slot, blockTime: e.blockTime, failed: false })) });

      const facts = await gameFacts(db);
      expect(facts).toEqual(CASES.map(([, , , , kind, expected]) => ({ kind, expected, halves: expected })));

      const byGame = await store.queries.houseEdge({ groupBy: 'game', limit: 100 });
      const kinds = [...new Set(CASES.map((c) => c[4]))].sort();
      expect(byGame.results.map((r) => r.key)).toEqual(kinds);
      for (const kind of kinds) {
        const mine = CASES.filter((c) => c[4] === kind);
        const row = byGame.results.find((r) => r.key === kind)!;
        expect(row.plays).toBe(mine.length);
        expect(row.wins).toBe(mine.filter((c) => c[3] > c[2]).length);
        expect(row.wager).toBe(mine.reduce((s, c) => s + c[2], 0n));
        expect(row.expected_payout).toBe(mine.reduce((s, c) => s + c[5], 0n));
      }
      // The same from ru_daily (a player filter) and from raw games only (a window inside one day).
      const byPlayer = await store.queries.houseEdge({ groupBy: 'player', user, limit: 10 });
      expect(byPlayer.results.map((r) => [r.plays, r.expected_payout])).toEqual([[CASES.length, CASES.reduce((s, c) => s + c[5], 0n)]]);
      const last = evs[evs.length - 1]!.blockTime * 1000;
      const raw = await store.queries.houseEdge({ groupBy: 'token', startTime: last, endTime: last + 1, limit: 10 });
      expect(raw.results.map((r) => [r.plays, r.expected_payout, r.wins])).toEqual([[1, CASES.at(-1)![5], 0]]);
      await store.close();

      // Migration 0008 fills the same facts from games.data on a database that predates it.
      const adapter = dialect === 'sqlite' ? sqliteAdapter : postgresAdapter;
      const migrator = createMigrator(udb, adapter, upgraded.config.kind === 'postgres' ? upgraded.config.schema : undefined);
      expect((await migrator.migrateTo('0006_pools')).error).toBeUndefined();
      // The upgraded place's own games table (other schemas of the test database have theirs).
      const columns = await tableColumns(upgraded, udb, 'games');
      const rows = await db.selectFrom('games').select(columns).execute();
      await udb.insertInto('games').values(rows).execute();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expect(await gameFacts(udb)).toEqual(facts);
    } finally {
      await db.destroy();
      await udb.destroy();
      await written.close();
      await upgraded.close();
    }
  });
});
