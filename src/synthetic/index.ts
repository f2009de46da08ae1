/** Synthetic session traces: the seeded generator, its content and catalog, and the committed fixture recipes. */
export { FIXTURE_SPECS } from './fixtures.js';
export type { FixtureSpec } from './fixtures.js';
export { generateTrace, TRACE_PROFILES } from './generate.js';
export type { GenerateOptions, TraceProfile } from './generate.js';
export { Rng } from './rng.js';
