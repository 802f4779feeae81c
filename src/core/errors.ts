/**
 * The one error base of the project (docs/architecture.md convention 5: errors by kind).
 *
 * `code` is a machine-readable code (the API maps codes to HTTP statuses in one registry,
 * see src/api/errors.ts and docs/errors.md); `retryable` decides retries in one place
 * (the RPC client, the indexer loop). Drivers' and RPC errors are mapped to AppError at the edge.
 */
export class AppError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: string,
    message: string,
    opts: { retryable?: boolean; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details;
  }
}

/** Type guard for AppError (the one error base; docs/architecture.md convention 5). */
export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** A value-level outcome for expected denials (bad key, rate limited): no exceptions. */
export type Result<T, E = { code: string }> = ({ ok: true } & T) | ({ ok: false } & E);
