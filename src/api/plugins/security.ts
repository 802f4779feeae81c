import type { FastifyInstance } from 'fastify';

/**
 * Security headers for a JSON API (docs/hardening.md; OWASP REST Security Cheat Sheet "Security headers"),
 * on every answer — errors, 404s and CORS preflights included:
 * - `X-Content-Type-Options: nosniff` — a browser never sniffs JSON into HTML or script;
 * - `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'` and `X-Frame-Options: DENY`
 *   — a JSON answer loads nothing and is never framed (the `/docs` UI gets a policy that lets
 *   its own scripts and styles run, still unframeable);
 * - `Referrer-Policy: no-referrer`;
 * - `Cache-Control: no-store` unless a route (or the response cache) set its own: answers depend
 *   on the API key, so shared caches must not keep them by default;
 * - `Cross-Origin-Opener-Policy: same-origin`.
 * No HSTS: the service speaks plain HTTP behind a TLS-terminating proxy, which owns that header.
 */
const JSON_CSP = "default-src 'none'; frame-ancestors 'none'";
const DOCS_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; frame-ancestors 'none'";

/** The /docs UI and its assets: `/docs`, `/docs/…`, `/docs?…` (the path before any query). */
function isDocsUrl(url: string): boolean {
  return url.startsWith('/docs') && (url.length === 5 || url[5] === '/' || url[5] === '?');
}

/** The security headers of every JSON answer (the response cache's raw path writes them itself). */
export const JSON_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'content-security-policy': JSON_CSP,
});

/** Adds the security headers above to every answer of `app` (the /docs UI gets its own CSP) and `Cache-Control: no-store` unless one was set (docs/hardening.md). */
export function registerSecurityHeaders(app: FastifyInstance): void {
  // Callback-style and allocation-free (docs/benchmarks.md): it runs on every answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-opener-policy', 'same-origin');
    reply.header('content-security-policy', isDocsUrl(request.url) ? DOCS_CSP : JSON_CSP);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
