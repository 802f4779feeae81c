export * from './types.js';
export { createStore, type CreateStoreOptions, type StoreAccess } from './create.js';
export { encodeCursor } from './queries/events.js';
