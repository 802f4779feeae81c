import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** Version of the HTTP contract stated in the OpenAPI document (docs/design.md §4 "Versioning"). */
export const API_VERSION = '1.0.0';

/**
 * OpenAPI 3.1 generated from the route schemas (one source of truth, docs/architecture.md): the document at
 * `GET /openapi.json`, the docs UI at `GET /docs`. Both are public (docs/design.md §4). Must be
 * registered before the routes so @fastify/swagger sees them.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Gamba Analytics API',
        version: API_VERSION,
        description:
          'Aggregated, read-only analytics of the Gamba v2 protocol on Solana. Every operation except /health, /ready and the docs requires an API key ' +
          '(`X-API-Key` header, or `Authorization: Bearer`). Token amounts are integer strings in the smallest unit; USD amounts are numbers; times are Unix ms.',
      },
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: '64 hex characters' },
          Bearer: { type: 'http', scheme: 'bearer', description: 'The same API key as a bearer token' },
        },
      },
      security: [{ ApiKey: [] }, { Bearer: [] }],
      tags: [
        { name: 'status', description: 'Service and sync status' },
        { name: 'stats', description: 'Platform and player statistics' },
        { name: 'events', description: 'Raw indexed events' },
        { name: 'platforms', description: 'Platforms (creators) and tokens' },
        { name: 'pools', description: 'Liquidity pools' },
        { name: 'charts', description: 'Series by hour, day or week in a time zone' },
        { name: 'operations', description: 'Health and readiness (no key)' },
      ],
    },
    // Name shared schemas by their $id (ApiError) instead of def-N.
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: false } });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async (_req, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()));
}
