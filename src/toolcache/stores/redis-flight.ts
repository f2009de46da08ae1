/**
 * Distributed singleflight over Redis: one process runs a tool for a key while
 * the others wait for its result.
 *
 * The claim is a lock key holding the owner's token with a short expiry (SET NX
 * PX); only the owner's token can release it (compare-and-delete in Lua). The
 * lock is never held across anything but the one tool run, and it expires on
 * its own if the owner dies. Waiters subscribe to the key's flight channel (the
 * insert and release scripts publish on it) and also poll, so a lost message
 * costs one poll interval, never a hang. A waiter returns the entry as soon as
 * it is stored, and `undefined` (run the tool yourself) when the lock is gone
 * without an entry (owner failed, was refused by the epoch guard, or died) or
 * when `timeoutMs` passed.
 *
 * Waits use only short commands, never blocking ones, so node-redis's command
 * timeout (5 s by default, 500 ms as configured by this package) never cuts a
 * long wait short.
 */

import type { FlightCoordinator, StoredEntry } from '../store.js';
import type { RedisLike, RedisScript } from './redis-client.js';
import { ACQUIRE_SCRIPT, PEEK_SCRIPT, RELEASE_SCRIPT } from './redis-scripts.js';
import { withTimeout } from '../../internal/timeout.js';

/** What the coordinator needs from the store it belongs to. */
export interface FlightHost {
  readonly client: RedisLike;
  readonly pollMs: number;
  lockKey(key: string): string;
  entryKey(key: string): string;
  /** The namespace's last write to everything (an entry older than it is not live: redis-scripts.ts). */
  readonly allKey: string;
  flightChannel(key: string): string;
  /** Runs a script through the store's error accounting. */
  script(op: string, s: RedisScript, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** Decodes a raw value for `key`, deleting it and counting the failure when it is corrupt. */
  decode(raw: string, key: string): Promise<StoredEntry | undefined>;
  /** Counts wait outcomes. */
  count(what: 'waits' | 'waitHits' | 'waitGaveUp' | 'waitTimeouts'): void;
}

const SUBSCRIBE_TIMEOUT_MS = 250;

export class RedisFlightCoordinator implements FlightCoordinator {
  readonly #host: FlightHost;

  constructor(host: FlightHost) {
    this.#host = host;
  }

  async acquire(key: string, token: string, ttlMs: number): Promise<boolean> {
    const px = String(Math.max(1, Math.ceil(ttlMs)));
    const keys = [this.#host.lockKey(key), this.#host.entryKey(key), this.#host.allKey];
    return (await this.#host.script('flight.acquire', ACQUIRE_SCRIPT, keys, [token, px])) === 1;
  }

  async release(key: string, token: string): Promise<void> {
    await this.#host.script('flight.release', RELEASE_SCRIPT, [this.#host.lockKey(key)], [token, this.#host.flightChannel(key)]);
  }

  async wait(key: string, timeoutMs: number): Promise<StoredEntry | undefined> {
    const host = this.#host;
    host.count('waits');
    const deadline = performance.now() + Math.max(0, timeoutMs);
    const channel = host.flightChannel(key);
    let notified = false;
    let wake: () => void = () => undefined;
    const listener = (): void => {
      notified = true;
      wake();
    };
    // Subscribe before the first peek, so a store/release between the peek and
    // the sleep still wakes us. If subscribing fails (subscriber offline), polling remains.
    let subscribed = false;
    try {
      await withTimeout(host.client.subscribe([channel], listener), SUBSCRIBE_TIMEOUT_MS);
      subscribed = true;
    } catch {
      // A subscribe that timed out may still complete later: do not leave the listener behind.
      host.client.unsubscribe([channel], listener).catch(() => undefined);
    }
    try {
      for (;;) {
        notified = false;
        const reply = (await host.script('flight.wait', PEEK_SCRIPT, [host.entryKey(key), host.lockKey(key), host.allKey], [])) as [string | null, number];
        const [raw, locked] = reply;
        if (raw !== null && raw !== undefined) {
          const entry = await host.decode(String(raw), key);
          host.count(entry === undefined ? 'waitGaveUp' : 'waitHits');
          return entry;
        }
        if (Number(locked) === 0) {
          host.count('waitGaveUp');
          return undefined;
        }
        const remaining = deadline - performance.now();
        if (remaining <= 0) {
          host.count('waitTimeouts');
          return undefined;
        }
        if (!notified) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(host.pollMs, remaining));
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = () => undefined;
        }
      }
    } finally {
      if (subscribed) host.client.unsubscribe([channel], listener).catch(() => undefined);
    }
  }
}
