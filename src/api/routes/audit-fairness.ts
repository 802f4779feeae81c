import type { FastifyInstance } from 'fastify';
import type { FairnessViolation } from '../../store/index.js';
import { decodeCursor, nextCursor } from '../cursor.js';
import { invalidParameter } from '../errors.js';
import { PARAMS, queryOf } from '../params.js';
import { addressOut, count, ms, obj, protectedErrors } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const fairnessQuery = queryOf({
  creator: PARAMS.creator,
  pool: PARAMS.pool,
  token: PARAMS.token,
  player: PARAMS.user,
  startTime: PARAMS.startTime,
  endTime: PARAMS.endTime,
  groupBy: PARAMS.fairnessGroupBy,
  limit: PARAMS.fairnessLimit,
  cursor: PARAMS.cursor,
});

const counts = obj({
  games: count('Games in the window'),
  verified: count('Games whose every rule holds, commitment included'),
  unverifiable: count('Games that break no rule but cannot be fully checked'),
  violation: count('Games that break a rule'),
  violations: obj({
    commitment: count('Revealed seed ≠ the previous settle\'s nextRngSeedHashed'),
    result_index: count('resultIndex ≠ the HMAC result'),
    multiplier: count('multiplierBps ≠ bet[resultIndex]'),
    payout: count('payout neither floor nor ceiling of wager × multiplierBps / 10000'),
  }, 'Violations per rule'),
  unverifiableReasons: obj({
    first_seen: count('No earlier settle of the player is indexed'),
    no_bet: count('Empty bet table'),
    not_audited: count('Stored before the audit existed (until `rollups rebuild`)'),
  }, 'Unverifiable games per reason'),
});

const violation = obj({
  signature: { type: 'string', description: 'Transaction signature' },
  time: ms('Block time'),
  user: addressOut('Player'),
  creator: addressOut('Creator (platform)'),
  token: addressOut('Token mint'),
  pool: addressOut('Pool'),
  rule: { type: 'string', enum: ['commitment', 'result_index', 'multiplier', 'payout'], description: 'The rule the game breaks (the first in that order)' },
});

const violationJson = (v: FairnessViolation) => {
  const { event_index: _, ...out } = v;
  return out;
};

/** `GET /audit/fairness` (docs/spec.md, docs/design.md "Fairness audit"): verdict counts per filter and window, grouped on request, and the violations, cursor-paged. */
export function registerFairnessAuditRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store } = deps;
  scope.get('/audit/fairness', {
    schema: {
      tags: ['audit'],
      summary: 'Provably-fair audit of settled games: counts per verdict (verified, unverifiable, violation) and rule, overall or per creator, pool or player, and the violations with their signatures (cursor-paged, newest first)',
      querystring: fairnessQuery.schema,
      response: {
        200: obj({
          counts,
          groupBy: { type: 'string', enum: ['none', 'creator', 'pool', 'player'] },
          groups: { type: ['array', 'null'], items: obj({ key: addressOut('Creator, pool or player'), counts }), description: 'Per group (at most 100, most violations first, then most games); null when groupBy=none' },
          groupsTotal: count('Groups before the cut to 100 (0 when groupBy=none)'),
          violations: { type: 'array', items: violation, description: 'This page of the violations in the window, newest first (time, then signature)' },
          nextCursor: { type: ['string', 'null'], description: 'Cursor of the next violations page (pass as `cursor` with the same filters); null at the end' },
        }),
        ...protectedErrors,
      },
    },
  }, async (request) => {
    const { cursor, groupBy, ...q } = fairnessQuery.parse(request.query);
    if (q.startTime !== undefined && q.endTime !== undefined && q.endTime <= q.startTime) throw invalidParameter('endTime', 'must be later than startTime');
    // Per-player counts read the window's days of ru_fair_day (docs/design.md §14): bounded by a window or one player.
    if (groupBy === 'player' && q.startTime === undefined && q.player === undefined) throw invalidParameter('groupBy', 'player needs startTime or player');
    const after = cursor === undefined ? undefined : decodeCursor(cursor, 'fairness', 'DESC', ['integer', 'string', 'integer']);
    const res = await store.queries.fairnessAudit({ ...q, ...(groupBy === 'none' ? {} : { groupBy }), after });
    return {
      counts: res.counts,
      groupBy,
      groups: res.groups,
      groupsTotal: res.groupsTotal,
      violations: res.violations.map(violationJson),
      nextCursor: nextCursor('fairness', 'DESC', res.next),
    };
  });
}
