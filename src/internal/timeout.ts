/**
 * Settles like `promise`, or with `onTimeout()` (its value, or its throw) when
 * `promise` has not settled within `ms`; the timer never outlives the race.
 * The promise itself is not cancelled (pass an AbortSignal to the work where it
 * supports one).
 */
export function raceTimeout<T, U>(promise: PromiseLike<T>, ms: number, onTimeout: () => U): Promise<T | U> {
  return new Promise<T | U>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (e) {
        reject(e);
      }
    }, ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/** Rejects with `message` when `promise` has not settled within `ms` (see {@link raceTimeout}). */
export function withTimeout<T>(promise: PromiseLike<T>, ms: number, message = `timed out after ${ms} ms`): Promise<T> {
  return raceTimeout(promise, ms, (): never => {
    throw new Error(message);
  });
}
