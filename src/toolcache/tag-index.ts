/**
 * Entries by key, with an index from tag to keys and least-recently-used
 * order: what both in-process stores (the memory store and the Redis front
 * tier) need to evict by tag and by capacity. Not a store itself: no epoch, no
 * atomicity across processes.
 *
 * Recency is kept the second-chance way (CLOCK): a lookup only sets a flag on
 * the entry's slot; when the bound is exceeded, the oldest slot is evicted
 * unless its flag is set, in which case the flag is cleared and the entry moves
 * to the young end. A hit therefore costs one Map lookup (moving the entry on
 * every hit cost a delete and a set, a fifth of a small hit), and an entry used
 * since it last reached the old end is never the one evicted.
 */
import { EVERYTHING_TAG, type StoredEntry } from './store.js';

interface Slot {
  readonly entry: StoredEntry;
  /** Used since it was inserted or last given its second chance. */
  used: boolean;
}

export class TaggedEntries {
  readonly #entries = new Map<string, Slot>();
  readonly #byTag = new Map<string, Set<string>>();

  get size(): number {
    return this.#entries.size;
  }

  /** The entry; `touch` marks it used (it survives the next capacity eviction that reaches it). */
  get(key: string, touch: boolean): StoredEntry | undefined {
    const slot = this.#entries.get(key);
    if (slot === undefined) return undefined;
    if (touch) slot.used = true;
    return slot.entry;
  }

  /** Entries from the old end on (read-only; do not delete while iterating). */
  *oldest(): IterableIterator<StoredEntry> {
    for (const slot of this.#entries.values()) yield slot.entry;
  }

  /** Puts an entry (replacing one under its key); returns the keys evicted to stay within `max`. */
  set(entry: StoredEntry, max = Number.POSITIVE_INFINITY): string[] {
    this.delete(entry.key);
    // Room first, so the new entry is never the one evicted.
    const evicted: string[] = [];
    while (this.#entries.size >= max && this.#entries.size > 0) {
      const [oldest, slot] = this.#entries.entries().next().value as [string, Slot];
      if (slot.used) {
        // Its second chance: to the young end, unmarked. Each pass unmarks, so this ends.
        slot.used = false;
        this.#entries.delete(oldest);
        this.#entries.set(oldest, slot);
        continue;
      }
      this.delete(oldest);
      evicted.push(oldest);
    }
    this.#entries.set(entry.key, { entry, used: false });
    for (const t of entry.tags) {
      if (t === EVERYTHING_TAG) continue; // it names every entry: no index to keep (deleteTagged)
      let set = this.#byTag.get(t);
      if (set === undefined) this.#byTag.set(t, (set = new Set()));
      set.add(entry.key);
    }
    return evicted;
  }

  /** Deletes every entry carrying any of `tags` (every entry, for {@link EVERYTHING_TAG}); returns their keys. */
  deleteTagged(tags: readonly string[]): string[] {
    if (tags.includes(EVERYTHING_TAG)) {
      const all = [...this.#entries.keys()];
      this.clear();
      return all;
    }
    const out: string[] = [];
    for (const t of tags) {
      const keys = this.#byTag.get(t);
      if (keys === undefined) continue;
      for (const k of [...keys]) if (this.delete(k)) out.push(k);
    }
    return out;
  }

  delete(key: string): boolean {
    const e = this.#entries.get(key)?.entry;
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
