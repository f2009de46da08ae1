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

interface Pending {
  readonly at: number;
  readonly reject: (e: Error) => void;
  done: boolean;
}

/**
 * Timeouts for many operations that all get the same time limit, with one timer
 * for all of them instead of one per operation (a timer set and cleared per
 * Redis command cost as much as the rest of the client's work). Operations start
 * in order and share `ms`, so their deadlines are in order: a FIFO of pending
 * operations, and one timer armed for the oldest one still pending. When it
 * fires, every operation past its deadline is rejected with `message`, and the
 * timer is armed again for the next one. The timer is unref'd (it never keeps
 * a process alive) and {@link close} clears it.
 */
export class SharedDeadline {
  readonly #ms: number;
  readonly #message: string;
  readonly #now: () => number;
  #queue: Pending[] = [];
  #head = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(ms: number, message = `timed out after ${ms} ms`, now: () => number = () => performance.now()) {
    this.#ms = ms;
    this.#message = message;
    this.#now = now;
  }

  /** Pending operations (settled ones may still sit in the queue until the timer or the next run drops them). */
  get pending(): number {
    let n = 0;
    for (let i = this.#head; i < this.#queue.length; i++) if (!this.#queue[i]!.done) n++;
    return n;
  }

  /** Settles like `promise`, or rejects with the timeout message when it has not settled within the limit. */
  run<T>(promise: PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { at: this.#now() + this.#ms, reject, done: false };
      this.#dropSettled();
      this.#queue.push(entry);
      if (this.#timer === undefined && !this.#closed) this.#arm(this.#ms);
      promise.then(
        (v) => {
          entry.done = true;
          resolve(v);
        },
        (e: unknown) => {
          entry.done = true;
          reject(e);
        },
      );
    });
  }

  /** Clears the timer; operations still pending are left to settle by themselves. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #dropSettled(): void {
    const q = this.#queue;
    while (this.#head < q.length && q[this.#head]!.done) this.#head++;
    if (this.#head === q.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > q.length) {
      this.#queue = q.slice(this.#head);
      this.#head = 0;
    }
  }

  #arm(delay: number): void {
    const t = setTimeout(() => this.#fire(), Math.max(0, delay));
    (t as { unref?: () => void }).unref?.();
    this.#timer = t;
  }

  #fire(): void {
    this.#timer = undefined;
    const now = this.#now();
    const q = this.#queue;
    while (this.#head < q.length) {
      const e = q[this.#head]!;
      if (!e.done) {
        if (e.at > now) break;
        e.done = true;
        e.reject(new Error(this.#message));
      }
      this.#head++;
    }
    this.#dropSettled();
    if (this.#head < this.#queue.length && !this.#closed) this.#arm(this.#queue[this.#head]!.at - now);
  }
}
