/**
 * The storage contract of the tool-result cache. The memoizer (policy, keys,
 * TTL, singleflight, stats) is written once against this interface; the
 * in-memory store and the Redis store implement it. Each method that the
 * staleness rules depend on is atomic on the store's side: a store that cannot
 * make `insertIfEpoch` and `invalidate` atomic must not implement this interface.
 */

import type { EvictionReason } from './stats.js';

/**
 * The tag that names every entry of a store, whether or not the entry lists it: what a write to everything (a
 * tool the cache was never told about) invalidates. ToolCache adds it to every read entry's tags; a store may
 * honour it without an index of every entry (the Redis store moves a namespace generation instead, in O(1)).
 * The `~` keeps it out of the tags a policy can name.
 */
export const EVERYTHING_TAG = '~all';

/** A successful tool result as it is replayed: text, or content parts. */
export type CachedContent =
  | string
  | ReadonlyArray<
      | { readonly type: 'text'; readonly text: string }
      | { readonly type: 'image'; readonly source: unknown }
      | { readonly type: string; readonly [k: string]: unknown }
    >;

/** One remembered answer. Stores treat it as an opaque JSON-serializable value except for `key`, `tags` and `expiresAtMs`. */
export interface StoredEntry {
  /** The full cache key (namespace-free): tool, scope and argument hash. */
  readonly key: string;
  readonly tool: string;
  readonly scope: string;
  readonly content: CachedContent;
  /** How long the original run took; a hit reports this, not its own time. */
  readonly durationMs: number;
  /** Turn clock value when inserted (for turn TTLs). */
  readonly insertedTurn: number;
  /** Wall clock (ms since epoch) when inserted. */
  readonly insertedAtMs: number;
  /** TTL in turns, when the policy uses the turn clock. */
  readonly ttlTurns?: number;
  /** Absolute expiry on the inserting cache's clock (ms) for second-based TTLs: what the memoizer judges by. */
  readonly expiresAtMs?: number;
  /**
   * The lifetime left in ms when the entry is inserted (second-based TTLs: the TTL minus the time its miss took):
   * what a store uses to expire the entry natively. Relative, so a store never compares `expiresAtMs` (on the
   * cache's clock, which may be injected) with its own clock.
   */
  readonly ttlMs?: number;
  /** The session whose turn clock `insertedTurn` and `ttlTurns` count (turn-based TTLs only). */
  readonly session?: string;
  /** Paths / entity tags / family tags this entry depends on; a write to any of them evicts it. */
  readonly tags: readonly string[];
}

/** Distributed singleflight, for stores shared by several processes. */
export interface FlightCoordinator {
  /** Tries to become the one runner for `key`. `token` identifies the owner; the claim lapses after `ttlMs`. */
  acquire(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Gives up the claim (only if still owned by `token`). */
  release(key: string, token: string): Promise<void>;
  /**
   * Waits until the runner for `key` stored an entry (returns it) or gave up /
   * died (returns undefined: the caller runs the tool itself). Never waits past `timeoutMs`.
   */
  wait(key: string, timeoutMs: number): Promise<StoredEntry | undefined>;
}

/**
 * Where the tool cache keeps entries. Follows TanStack Query's small store
 * interface; all methods are async so a network store fits.
 */
export interface ToolCacheStore {
  /** The current invalidation epoch; it only grows. */
  epoch(): Promise<number>;
  /** The entry under `key`, or undefined. Stores may drop natively expired entries; TTL rules are the memoizer's. */
  get(key: string): Promise<StoredEntry | undefined>;
  /**
   * Atomically: insert `entry` only if no invalidation happened since `epoch`
   * was read. Returns false (and stores nothing) when the epoch moved.
   */
  insertIfEpoch(entry: StoredEntry, epoch: number): Promise<boolean>;
  /**
   * Atomically: delete every entry carrying any of `tags` (every entry, when they hold {@link EVERYTHING_TAG})
   * and advance the epoch (even when nothing was evicted). Returns the evicted keys: a store may leave out the
   * entries `EVERYTHING_TAG` made unreachable without deleting them one by one (Redis does).
   * `writes`: the tokens of the writes this invalidation completes, whose marks
   * ({@link beginWrite}) it lifts in the same step.
   */
  invalidate(tags: readonly string[], writes?: readonly string[]): Promise<{ readonly evicted: readonly string[]; readonly epoch: number }>;
  /**
   * Optional, for stores shared by several processes: called before a write tool
   * runs. Atomically deletes every entry carrying any of `tags` and marks the tags
   * as being written by `token`: while a mark stands (until `invalidate(…, [token])`
   * or {@link endWrite} lifts it, or it expires), `insertIfEpoch` refuses entries
   * carrying a marked tag. So a write whose invalidation never reaches the store
   * (this process lost it, or died) leaves no entry older than the write for another
   * process to serve. Advances the epoch, as `invalidate` does: a run that started
   * before the write must not be joined by a call that starts after it, even if the
   * write's invalidation is lost. Returns the evicted keys.
   */
  beginWrite?(tags: readonly string[], token: string): Promise<{ readonly evicted: readonly string[] }>;
  /** Lifts the marks of a write that failed (nothing else: no eviction, no epoch move). */
  endWrite?(tags: readonly string[], token: string): Promise<void>;
  /** Deletes one entry (expired on sight, decode failure, LRU). */
  delete(key: string): Promise<boolean>;
  /**
   * Optional: subscribes to entries the store deletes on its own, not as the answer to a call: the memory store's
   * LRU bound (`capacity`); the Redis store deleting an entry a write to everything made unreachable when a read
   * meets it (`write`: that write deletes nothing itself, so it is counted then, once across the fleet). ToolCache
   * counts them in `evictions`. Returns the unsubscribe function.
   */
  onEvict?(listener: (key: string, reason: EvictionReason) => void): () => void;
  /** Present on stores shared across processes. */
  readonly flight?: FlightCoordinator;
  /** Releases connections and timers. */
  close?(): Promise<void>;
}
