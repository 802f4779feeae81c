export { type CreateKeyInput, type CreatedKey, type KeyService, type KeyServiceDeps, type VerifyOutcome, createKeyService } from './service.js';
export { ENTERPRISE_DEFAULT_RPM, TIERS, TIER_LIMITS, isTier, resolveLimits } from './tiers.js';
export { KEY_PATTERN, generateKey, hashKey, normalizeKey } from './material.js';
export { parseExpiry } from './expiry.js';
export { DEFAULT_SCOPES, PUBLISHABLE_SCOPES, SCOPES, isScope, normalizeOrigin, parseScopes } from './scopes.js';
