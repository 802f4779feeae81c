import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Scope } from '../../store/index.js';
import { finishDocument } from '../openapi-document.js';
import { OPENAPI_EXAMPLES } from '../openapi-examples.js';

/** Version of the HTTP contract stated in the OpenAPI document (docs/design.md §4 "Versioning"). */
export const API_VERSION = '1.0.0';

/** The document's `servers` URL unless ApiOptions.publicUrl says otherwise: the default HOST and PORT (README "Configuration"). */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:3000';

/**
 * OpenAPI 3.1 generated from the route schemas (one source of truth, docs/architecture.md): the document at
 * `GET /openapi.json`, the docs UI at `GET /docs`. Both are public (docs/design.md §4). Must be
 * registered before the routes so @fastify/swagger sees them. `publicUrl` is the `servers` entry
 * (default DEFAULT_PUBLIC_URL); `scopes` each operation's scope by operationId (operations.ts
 * fills it). The generated document is finished by openapi-document.ts.
 */
export async function registerOpenApi(app: FastifyInstance, opts: { publicUrl?: string; scopes: ReadonlyMap<string, Scope> }): Promise<void> {
  const publicUrl = opts.publicUrl ?? DEFAULT_PUBLIC_URL;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Gamba Analytics API',
        version: API_VERSION,
        description:
          'Aggregated, read-only analytics of the Gamba v2 protocol on Solana. Every operation except /health, /ready and the docs requires an API key ' +
          '(`X-API-Key` header, or `Authorization: Bearer`) holding the operation\'s scope (`read`; `sync` for POST /sync). Token amounts are integer strings in the smallest unit; USD amounts are numbers; times are Unix ms. ' +
          'Every path also answers under `/v1` (same handler and answer); this document lists the unversioned paths. Errors: docs/errors.md; rate limits: the RateLimit-Policy header and GET /usage.',
        contact: { name: 'Gamba Analytics operators' },
        license: { name: 'MIT', identifier: 'MIT' },
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
        { name: 'house', description: 'House edge: realized vs expected return to player, biggest wins' },
        { name: 'audit', description: 'Audits of the indexed history: provably-fair verdicts of settled games' },
        { name: 'usage', description: 'The calling key: tier, bucket, requests today' },
        { name: 'operations', description: 'Health and readiness (no key)' },
      ],
    },
    // Name shared schemas by their $id (ApiError) instead of def-N.
    transformObject: (d) => finishDocument((d as { openapiObject: Record<string, any> }).openapiObject, OPENAPI_EXAMPLES, publicUrl, opts.scopes),
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: false } });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async (_req, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()));
}
