import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialect.js';
import type { Database } from '../schema.js';
import type { Queries } from '../types.js';
import { chartDaoUsd, chartPlays } from './charts.js';
import { counts, freshness } from './counts.js';
import { fairnessAudit } from './audit.js';
import { poolChanges, settledGames } from './events.js';
import { platforms } from './platforms.js';
import { player, players } from './players.js';
import { pool, pools } from './pool-entries.js';
import { daily, platformsByPool, ratio, tokens, total } from './pools.js';
import { stats } from './stats.js';
import { biggestWins, houseEdge } from './house-edge.js';
import { lpPrice, poolReturns } from './lp-returns.js';
import { coverageReport, coverageSignatures, coverageSummary } from './coverage.js';
import { partVectorsOf, PART_VECTORS_MIB } from './part-vectors.js';
import { prefetchTopN } from './topn.js';

export { PART_VECTORS_MIB };

/**
 * Sets up a serving connection's in-memory state when it opens (docs/design.md §7 "Part vectors"):
 * part copies of up to `copiesMiB` MiB (0: none), whose USD profit lists start reading in the
 * background. Errors of those reads end them quietly.
 */
export function warmQueries(db: Kysely<Database>, copiesMiB: number = PART_VECTORS_MIB): void {
  partVectorsOf(db, copiesMiB);
  prefetchTopN(db);
}

/** The read side of the store (src/store/types.ts Queries), bound to one database. */
export function createQueries(db: Kysely<Database>, a: DialectAdapter): Queries {
  return {
    counts: () => counts(db),
    freshness: () => freshness(db),
    stats: (q) => stats(db, a, q),
    player: (q) => player(db, q),
    players: (q) => players(db, a, q),
    settledGames: (q) => settledGames(db, a, q),
    fairnessAudit: (q) => fairnessAudit(db, q),
    poolChanges: (q) => poolChanges(db, q),
    platforms: (q) => platforms(db, a, q),
    platformsByPool: (pool) => platformsByPool(db, pool),
    tokens: (q) => tokens(db, q),
    ratio: (q) => ratio(db, q),
    total: (pool) => total(db, pool),
    daily: (q) => daily(db, a, q),
    pools: (q) => pools(db, q),
    pool: (q) => pool(db, a, q),
    chartPlays: (q) => chartPlays(db, a, q),
    chartDailyUsd: (q) => chartPlays(db, a, q),
    chartDaoUsd: (q) => chartDaoUsd(db, a, q),
    houseEdge: (q) => houseEdge(db, q),
    biggestWins: (q) => biggestWins(db, q),
    lpPrice: (q) => lpPrice(db, q),
    poolReturns: (q) => poolReturns(db, a, q),
    coverageSignatures: (q) => coverageSignatures(db, q),
    coverageSummary: () => coverageSummary(db),
    coverageReport: (q) => coverageReport(db, q),
  };
}
