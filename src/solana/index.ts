export {
  ADDRESS_TRANSACTIONS_MAX_FULL,
  createRpcClient,
  mintDecimals,
  type AddressTransactionsQuery,
  type RangeFilter,
  type RpcClient,
  type RpcClientOptions,
  type SignaturesQuery,
  type TxQuery,
} from './client.js';
export { createRpcTransport, MAX_BATCH, type RpcTransport, type RpcTransportOptions, type RetryOptions, type CallOptions } from './rpc-client.js';
export { RETRYABLE_RPC_CODES, parseRetryAfter, rpcError } from './errors.js';
export { openGeyserStream, toTransactionResult, type GeyserSlot, type GeyserStream, type GeyserStreamOptions } from './geyser-stream.js';
export { subscribeLogs, type LogsSubscription, type LogsSubscriptionOptions, type LogsNotification } from './logs-subscription.js';
export { createRateLimiter, type RateLimiter } from './rate-limiter.js';
export { createSemaphore, type Semaphore } from './semaphore.js';
export type { AddressTransaction, AddressTransactionsPage, Commitment, SignatureInfo, TransactionResult, InstructionJson, ParsedAccount, RpcCallSpec, BatchOutcome } from './types.js';
