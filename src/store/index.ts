export * from './types.js';
export * from './types-house.js';
export * from './types-coverage.js';
export { houseEdgeKinds } from './queries/house-edge.js';
export { createStore, type CreateStoreOptions, type StoreAccess, DEFAULT_STORE_READERS, DEFAULT_STORE_TIMEOUT_MS } from './create.js';
export { isStoreUnavailable } from './driver-errors.js';
export { type KeyKind, keysetKinds, matchesKinds } from './queries/keyset.js';
export { createLeaderLock, leaderLockName, type LeaderLock, type LeaderLockOptions, type Leadership } from './leader-lock.js';
