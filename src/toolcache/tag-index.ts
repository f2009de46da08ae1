/**
 * Entries by key, with an index from tag to keys and least-recently-used
 * order: what both in-process stores (the memory store and the Redis front
 * tier) need to evict by tag and by capacity. Not a store itself: no epoch, no
 * atomicity across processes.
 */
import type { StoredEntry } from './store.js';

export class TaggedEntries {
  readonly #entries = new Map<string, StoredEntry>();
  readonly #byTag = new Map<string, Set<string>>();

  get size(): number {
    return this.#entries.size;
  }

  /** The entry; `touch` marks it most recently used (a Map keeps insertion order). */
  get(key: string, touch: boolean): StoredEntry | undefined {
    const e = this.#entries.get(key);
    if (e !== undefined && touch) {
      this.#entries.delete(key);
      this.#entries.set(key, e);
    }
    return e;
  }

  /** Entries from the least recently used on (read-only; do not delete while iterating). */
  oldest(): IterableIterator<StoredEntry> {
    return this.#entries.values();
  }

  /** Puts an entry (replacing one under its key); returns the keys evicted to stay within `max`. */
  set(entry: StoredEntry, max = Number.POSITIVE_INFINITY): string[] {
    this.delete(entry.key);
    this.#entries.set(entry.key, entry);
    for (const t of entry.tags) {
      let set = this.#byTag.get(t);
      if (set === undefined) this.#byTag.set(t, (set = new Set()));
      set.add(entry.key);
    }
    const evicted: string[] = [];
    while (this.#entries.size > max) {
      const oldest = this.#entries.keys().next().value as string;
      this.delete(oldest);
      evicted.push(oldest);
    }
    return evicted;
  }

  /** Deletes every entry carrying any of `tags`; returns their keys. */
  deleteTagged(tags: readonly string[]): string[] {
    const out: string[] = [];
    for (const t of tags) {
      const keys = this.#byTag.get(t);
      if (keys === undefined) continue;
      for (const k of [...keys]) if (this.delete(k)) out.push(k);
    }
    return out;
  }

  delete(key: string): boolean {
    const e = this.#entries.get(key);
    if (e === undefined) return false;
    this.#entries.delete(key);
    for (const t of e.tags) {
      const set = this.#byTag.get(t);
      if (set === undefined) continue;
      set.delete(key);
      if (set.size === 0) this.#byTag.delete(t);
    }
    return true;
  }

  clear(): void {
    this.#entries.clear();
    this.#byTag.clear();
  }
}
