import type { FastifyInstance } from 'fastify';
import { AppError, isAppError } from '../../core/index.js';
import { errorResponse, obj } from '../schemas.js';
import type { RouteDeps } from '../types.js';

const nullableInt = (description: string) => ({ type: ['integer', 'null'], description }) as const;

/** `GET /health` (liveness, no store access) and `GET /ready` (readiness), both without a key (docs/design.md §9). */
export function registerHealthRoutes(scope: FastifyInstance, deps: RouteDeps): void {
  const { store, sync } = deps;

  scope.get('/health', {
    config: { public: true },
    schema: { tags: ['operations'], summary: 'Liveness', security: [], response: { 200: obj({ status: { type: 'string', const: 'ok' } }) } },
  }, async () => ({ status: 'ok' }));

  scope.get('/ready', {
    config: { public: true },
    schema: {
      tags: ['operations'],
      summary: 'Readiness: store reachable; indexer lag when an indexer runs here',
      security: [],
      response: {
        200: obj({
          status: { type: 'string', const: 'ready' },
          syncing: { type: 'boolean' },
          lagSlots: nullableInt('Chain head slot minus last indexed slot; null without an indexer'),
          lagSeconds: nullableInt('Wall clock minus last indexed block time (s); null without an indexer'),
        }),
        503: errorResponse,
      },
    },
  }, async () => {
    try {
      // A read-only store answers within the store deadline or throws STORE_UNAVAILABLE (docs/hardening.md "Store deadline").
      await store.ping();
    } catch (err) {
      // The error handler logs the cause once and answers 503 STORE_UNAVAILABLE.
      throw isAppError(err) && err.code === 'STORE_UNAVAILABLE' ? err : new AppError('STORE_UNAVAILABLE', 'store unreachable', { cause: err, retryable: true });
    }
    const s = sync.state();
    return { status: 'ready', syncing: s.syncing, lagSlots: s.lagSlots, lagSeconds: s.lagSeconds === null ? null : Math.round(s.lagSeconds) };
  });
}
