export { createLoopRun, type LoopRun, type RunStatus } from './run.js';
export { toSyncState, type BackfillState, type RangeState, type TailState } from './state.js';
export { loadCheckpoints } from './startup.js';
export { createBackfillLoop, type BackfillLoop, type BackfillLoopOptions } from './backfill-loop.js';
export { createTailLoop, type PassTrigger, type TailLoop, type TailLoopOptions } from './tail-loop.js';
export { createRepriceLoop, type RepriceLoop } from './reprice-loop.js';
