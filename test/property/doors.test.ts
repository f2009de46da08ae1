/**
 * The drop-in door (`prepare`) under random sessions and loops that append,
 * re-send, edit, cut, retry, prefill, hide and move between stores (see
 * doors.ts). `npm test` runs a few dozen cases; `npm run fuzz` thousands.
 * Reproduce a failure with the seed (and path) fast-check prints:
 *   FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/property/doors.test.ts
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { doorScript, runDoorScript } from './doors.js';

const runs = Number(process.env.FUZZ_DOORS_RUNS ?? 24);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const path = process.env.FUZZ_PATH;

describe('random sessions through prepare', () => {
  it(`valid requests, the Session path's bytes while the loop appends, resyncs with reasons, lossless recall (${runs} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(doorScript, (script) => runDoorScript(script)),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }), ...(path === undefined ? {} : { path }), endOnFailure: true },
    );
  }, 600_000);
});
