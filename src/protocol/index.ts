export * from './program.js';
export * from './events.js';
export { decodeEventBytes, encodeEventBytes, gameSettledCodec, poolChangeCodec, poolCreatedCodec, type EventDecodeOutcome } from './codec.js';
export { decodeTransaction, type RpcTransaction, type RpcInstruction, type DecodedTransaction, type SkipReason } from './decode.js';
export { base58Decode, base58Encode, base58EncodeInto, base58MaxLength } from './base58.js';
export { BorshReader, BorshWriter, BorshError } from './borsh.js';
