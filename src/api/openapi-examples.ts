import type { RecordedExamples } from './openapi-document.js';

/** Placeholder until scripts/openapi-examples.ts records real answers. */
export const OPENAPI_EXAMPLES: RecordedExamples = { operations: {}, errors: {} };
