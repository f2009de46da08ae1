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

import { raceTimeout } from '../internal/timeout.js';

interface Flight<T, S> {
  readonly epoch: number;
  readonly promise: Promise<T>;
  /** What the run's starter said about it (the cache: the turn and time it started at). */
  readonly stamp: S | undefined;
}

/** What {@link SingleFlight.run} returns: the run's promise and whether this caller joined an existing one. */
export interface FlightTicket<T> {
  /**
   * The run's result or error. For a joiner with a timeout: `TIMED_OUT` when the
   * run did not settle in time (the caller then runs on its own).
   */
  readonly promise: Promise<T | typeof TIMED_OUT>;
  readonly shared: boolean;
}

/** What a joiner's promise resolves to when the run it joined did not settle within its timeout. */
export const TIMED_OUT: unique symbol = Symbol('flight timed out');

/**
 * Collapses concurrent runs by key.
 *
 * @example
 * ```ts
 * const sf = new SingleFlight<string>();
 * const [a, b] = [sf.run('k', 0, load), sf.run('k', 0, load)]; // load runs once
 * ```
 */
export class SingleFlight<T, S = unknown> {
  readonly #flights = new Map<string, Flight<T, S>>();

  /** Number of flights in the air. */
  get size(): number {
    return this.#flights.size;
  }

  /**
   * Joins the flight for `key` started at `epoch`, or starts `fn` as a new one.
   * A joiner waits at most `joinTimeoutMs`: a run that never settles must not
   * block every identical caller forever. On timeout the hung flight is also
   * forgotten, so later callers start afresh instead of joining it. With `joinable`, a caller joins
   * only a flight whose `stamp` it accepts (the cache: a run not older than the call's TTL); otherwise
   * it starts a new flight, which later callers join instead.
   */
  run(
    key: string,
    epoch: number,
    fn: () => Promise<T>,
    joinTimeoutMs = Number.POSITIVE_INFINITY,
    stamp?: S,
    joinable?: (stamp: S | undefined) => boolean,
  ): FlightTicket<T> {
    const existing = this.#flights.get(key);
    if (existing !== undefined && existing.epoch === epoch && (joinable === undefined || joinable(existing.stamp))) {
      return { promise: Number.isFinite(joinTimeoutMs) ? this.#joinWithin(key, existing, joinTimeoutMs) : existing.promise, shared: true };
    }
    // `then(fn)` starts the run one microtask later, so `flight` exists before any `finally` can look for it.
    const promise = Promise.resolve()
      .then(fn)
      .finally(() => {
        // Only remove ourselves: a newer flight may have replaced us after an invalidation.
        if (this.#flights.get(key) === flight) this.#flights.delete(key);
      });
    const flight: Flight<T, S> = { epoch, promise, stamp };
    this.#flights.set(key, flight);
    return { promise, shared: false };
  }

  #joinWithin(key: string, flight: Flight<T, S>, ms: number): Promise<T | typeof TIMED_OUT> {
    return raceTimeout(flight.promise, ms, () => {
      if (this.#flights.get(key) === flight) this.#flights.delete(key);
      return TIMED_OUT;
    });
  }
}
