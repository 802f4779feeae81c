import { createRequire } from 'node:module';
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths the logger always censors: API keys travel in these headers (docs/spec.md §5). Redaction
 * lives in the logger configuration, never at call sites (docs/architecture.md convention 11).
 */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'headers.authorization',
  'apiKey',
  'key',
  '*.apiKey',
];

/** An API key's shape (64 hex, docs/spec.md §5.2) anywhere in a logged URL: careless clients put keys in query strings. */
const KEY_IN_TEXT = /[0-9a-f]{64}/gi;

/** A URL as it may be logged: anything shaped like an API key replaced by `[redacted]`. */
export function redactUrl(url: unknown): unknown {
  return typeof url === 'string' ? url.replace(KEY_IN_TEXT, '[redacted]') : url;
}

/**
 * Serializers for the fields that carry a URL (Fastify's `req` on "incoming request", our
 * `url` fields): header paths are censored by `redact`, but a key in a query string is text
 * inside a string, which path-based redaction cannot reach.
 */
const SERIALIZERS = {
  req: (req: { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
  url: redactUrl,
};

/**
 * Whether pino-pretty can be loaded from here. It is a dev dependency, so a production install
 * (`npm ci --omit=dev`, docs/deployment.md "Installing for production") lacks it; pino would
 * otherwise fail in its transport worker when asked for it.
 */
export function prettyAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/** What createLogger takes: level, pretty output, destination. */
export interface LoggerOptions {
  level?: string;
  /**
   * Pretty output, meant for when stdout is a TTY (docs/design.md §9). Honoured only when
   * pino-pretty is installed ({@link prettyAvailable}); otherwise the lines stay JSON.
   */
  pretty?: boolean;
  /** Write somewhere other than stdout (tests capture lines this way). */
  destination?: NodeJS.WritableStream;
}

/**
 * Creates the pino JSON-lines logger with key redaction configured; pretty lines (pino-pretty,
 * colorized) when `pretty` is asked for and the package is present.
 */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? 'info';
  const base = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, serializers: { err: stdSerializers.err, ...SERIALIZERS } };
  if (opts.destination) return pino(base, opts.destination as DestinationStream);
  if ((opts.pretty ?? false) && prettyAvailable()) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(base);
}

/** A logger that discards everything (tests that don't inspect logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
