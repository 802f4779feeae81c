import type { FastifyInstance } from 'fastify';

/**
 * Security headers (docs/hardening.md "Security headers"; OWASP REST Security Cheat Sheet), on every
 * answer — errors, 404s and CORS preflights included:
 * - JSON answers carry `X-Content-Type-Options: nosniff` (a browser never sniffs JSON into HTML or
 *   script) and `Cache-Control: no-store` unless a route (or the response cache) set its own
 *   (answers depend on the API key, so shared caches must not keep them by default). Nothing
 *   else: the document-level policies (CSP, X-Frame-Options, Referrer-Policy,
 *   Cross-Origin-Opener-Policy) act on pages that load resources, are framed, link or open
 *   windows, and a JSON answer sent as `application/json` with nosniff is never such a page
 *   (docs/design.md §5 "Response headers": what an answer carries);
 * - the `/docs` UI (HTML) gets the document policies as well: a CSP that lets its own scripts and
 *   styles run, `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`,
 *   `Cross-Origin-Opener-Policy: same-origin` (the dashboard sets its own: plugins/dashboard.ts).
 * No HSTS: the service speaks plain HTTP behind a TLS-terminating proxy, which owns that header.
 */
const DOCS_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; frame-ancestors 'none'";

/** The /docs UI and its assets: `/docs`, `/docs/…`, `/docs?…` (the path before any query). */
function isDocsUrl(url: string): boolean {
  return url.startsWith('/docs') && (url.length === 5 || url[5] === '/' || url[5] === '?');
}

/** The security headers of every JSON answer (the response cache's raw path writes them itself): `X-Content-Type-Options: nosniff`. */
export const JSON_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
});

/**
 * Response headers a browser script may read on a cross-origin answer (CORS
 * `Access-Control-Expose-Headers`, docs/design.md §4): the rate-limit headers, `Retry-After`, the
 * request id, the ETag and the freshness headers. Set by @fastify/cors (app.ts) and, joined with
 * `, ` as it does, by the requests answered before Fastify (plugins/hit-lane.ts).
 */
export const CORS_EXPOSED_HEADERS: readonly string[] = Object.freeze(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'ETag', 'X-Indexed-Slot', 'X-Indexed-Time']);

/** Adds `X-Content-Type-Options: nosniff` to every answer of `app`, the document policies to the /docs UI's, and `Cache-Control: no-store` unless one was set (docs/hardening.md "Security headers"). */
export function registerSecurityHeaders(app: FastifyInstance): void {
  // Callback-style and allocation-free (docs/benchmarks.md): it runs on every answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    if (isDocsUrl(request.url)) {
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('cross-origin-opener-policy', 'same-origin');
      reply.header('content-security-policy', DOCS_CSP);
    }
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
