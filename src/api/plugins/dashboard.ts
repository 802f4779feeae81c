import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { packageRoot } from '../../core/index.js';

/**
 * The web dashboard (docs/design.md §12 "Dashboard"), served by the API process itself:
 * - `GET /` answers the dashboard's page (`index.html`) to a browser, and the JSON index of the
 *   service's entry points (`ROOT_INDEX`) to a client that asks for JSON (`Accept` naming
 *   `application/json` before, or without, `text/html`) or when the dashboard is not built;
 * - `GET /dashboard/*` serves the bundle's static files (script, style sheet) from `root`.
 * Both are public (no API key: the page asks for one and sends it with every API request
 * itself) and carry their own Content-Security-Policy: scripts, styles and requests to this
 * origin only, nothing inline, never framed.
 */

/** The dashboard's Content-Security-Policy (the page loads only its own files and talks only to this origin). */
export const DASHBOARD_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** URL prefix of the dashboard's static files. */
export const DASHBOARD_PREFIX = '/dashboard/';

/** Where `npm run build` writes the dashboard's files: `<package>/dist/dashboard` (core/package-root.ts finds the package from src/, dist/ or dist/bundle/). */
export const DEFAULT_DASHBOARD_ROOT = join(packageRoot(import.meta.url), 'dist', 'dashboard');

/** The JSON answer of `GET /` for API clients: where the documentation, the OpenAPI document and the dashboard are (paths on this host). */
export const ROOT_INDEX = Object.freeze({
  service: 'gamba-analytics',
  docs: '/docs',
  openapi: '/openapi.json',
  dashboard: '/',
  health: '/health',
});

/** Options of the dashboard: `root` is the built bundle's directory; `false` serves none (`/` answers the JSON index only). */
export interface DashboardOptions {
  root?: string | false;
}

/** True when the request's `Accept` prefers JSON to HTML (JSON named, HTML absent or listed after it). */
function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (typeof accept !== 'string') return false;
  const json = accept.indexOf('application/json');
  if (json < 0) return false;
  const html = accept.indexOf('text/html');
  return html < 0 || json < html;
}

/**
 * Registers `GET /` and the static files under `/dashboard/` (see the module comment). A root
 * without `index.html` (bundle not built) leaves `/` answering the JSON index. Never throws
 * for a request: unknown files under `/dashboard/` are the API's JSON 404.
 */
export async function registerDashboard(app: FastifyInstance, options: DashboardOptions = {}): Promise<void> {
  const root = options.root === false ? undefined : (options.root ?? DEFAULT_DASHBOARD_ROOT);
  const built = root !== undefined && existsSync(join(root, 'index.html'));
  await app.register(async (scope) => {
    // After the app's security headers (parent hooks run first): the page's own policy.
    scope.addHook('onSend', (_request, reply, payload, done) => {
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html') || reply.request.url.startsWith(DASHBOARD_PREFIX)) {
        reply.header('content-security-policy', DASHBOARD_CSP);
        reply.header('x-frame-options', 'DENY');
        reply.header('referrer-policy', 'no-referrer');
        reply.header('cross-origin-opener-policy', 'same-origin');
      }
      done(null, payload);
    });
    if (built) {
      await scope.register(fastifyStatic, { root: root!, prefix: DASHBOARD_PREFIX, index: false, wildcard: true, cacheControl: true, maxAge: 0 });
    }
    scope.get('/', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
      reply.header('vary', 'Accept');
      if (!built || wantsJson(request)) return reply.type('application/json; charset=utf-8').send(ROOT_INDEX);
      return reply.type('text/html; charset=utf-8').sendFile('index.html', root!);
    });
  });
}
