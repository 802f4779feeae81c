import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Paths the logger always censors: API keys travel in these headers (spec §5). Redaction
 * lives in the logger configuration, never at call sites (STYLE habit 11).
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

export interface LoggerOptions {
  level?: string;
  /** Pretty output only when stdout is a TTY (DESIGN §9). */
  pretty?: boolean;
  /** Write somewhere other than stdout (tests capture lines this way). */
  destination?: NodeJS.WritableStream;
}

/** Creates the pino JSON-lines logger with key redaction configured. */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? 'info';
  const base = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  if (opts.destination) return pino(base, opts.destination as DestinationStream);
  if (opts.pretty ?? false) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(base);
}

/** A logger that discards everything (tests that don't inspect logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
