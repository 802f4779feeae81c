import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import { isAddress } from '@solana/kit';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { DEFAULT_AUTH_FAILURE_LIMITS, registerAuth } from './plugins/auth.js';
import { frameworkErrorHandler, registerErrorHandling } from './plugins/errors.js';
import { defaultConcurrencyLimits, registerConcurrencyLimit } from './plugins/concurrency.js';
import { fastifyServerOptions, registerUrlLimit, resolveHttpLimits } from './plugins/limits.js';
import { registerOpenApi } from './plugins/openapi.js';
import { CORS_EXPOSED_HEADERS, registerSecurityHeaders } from './plugins/security.js';
import { createHitLane } from './plugins/hit-lane.js';
import { registerResponseCache } from './plugins/cache.js';
import { INDEXED_SLOT_HEADER, INDEXED_TIME_HEADER, registerFreshnessHeaders } from './plugins/freshness.js';
import { reusedRead } from './reuse.js';
import { registerCompression } from './plugins/compression.js';
import { registerDashboard } from './plugins/dashboard.js';
import { registerHttpMetrics } from './plugins/http-metrics.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { registerKeyUse } from './plugins/key-use.js';
import { VERSION_PREFIX, registerOperationIds } from './operations.js';
import { registerUsageRoutes } from './routes/usage.js';
import { createMemoryUsageCounter } from '../ratelimit/index.js';
import { registerQueryGuards } from './plugins/validation.js';
import { ADDRESS_FORMAT, formatValidationError } from './params.js';
import { registerChartRoutes } from './routes/charts.js';
import { registerFairnessAuditRoutes } from './routes/audit-fairness.js';
import { registerEventRoutes } from './routes/events.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerHouseRoutes } from './routes/house.js';
import { registerPlatformRoutes } from './routes/platforms.js';
import { registerPlayerRoutes } from './routes/players.js';
import { registerPoolRoutes } from './routes/pools.js';
import { registerStatusRoutes } from './routes/status.js';
import { registerAuditCoverageRoutes } from './routes/audit-coverage.js';
import { registerStreamRoutes } from './routes/stream.js';
import { createStreamHub } from './stream.js';
import { errorSchema } from './schemas.js';
import type { ApiDeps, RouteDeps } from './types.js';
import type { Scope } from '../store/index.js';

/** Longest reuse of the store's counters by /status and /sync/status, ms (see routes/status.ts). */
const STATUS_COUNTS_TTL_MS = 1000;

/** No route takes a body; a small limit turns abuse into a cheap 413 (docs/design.md §4). */
const DEFAULT_BODY_LIMIT = 16 * 1024;

/**
 * Builds the HTTP API (docs/design.md §1 flow: auth → rate limit → validate → query → JSON).
 * No listening and no side effects: `startServer` listens; tests use real sockets on port 0.
 * The request pipeline of a protected route is: CORS → auth (401) → key use (403: origin of a
 * publishable key, scope) → rate limit (429, headers) → repeated-parameter guard → schema
 * validation (400) → handler (404/503) → serialization. Every route also answers under `/v1`
 * (same handlers; the OpenAPI document lists the unversioned paths: docs/design.md §4 "Versioning").
 */
