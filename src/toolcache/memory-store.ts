/**
 * The default, in-process {@link ToolCacheStore}: a Map of entries plus a
 * tag → keys index. Every method runs synchronously inside its promise, so
 * `insertIfEpoch` and `invalidate` are atomic with respect to each other (no
 * await between the epoch check and the write). No lock exists, so none can be
 * held across a tool run.
 */

import { freeze } from 'immer';
import { InvalidOptionError } from '../errors.js';
import type { StoredEntry, ToolCacheStore } from './store.js';
import { TaggedEntries } from './tag-index.js';

/** Why the store dropped an entry on its own. */
export type MemoryEvictionReason = 'capacity';

/** The default size bound of a memory store: a long agent session's worth of distinct reads. */
export const DEFAULT_MAX_ENTRIES = 10_000;

export interface MemoryToolCacheStoreOptions {
  /**
   * Size bound: beyond it the least recently used entry is dropped (second-chance LRU: an entry
   * looked up since it last reached the old end moves back to the young end instead, see tag-index.ts). Default
   * {@link DEFAULT_MAX_ENTRIES}; `Infinity` for none (then only lookups and
   * {@link MemoryToolCacheStore.sweep} remove expired entries).
   */
  readonly maxEntries?: number;
}

/**
 * Map-based store with an optional LRU bound.
 *
 * @example
 * ```ts
 * const cache = new ToolCache({ store: new MemoryToolCacheStore({ maxEntries: 500 }) });
 * ```
 */
export class MemoryToolCacheStore implements ToolCacheStore {
  readonly #entries = new TaggedEntries();
  readonly #maxEntries: number;
  readonly #listeners = new Set<(key: string, reason: MemoryEvictionReason) => void>();
  #epoch = 0;

  constructor(options: MemoryToolCacheStoreOptions = {}) {
    const max = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (max !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(max) || max < 1)) {
      throw new InvalidOptionError('maxEntries', `must be a positive integer, got ${String(options.maxEntries)}`);
    }
    this.#maxEntries = max;
  }

  /** Number of entries held (expired ones included until seen). */
  get size(): number {
    return this.#entries.size;
  }

  /** Subscribes to evictions the store makes on its own (LRU). Returns the unsubscribe function. */
  onEvict(listener: (key: string, reason: MemoryEvictionReason) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async epoch(): Promise<number> {
    return this.#epoch;
  }

  async get(key: string): Promise<StoredEntry | undefined> {
    return this.getSync(key);
  }

  /**
   * {@link get} without the promise (the same entry, the same LRU touch): the memoizer's hit path
   * uses it when the store is this class, unpatched, so a small hit allocates no promise chain.
   */
  getSync(key: string): StoredEntry | undefined {
    return this.#entries.get(key, this.#maxEntries !== Number.POSITIVE_INFINITY);
  }

  async insertIfEpoch(entry: StoredEntry, epoch: number): Promise<boolean> {
    if (epoch !== this.#epoch) return false;
    // A private frozen copy: callers may mutate what they passed or what a hit returned.
    const copy = freeze(structuredClone(entry), true);
    for (const oldest of this.#entries.set(copy, this.#maxEntries)) {
      for (const l of this.#listeners) l(oldest, 'capacity');
    }
    return true;
  }

  /**
   * Looks at up to `limit` least recently used entries and deletes those
   * `expired` says are expired; returns their keys. The cache calls it after each
   * insert, so expired entries leave at the pace new ones arrive, whatever the
   * bound. Expired entries gather at the old end, so a few looks suffice.
   */
  sweep(expired: (entry: StoredEntry) => boolean, limit = 8): string[] {
    const doomed: string[] = [];
    let looked = 0;
    for (const e of this.#entries.oldest()) {
      if (looked++ >= limit) break;
      if (expired(e)) doomed.push(e.key);
    }
    for (const key of doomed) this.#entries.delete(key);
    return doomed;
  }

  async invalidate(tags: readonly string[]): Promise<{ readonly evicted: readonly string[]; readonly epoch: number }> {
    const evicted = this.#entries.deleteTagged(tags);
    this.#epoch += 1;
    return { evicted, epoch: this.#epoch };
  }

  async delete(key: string): Promise<boolean> {
    return this.#entries.delete(key);
  }
}
