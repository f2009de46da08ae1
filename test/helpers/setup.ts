/**
 * Runs before every test file. Test files share their worker's module cache
 * (vitest.config.ts: `isolate: false`), so a file must leave the process as it
 * found it: real timers, no spies, no stubbed globals or env, whatever its
 * own tests did or failed to undo.
 *
 * Property tests are reproducible: every fast-check run that does not pass its
 * own seed uses one fixed seed, so `npm test` (and CI) checks the same cases on
 * every machine and every run, and a failure reproduces with the same command.
 * Exploring other cases is deliberate:
 *   FC_SEED=123 npx vitest run test/render       # one other seed
 *   FC_SEED=random npx vitest run test/render    # a new seed per file, printed when a property fails
 *   npm run fuzz                                 # the property suites at scale, random seed
 * fast-check prints the seed (and path) of a failure in its message; replay it with FC_SEED=<seed>
 * (the property suites in test/property also take FUZZ_SEED and FUZZ_PATH).
 */
import fc from 'fast-check';
import { afterAll, vi } from 'vitest';
import { resetToolIds } from './build.js';
import { fastCheckSeed } from './fc-seed.js';

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: fastCheckSeed() });

// The same numbering whichever files ran before in this worker (here, not in a hook: a file may build
// sessions while it is collected, before any hook runs).
resetToolIds();

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
