export { AppError, isAppError, type Result } from './errors.js';
export { type Clock, systemClock, ManualClock } from './clock.js';
export { sleep, aborted } from './sleep.js';
export { type Logger, createLogger, silentLogger, REDACT_PATHS } from './logger.js';
export { type Metrics, createMetrics } from './metrics.js';
export { type Shutdown, createShutdown } from './shutdown.js';
export { type Common, createCommon } from './common.js';
export * from './time.js';
export * from './u64.js';
