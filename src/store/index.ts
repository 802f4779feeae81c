export * from './types.js';
export { createStore, type CreateStoreOptions } from './create.js';
export { encodeCursor } from './queries/events.js';
