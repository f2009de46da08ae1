/**
 * In-process singleflight: concurrent identical misses run the tool once and
 * every caller receives that result or that error.
 *
 * A flight remembers the store epoch it started at, and a caller joins it only
 * when the epoch it reads itself is the same. Otherwise a write completed after
 * the flight started but before the joiner did, and the flight's (possibly
 * older) result must not be handed to the joiner: it starts a fresh flight.
 * A flight leaves the map the moment it settles, so the next call after
 * completion runs fresh. Nothing here is a lock: no caller waits for anything
 * but the one run it joined.
 */

interface Flight<T> {
  readonly epoch: number;
  readonly promise: Promise<T>;
}

/** What {@link SingleFlight.run} returns: the run's promise and whether this caller joined an existing one. */
export interface FlightTicket<T> {
  readonly promise: Promise<T>;
  readonly shared: boolean;
}

/**
 * Collapses concurrent runs by key.
 *
 * @example
 * ```ts
 * const sf = new SingleFlight<string>();
 * const [a, b] = [sf.run('k', 0, load), sf.run('k', 0, load)]; // load runs once
 * ```
 */
export class SingleFlight<T> {
  readonly #flights = new Map<string, Flight<T>>();

  /** Number of flights in the air. */
  get size(): number {
    return this.#flights.size;
  }

  /** Joins the flight for `key` started at `epoch`, or starts `fn` as a new one. */
  run(key: string, epoch: number, fn: () => Promise<T>): FlightTicket<T> {
    const existing = this.#flights.get(key);
    if (existing !== undefined && existing.epoch === epoch) return { promise: existing.promise, shared: true };
    // `then(fn)` starts the run one microtask later, so `flight` exists before any `finally` can look for it.
    const promise = Promise.resolve()
      .then(fn)
      .finally(() => {
        // Only remove ourselves: a newer flight may have replaced us after an invalidation.
        if (this.#flights.get(key) === flight) this.#flights.delete(key);
      });
    const flight: Flight<T> = { epoch, promise };
    this.#flights.set(key, flight);
    return { promise, shared: false };
  }
}
