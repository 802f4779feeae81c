export * from './program.js';
export * from './events.js';
export { decodeEventBytes, encodeEventBytes, gameSettledCodec, poolChangeCodec, poolCreatedCodec, pubkeyCodec, type EventDecodeOutcome } from './codec.js';
export { decodeTransaction, type RpcTransaction, type RpcInstruction, type DecodedTransaction, type SkipReason } from './decode.js';
