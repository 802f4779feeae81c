/**
 * Transactions as a node shows them: instruction encoders, program logs, per-kind plans, the
 * compiled wire form and its JSON renderings, the `ChainView` that serves them, the render-ahead
 * cache and the ground truth. Imports `chain/` and `json/` (docs/architecture.md "Layout").
 */
export { iterateGroundTruth, groundTruthLine, parseGroundTruthLine, exportGroundTruth, type GroundTruthEvent } from './groundtruth.js';
export { MORE_IX_DISCRIMINATORS, gambaIx, computeBudgetIx, tokenIx, systemIx } from './instructions.js';
export { renderAhead } from './render-ahead.js';
export { renderTransaction, renderTransactionJsonText, renderTransactionJsonBytes, type TxEncoding } from './txjson.js';
export { txError } from './txplan.js';
export { createChainView, type ChainView } from './view.js';
