import type { FastifyInstance } from 'fastify';
import { keysetKinds, type KeysetPosition, type LeaderboardEntry } from '../../store/index.js';
import { decodeCursor, nextCursor } from '../cursor.js';
import { exportFormat, sendExport } from '../export.js';
import { apiError, invalidParameter } from '../errors.js';
import { PARAMS, queryOf } from '../params.js';
import { addressOut, count, errorResponse, ms, nullableAmount, obj, protectedErrors, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const statsSchema = obj(
  {
    players: count('Distinct players'),
    usd_volume: usd('Σ usd_wager'),
    plays: count('Games'),
    creators: count('Distinct creators (platforms)'),
    revenue_usd: usd('Σ creator fees'),
    player_net_profit_usd: usd('Σ (profit − fees); negative when players lose overall'),
    active_players: count('Distinct players with a game in the last 60 minutes (startTime and endTime do not apply)'),
    first_bet_time: ms('Time of the first game; 0 when none'),
  },
  'Platform statistics (docs/spec.md §2, docs/design.md §3)',
);

const playerSchema = obj(
  {
    user: addressOut('Player wallet address'),
    total_plays: count('Games'),
    total_volume_usd: usd('Σ usd_wager'),
    total_profit_usd: usd('Σ usd_profit'),
    biggest_win_usd: usd('Max usd_profit; 0 if never won'),
    biggest_loss_usd: usd('Min usd_profit (≤ 0); 0 if never lost'),
    favorite_token: addressOut('Token with the most plays'),
    first_play: ms('First game'),
    last_play: ms('Last game'),
  },
  'Player statistics (docs/spec.md §2)',
);

const leaderboardEntry = obj({
  user: addressOut('Player wallet address'),
  total_plays: count('Games'),
  usd_volume: usd('Σ usd_wager'),
  usd_profit: usd('Σ usd_profit'),
  token_volume: nullableAmount('Σ wager'),
  token_profit: nullableAmount('Σ profit'),
  biggest_win_usd: usd('Max usd_profit'),
  last_play: ms('Last game'),
});

/** Decimal text of a sort value in a /players cursor (a double's or PostgreSQL numeric's text form). */
const DECIMAL = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

const nextCursorSchema = { type: ['string', 'null'], description: 'Cursor of the next page (pass as `cursor`); null at the end' } as const;

const statsQuery = queryOf({ creator: PARAMS.creator, startTime: PARAMS.startTime, endTime: PARAMS.endTime });
const playerQuery = queryOf({ user: PARAMS.userRequired, creator: PARAMS.creator, token: PARAMS.token });
const playersQuery = queryOf({
  sortBy: PARAMS.playersSortBy,
  limit: PARAMS.playersLimit,
  offset: PARAMS.playersOffset,
  creator: PARAMS.creator,
  token: PARAMS.token,
  pool: PARAMS.pool,
  startTime: PARAMS.startTime,
  endTime: PARAMS.endTime,
  cursor: PARAMS.listCursor,
  format: PARAMS.format,
});

/** endTime ≤ startTime → 400 naming endTime (docs/design.md §4 "Windows": start inclusive, end exclusive). */
export function checkWindow(q: { startTime?: number | undefined; endTime?: number | undefined }): void {
  if (q.startTime !== undefined && q.endTime !== undefined && q.endTime <= q.startTime) throw invalidParameter('endTime', 'must be later than startTime');
}

/** Export columns of /players (docs/design.md §11), in order. */
const PLAYER_COLUMNS = ['user', 'total_plays', 'usd_volume', 'usd_profit', 'token_volume', 'token_profit', 'biggest_win_usd', 'last_play'] as const;

/** A leaderboard row as JSON: token sums as integer strings (exact) or null. */
function entryJson(e: LeaderboardEntry) {
  return { ...e, token_volume: e.token_volume === null ? null : e.token_volume.toString(), token_profit: e.token_profit === null ? null : e.token_profit.toString() };
}

/** `/stats`, `/player`, `/players` (docs/spec.md §4, docs/design.md §3–§4). */
export function registerPlayerRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get('/stats', {
    schema: {
      tags: ['stats'],
      summary: 'Platform statistics',
      querystring: statsQuery.schema,
      response: { 200: statsSchema, ...protectedErrors },
    },
  }, async (request) => {
    const q = statsQuery.parse(request.query);
    checkWindow(q);
    return store.queries.stats({ ...q, now: clock.now() });
  });

  scope.get('/player', {
    schema: {
      tags: ['stats'],
      summary: 'Statistics of one player',
      querystring: playerQuery.schema,
      response: { 200: playerSchema, 404: errorResponse, ...protectedErrors },
    },
  }, async (request) => {
    const result = await store.queries.player(playerQuery.parse(request.query));
    if (result === undefined) throw apiError('PLAYER_NOT_FOUND', 'No game found for this player and filters');
    return result;
  });

  scope.get('/players', {
    schema: {
      tags: ['stats'],
      summary: 'Top-players leaderboard',
      querystring: playersQuery.schema,
      response: { 200: obj({ results: { type: 'array', items: leaderboardEntry }, total: count('Matching players'), nextCursor: nextCursorSchema }), ...protectedErrors },
    },
  }, async (request, reply) => {
    const { cursor, format: _, ...q } = playersQuery.parse(request.query);
    checkWindow(q);
    if ((q.sortBy === 'token_volume' || q.sortBy === 'token_profit') && q.token === undefined && q.pool === undefined) {
      throw invalidParameter('sortBy', `${q.sortBy} needs one token: add 'token' or 'pool' (token sums of different tokens cannot be compared)`);
    }
    // Always descending: the cursor carries sortBy and DESC.
    const after = cursor === undefined ? undefined : decodeCursor(cursor, q.sortBy, 'DESC', keysetKinds('players'));
    // The sort value travels as decimal text (exact on PostgreSQL): anything else is not one of our cursors.
    const sortText = after?.values[0] as string | undefined;
    if (sortText !== undefined && (!DECIMAL.test(sortText) || !Number.isFinite(Number(sortText)))) {
      throw invalidParameter('cursor', 'must be a nextCursor value returned by this endpoint');
    }
    const format = exportFormat(request);
    if (format !== undefined) {
      // Every matching player (limit and offset do not apply), 1000 per store read.
      return sendExport<KeysetPosition>(reply, format, PLAYER_COLUMNS, async (at) => {
        const r = await store.queries.players({ ...q, limit: 1000, offset: 0, after: at });
        return { rows: r.results.map(entryJson), next: r.next };
      }, after);
    }
    const r = await store.queries.players({ ...q, after });
    return { total: r.total, nextCursor: nextCursor(q.sortBy, 'DESC', r.next), results: r.results.map(entryJson) };
  });
}
