import type { FastifyInstance } from 'fastify';
import type { PlayersSortBy } from '../../store/index.js';
import { apiError, invalidParameter } from '../errors.js';
import { parseStartTime } from '../params.js';
import { address, addressOut, count, enumParam, errorResponse, intParam, ms, nullableAmount, obj, protectedErrors, startTimeParam, usd } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const SORT_BY = ['usd_profit', 'usd_volume', 'token_profit', 'token_volume'] as const satisfies readonly PlayersSortBy[];

const statsSchema = obj(
  {
    players: count('Distinct players'),
    usd_volume: usd('Σ usd_wager'),
    plays: count('Games'),
    creators: count('Distinct creators (platforms)'),
    revenue_usd: usd('Σ creator fees'),
    player_net_profit_usd: usd('Σ (profit − fees); negative when players lose overall'),
    active_players: count('Distinct players with a game in the last 60 minutes (startTime does not apply)'),
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

interface StatsQs { creator?: string; startTime?: string }
interface PlayerQs { user: string; creator?: string; token?: string }
interface PlayersQs { sortBy: PlayersSortBy; limit: number; offset: number; creator?: string; token?: string; pool?: string; startTime?: string }

/** `/stats`, `/player`, `/players` (docs/spec.md §4, docs/design.md §3–§4). */
export function registerPlayerRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, clock } = deps;

  scope.get<{ Querystring: StatsQs }>('/stats', {
    schema: {
      tags: ['stats'],
      summary: 'Platform statistics',
      querystring: { type: 'object', properties: { creator: address('Only games of this creator'), startTime: startTimeParam } },
      response: { 200: statsSchema, ...protectedErrors },
    },
  }, async (request) => {
    const q = request.query;
    return store.queries.stats({ creator: q.creator, startTime: parseStartTime(q.startTime), now: clock.now() });
  });

  scope.get<{ Querystring: PlayerQs }>('/player', {
    schema: {
      tags: ['stats'],
      summary: 'Statistics of one player',
      querystring: {
        type: 'object',
        required: ['user'],
        properties: { user: address('Player wallet'), creator: address('Only games of this creator'), token: address('Only games in this token mint') },
      },
      response: { 200: playerSchema, 404: errorResponse, ...protectedErrors },
    },
  }, async (request) => {
    const { user, creator, token } = request.query;
    const result = await store.queries.player({ user, creator, token });
    if (result === undefined) throw apiError('PLAYER_NOT_FOUND', 'No game found for this player and filters');
    return result;
  });

  scope.get<{ Querystring: PlayersQs }>('/players', {
    schema: {
      tags: ['stats'],
      summary: 'Top-players leaderboard',
      querystring: {
        type: 'object',
        properties: {
          sortBy: enumParam('Ordering (descending); token_* need token or pool', SORT_BY, 'usd_profit'),
          limit: intParam('Number of results', 1, 1000, 10),
          offset: intParam('Results to skip', 0, undefined, 0),
          creator: address('Only games of this creator'),
          token: address('Only games in this token mint'),
          pool: address('Only games of this pool'),
          startTime: startTimeParam,
        },
      },
      response: { 200: obj({ results: { type: 'array', items: leaderboardEntry }, total: count('Matching players') }), ...protectedErrors },
    },
  }, async (request) => {
    const q = request.query;
    if ((q.sortBy === 'token_volume' || q.sortBy === 'token_profit') && q.token === undefined && q.pool === undefined) {
      throw invalidParameter('sortBy', `${q.sortBy} needs one token: add 'token' or 'pool' (token sums of different tokens cannot be compared)`);
    }
    const r = await store.queries.players({
      sortBy: q.sortBy,
      limit: q.limit,
      offset: q.offset,
      creator: q.creator,
      token: q.token,
      pool: q.pool,
      startTime: parseStartTime(q.startTime),
    });
    return {
      total: r.total,
      results: r.results.map((e) => ({
        ...e,
        token_volume: e.token_volume === null ? null : e.token_volume.toString(),
        token_profit: e.token_profit === null ? null : e.token_profit.toString(),
      })),
    };
  });
}
