export { buildApp } from './app.js';
export { type RunningServer, startServer } from './server.js';
export type { ApiDeps, ApiOptions } from './types.js';
export { ERROR_CODES, type ApiErrorCode, type ErrorBody, apiError, invalidParameter } from './errors.js';
export { API_VERSION } from './plugins/openapi.js';
export { DEFAULT_AUTH_FAILURE_LIMITS } from './plugins/auth.js';
export { startMetricsServer } from './metrics-server.js';
