/** The ImportError `fn` throws (anything else it throws, or nothing, fails the test). */
import { ImportError } from '../../src/import/errors.js';

export function importError(fn: () => unknown): ImportError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ImportError) return e;
    throw e;
  }
  throw new Error('expected an ImportError');
}
