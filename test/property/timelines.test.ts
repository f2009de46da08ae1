/**
 * The property suite of issue 13: random sessions of every shape render valid,
 * prefix-stable requests, never throw, and lose nothing (see timelines.ts).
 * `npm test` runs a few hundred cases; `npm run fuzz` runs ≥ 10,000.
 * Reproduce a failure with the seed (and path) fast-check prints:
 *   FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/property/timelines.test.ts
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { runScript, sessionScript } from './timelines.js';

const runs = Number(process.env.FUZZ_RUNS ?? 300);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const path = process.env.FUZZ_PATH;

describe('random sessions', () => {
  it(`render valid, prefix-stable, lossless requests without throwing (${runs} cases)`, () => {
    fc.assert(
      fc.property(sessionScript, (script) => runScript(script)),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }), ...(path === undefined ? {} : { path }), endOnFailure: true },
    );
  }, 600_000);
});
