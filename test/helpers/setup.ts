/**
 * Runs before every test file. Test files share their worker's module cache
 * (vitest.config.ts: `isolate: false`), so a file must leave the process as it
 * found it: real timers, no spies, no stubbed globals or env, whatever its
 * own tests did or failed to undo.
 */
import { afterAll, vi } from 'vitest';

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