export async function buildApp(deps: ApiDeps): Promise<FastifyInstance> {
  const { common, store, keys, limiter, sync, events } = deps;
  const options = deps.options ?? {};
  const { clock, metrics } = common;
  const httpLimits = resolveHttpLimits(options.httpLimits);
  const usage = limiter.usage ?? createMemoryUsageCounter();
  const trustProxy = options.trustProxy ?? false;
  // Cache hits answered before Fastify (docs/benchmarks.md "The hit lane"); shut behind a trusted proxy.
  const lane = createHitLane({
    keys, limiter, usage, metrics, clock, logger: common.logger,
    failureLimits: options.authFailureLimits ?? DEFAULT_AUTH_FAILURE_LIMITS,
    // Open once the response cache attaches (below), if there is one.
    enabled: trustProxy === false,
  });

  const app = Fastify({
    loggerInstance: common.logger,
    genReqId: () => randomUUID(),
    // snake_case log fields (docs/architecture.md convention 11): every line of a request carries request_id.
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    trustProxy,
    // URL/header sizes, slow-client timeouts, JSON bodies for Node's own client errors (docs/hardening.md);
    // every request passes the hit lane first.
    ...fastifyServerOptions(httpLimits, clock, (req, res, fastify) => {
      if (!lane.handle(req, res)) fastify(req, res);
    }),
    // Errors before routing (malformed percent-encoding in the path) also get the docs/spec.md §7 body.
    frameworkErrors: frameworkErrorHandler(clock),
    schemaErrorFormatter: formatValidationError,
    ajv: {
      customOptions: {
        // verbose: the failing property's schema travels with the error (for the 400 message).
        verbose: true,
        formats: { [ADDRESS_FORMAT]: (s: string) => isAddress(s) },
      },
    },
  }) as unknown as FastifyInstance;

  // First: once closing, every request goes to Fastify, which answers 503.
  app.addHook('preClose', async () => lane.close());
  app.decorateRequest('apiKey', null);
  app.addSchema(errorSchema);
  registerErrorHandling(app, clock);
  registerUrlLimit(app, httpLimits);
  registerSecurityHeaders(app);
  // br/gzip for answers ≥ 1 KB (docs/design.md §11); appended to every route's onSend, after the cache's.
  registerCompression(app);

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerHttpMetrics(app, metrics);

  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowedHeaders: ['X-API-Key', 'Authorization', 'Content-Type', 'Last-Event-ID'],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: 600,
  });
  // Each operation's scope by operationId, filled as routes are added, read when the document is made.
  const scopes = new Map<string, Scope>();
  await registerOpenApi(app, { publicUrl: options.publicUrl, scopes });
  // Before any route: each gets its operationId (OpenAPI) and the name GET /usage counts it by.
  registerOperationIds(app, scopes);

  // With the response cache on, /status and /sync/status reuse the store's counters for at most
  // 1 s (never longer than the cache's TTL; never across an in-process write): docs/design.md §5 allows
  // answers up to the TTL old, and live sync flags are read per request.
  const statusCountsTtlMs = options.cache ? Math.min(Math.max(0, options.cache.ttlMs), STATUS_COUNTS_TTL_MS) : 0;
  // Writes this process made (store.generation) plus commits the indexer announced (deps.events).
  let commitsHeard = 0;
  const unsubscribe = events?.on('committed', () => void commitsHeard++);
  if (unsubscribe) app.addHook('onClose', async () => unsubscribe());
  const generation = () => store.generation() + commitsHeard;
  const routeDeps: RouteDeps = { store, sync, clock, generation, statusCountsTtlMs };
  // Live streams (docs/design.md §11): woken by the indexer's commits, or polling without them.
  // preClose: open streams end before the server waits for its requests, so shutdown never hangs on one.
  const hub = createStreamHub({ store, events, options: options.stream, logger: common.logger });
  app.addHook('preClose', async () => hub.closeAll());

  /** Registers `routes` at the root and again under /v1, hidden from the OpenAPI document (docs/design.md §4 "Versioning"). */
  const withAlias = async (scope: FastifyInstance, routes: (s: FastifyInstance) => void): Promise<void> => {
    await scope.register(async (s) => routes(s));
    await scope.register(async (s) => {
      s.addHook('onRoute', (route) => {
        route.schema = { ...(route.schema ?? {}), hide: true };
      });
      routes(s);
    }, { prefix: VERSION_PREFIX });
  };

  // Public scope: no key (docs/design.md §4 "Unauthenticated paths").
  await app.register(async (pub) => {
    await withAlias(pub, (s) => registerHealthRoutes(s, routeDeps));
  });

  // The web dashboard at / and its files under /dashboard/, public (docs/design.md §12).
  await registerDashboard(app, options.dashboard);

  // Protected scope: every operation of docs/spec.md §4. Hooks added here apply only to these routes.
  await app.register(async (api) => {
    registerAuth(api, { keys, limiter, metrics, failureLimits: options.authFailureLimits ?? DEFAULT_AUTH_FAILURE_LIMITS });
    registerKeyUse(api, { metrics });
    registerRateLimit(api, { limiter, metrics, clock, usage });
    registerQueryGuards(api);
    // After auth, rate limit and validation; before the query (docs/benchmarks.md). Off unless options.cache is given.
    if (options.cache) lane.attach(registerResponseCache(api, { clock, generation, metrics, options: { ...options.cache, storedHeaders: [INDEXED_SLOT_HEADER, INDEXED_TIME_HEADER] } }));
    // After the cache's lookup (a hit keeps the headers stored with it), before the routes: docs/design.md §5 "Freshness headers".
    // The store's freshness, reused like the status counters (reuse.ts).
    registerFreshnessHeaders(api, { freshness: reusedRead(() => store.queries.freshness(), clock, statusCountsTtlMs, generation) });
    // Before the routes: wraps each handler registered below in a fair share of the store's slots.
    const slots = options.concurrency?.maxConcurrent ?? store.slots;
    registerConcurrencyLimit(api, { limits: { ...defaultConcurrencyLimits(slots), ...options.concurrency }, metrics });
    await withAlias(api, (s) => {
      registerStatusRoutes(s, routeDeps);
      registerUsageRoutes(s, { limiter, usage, clock });
      registerPlayerRoutes(s, routeDeps);
      registerEventRoutes(s, routeDeps);
      registerPlatformRoutes(s, routeDeps);
      registerPoolRoutes(s, routeDeps);
      registerChartRoutes(s, routeDeps);
      registerHouseRoutes(s, routeDeps);
      registerAuditCoverageRoutes(s, routeDeps);
      registerFairnessAuditRoutes(s, routeDeps);
      registerStreamRoutes(s, { ...routeDeps, hub });
    });
  });

  await app.ready();
  return app;
}
