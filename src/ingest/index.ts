export { type SyncController, type SyncState, type SyncTrigger, createIdleSyncController } from './controller.js';
