/**
 * Rejects with `message` when `promise` has not settled within `ms`; the timer
 * never outlives the race. The promise itself is not cancelled (pass an
 * AbortSignal to the work where it supports one).
 */
export function withTimeout<T>(promise: PromiseLike<T>, ms: number, message = `timed out after ${ms} ms`): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
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
