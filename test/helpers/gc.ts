/** Garbage collection for retention tests. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full, synchronous collection (exposed at run time when the process was not started with --expose-gc). */
export function collect(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (typeof g === 'function') g();
  else {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  }
}
