/** `cachepoint/testing`: helpers for testing code that renders prompts. */
export { formatRendered, isRendered } from './snapshot.js';
export { renderSerializer } from './vitest-serializer.js';
export { assertPrefixStable, stablePrefix, PrefixStabilityError } from './stability.js';
