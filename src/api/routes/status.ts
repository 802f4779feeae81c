import type { FastifyInstance } from 'fastify';
import { isoMs } from '../../core/index.js';
import { reusedRead } from '../reuse.js';
import { count, errorResponse, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';
import { coverageStatus, coverageStatusSchema } from './audit-coverage.js';

const isoOrNull = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description }) as const;

const statusSchema = obj(
  {
    syncing: { type: 'boolean', description: 'true while a backfill or triggered sync runs' },
    lastSync: isoOrNull('End of the last completed sync pass, ISO 8601 UTC ms; null before the first'),
    totalGames: count('Settled games indexed'),
    totalVolume: usd('Σ usd_wager of all games'),
    coverage: coverageStatusSchema,
  },
  'Status (docs/spec.md §2)',
);

const syncStatusSchema = obj({
  success: { type: 'boolean', const: true },
  data: obj({
    totalSignatures: count('Transaction signatures processed'),
    totalGames: count('Settled games stored'),
    totalPoolChanges: count('Pool changes stored'),
    latestUpdate: {
      type: ['object', 'null'],
      required: ['signature', 'blockTime', 'timestamp'],
      properties: {
        signature: { type: 'string', description: 'Signature of the newest indexed transaction' },
        blockTime: { type: 'integer', description: 'Its block time (Unix seconds)' },
        timestamp: { type: 'string', format: 'date-time', description: 'The same time, ISO 8601 UTC ms' },
      },
      description: 'Newest indexed transaction; null when nothing is indexed',
    },
    lastSync: isoOrNull('End of the last completed sync pass; null before the first'),
    unpricedGames: count('Games whose USD price is not yet known (count 0 USD until re-priced, docs/design.md §6)'),
    skipped: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Transactions/events skipped while decoding, by reason' },
  }),
});

const triggerSchema = obj({
  success: { type: 'boolean', const: true },
  data: obj({
    syncing: { type: 'boolean', const: true },
    alreadyRunning: { type: 'boolean', description: 'true when this call joined a running pass' },
    startedAt: { type: 'string', format: 'date-time', description: 'When the pass started or, with `scheduled: true`, when it will start' },
    passId: { type: 'string', description: 'Additive: the pass this call started, joined or was scheduled into; calls coalesced into one pass share it' },
    scheduled: {
      type: 'boolean',
      description: 'Additive: true when the pass has not started yet because the previous triggered pass started less than SYNC_MIN_INTERVAL_MS ago; it starts at `startedAt` (docs/design.md §5)',
    },
  }),
});

/** `/status`, `/sync/status`, `POST /sync` (docs/spec.md §2, docs/design.md §4–§5). */
export function registerStatusRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, sync } = deps;
  // The counters and the latest coverage run are reused for up to statusCountsTtlMs, never across
  // a write this process made or heard of (reuse.ts): a burst of status polls costs one read of each.
  // The sync flags are never reused.
  const ttlMs = deps.statusCountsTtlMs ?? 0;
  const counts = reusedRead(() => store.queries.counts(), deps.clock, ttlMs, deps.generation);
  const coverage = reusedRead(() => store.queries.coverageSummary(), deps.clock, ttlMs, deps.generation);

  scope.get('/status', {
    config: { uncached: true },
    schema: { tags: ['status'], summary: 'Service status', response: { 200: statusSchema, ...protectedErrors } },
  }, async () => {
    const [c, run] = await Promise.all([counts(), coverage()]);
    const s = sync.state();
    return { syncing: s.syncing, lastSync: s.lastSync === null ? null : isoMs(s.lastSync), totalGames: c.totalGames, totalVolume: c.totalVolumeUsd, coverage: coverageStatus(run) };
  });

  scope.get('/sync/status', {
    config: { uncached: true },
    schema: { tags: ['status'], summary: 'Indexing counters', response: { 200: syncStatusSchema, ...protectedErrors } },
  }, async () => {
    const c = await counts();
    const s = sync.state();
    return {
      success: true,
      data: {
        totalSignatures: c.totalSignatures,
        totalGames: c.totalGames,
        totalPoolChanges: c.totalPoolChanges,
        latestUpdate: c.latest === null ? null : { signature: c.latest.signature, blockTime: c.latest.blockTime, timestamp: isoMs(c.latest.blockTime * 1000) },
        lastSync: s.lastSync === null ? null : isoMs(s.lastSync),
        unpricedGames: c.unpricedGames,
        skipped: c.skipped,
      },
    };
  });

  scope.post('/sync', {
    config: { scope: 'sync' },
    schema: {
      tags: ['status'],
      summary: 'Trigger a catch-up sync (joins a running one)',
      description:
        'Runs one catch-up pass to the chain head now. Calls coalesce (docs/design.md §5): while a pass runs, a call joins it; within SYNC_MIN_INTERVAL_MS of the previous triggered start, a call joins or schedules the next allowed pass (`scheduled: true`). No request body.',
      response: { 202: triggerSchema, 413: errorResponse, 415: errorResponse, ...protectedErrors },
    },
  }, async (_request, reply) => {
    const t = await sync.trigger();
    return reply
      .code(202)
      .send({ success: true, data: { syncing: true, alreadyRunning: t.alreadyRunning, startedAt: isoMs(t.startedAt), passId: t.passId, scheduled: t.scheduled } });
  });
}
