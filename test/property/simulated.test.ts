/**
 * Random sessions (timelines.ts) through the provider cache simulator: no request it refuses, and no bust (a warm
 * entry matching the request's prefix that no marker could reach). Fixed seed (test/helpers/setup.ts); more with
 * FUZZ_SIM_RUNS. Mutation check: without the bridge (cache-points.ts) the default seed fails at its 70th case.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { emptyStats, runScript, sessionScript } from './timelines.js';

const runs = Number(process.env.FUZZ_SIM_RUNS ?? 80);

describe('random sessions through the provider simulator', () => {
  it(`no refused request and no bust (${runs} cases)`, () => {
    fc.assert(
      fc.property(sessionScript, (script) => runScript(script, emptyStats(), true)),
      { numRuns: runs, endOnFailure: true },
    );
  }, 600_000);
});
