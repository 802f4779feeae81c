import { AppError } from '../core/index.js';

/**
 * Mapping of transport and JSON-RPC failures to AppError kinds (docs/architecture.md convention 5), so retries
 * are decided in one place from `retryable`.
 *
 * Retryable JSON-RPC codes (agave rpc-client-api custom_error.rs; docs/protocol.md §2):
 * -32004 block not available yet, -32005 node unhealthy/behind, -32014 block status not yet
 * available, -32016 min context slot not reached, -32019 long-term storage unreachable,
 * -32603 internal error (providers use it for transient upstream failures), and 429 which
 * some providers (QuickNode) put in the JSON-RPC body. Not retryable: -32007/-32009 (skipped
 * slot: the answer will not change), -32602 invalid params, -32015 unsupported tx version,
 * -32600/-32601 invalid request / method not found.
 */
export const RETRYABLE_RPC_CODES: ReadonlySet<number> = new Set([-32004, -32005, -32014, -32016, -32019, -32603, 429]);

/** The `error` member of a JSON-RPC 2.0 response. */
export interface JsonRpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC `error` member → AppError RPC_ERROR with details {method, rpcCode, data}. */
export function rpcError(method: string, e: JsonRpcErrorBody): AppError {
  const code = typeof e.code === 'number' ? e.code : 0;
  return new AppError('RPC_ERROR', `${method}: JSON-RPC error ${code}: ${String(e.message ?? '')}`, {
    retryable: RETRYABLE_RPC_CODES.has(code),
    details: { method, rpcCode: code, data: e.data },
  });
}

/** HTTP status → AppError: 429 RPC_RATE_LIMITED and 5xx RPC_UNAVAILABLE are retryable; other statuses are not. */
export function httpError(method: string, status: number, body: string, retryAfterMs: number | undefined): AppError {
  const snippet = body.slice(0, 200);
  if (status === 429) {
    return new AppError('RPC_RATE_LIMITED', `${method}: HTTP 429 from RPC endpoint`, {
      retryable: true,
      details: { method, status, retryAfterMs, body: snippet },
    });
  }
  if (status >= 500) {
    return new AppError('RPC_UNAVAILABLE', `${method}: HTTP ${status} from RPC endpoint`, {
      retryable: true,
      details: { method, status, retryAfterMs, body: snippet },
    });
  }
  return new AppError('RPC_HTTP_ERROR', `${method}: HTTP ${status} from RPC endpoint: ${snippet}`, {
    retryable: false,
    details: { method, status, body: snippet },
  });
}

/**
 * Parses `Retry-After` (delta seconds or HTTP date, RFC 9110 §11.2.3) into a wait in ms;
 * undefined when absent/invalid. `nowMs`: the caller's clock (Unix ms), what an HTTP date is measured from.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The kind label used in the rpc_errors_total metric. */
export function errorKind(err: AppError): string {
  if (err.code === 'RPC_ERROR') return `rpc_${String(err.details?.rpcCode ?? 'unknown')}`;
  if (err.code === 'RPC_RATE_LIMITED' || err.code === 'RPC_UNAVAILABLE' || err.code === 'RPC_HTTP_ERROR') return `http_${String(err.details?.status ?? '')}`;
  return err.code.toLowerCase();
}
