/**
 * The re-use walk's live keys seen visible (reuse.ts `Walk.liveSeen`): a map from call key to the result found
 * visible, in insertion order like a Map, also read by path and as dense arrays. After every write the prune pass
 * reads every entry (the visible results of file-less calls are all stale again), a hundred and more late in a long
 * session that keeps them (a model that binds thinking holds them): read from a Map, each entry's result and its
 * path were cold objects read one by one. Here each entry's path, round and flags sit in arrays read in order, and
 * the few paths a request changes (hidden since, replaced since, already taken) are looked up by path instead of
 * testing every entry against them.
 */
import type { BlockPath } from '../timeline/types.js';

/** What a {@link LiveSeen} entry holds: the result's path and the round its call was made in, and its flags. */
export interface LiveEntry {
  readonly path: BlockPath;
  readonly at: number;
  readonly external: boolean;
  readonly simple: boolean;
  /** Where it was found: its turn and round numbers (1-based), read into {@link LiveSeen.turns} and `roundNos`. */
  readonly place?: { readonly turn: number; readonly roundNo: number } | undefined;
}

/** Flag bits of {@link LiveSeen.flags}. */
export const LIVE_EXTERNAL = 1;
export const LIVE_SIMPLE = 2;

/** Removed slots tolerated before the arrays are packed again (and then only while they are most of them). */
const PACK_FROM = 32;

/**
 * A map from key to entry in insertion order (a key set again keeps its place, as in a Map), whose entries are
 * also read as slots: `results[i]` is undefined for a removed slot, else the entry, with `paths[i]`, `at[i]`,
 * `flags[i]`, `turns[i]` and `roundNos[i]` beside it; `slotsOf(path)` gives the slots holding a path. Slots keep their order; removed ones are
 * packed away once they are most of them (slot numbers change then: read them within one pass).
 */
export class LiveSeen<R extends LiveEntry> {
  #slot = new Map<string, number>();
  #keys: (string | undefined)[] = [];
  #results: (R | undefined)[] = [];
  #paths: BlockPath[] = [];
  #at: number[] = [];
  #flags: number[] = [];
  #turns: number[] = [];
  #roundNos: number[] = [];
  readonly #byPath = new Map<BlockPath, number | number[]>();
  #removed = 0;

  /** Entries held. */
  get size(): number {
    return this.#slot.size;
  }

  /** Slots (held and removed), the bound of the arrays below. */
  get slots(): number {
    return this.#results.length;
  }

  get results(): readonly (R | undefined)[] {
    return this.#results;
  }

  get paths(): readonly BlockPath[] {
    return this.#paths;
  }

  get at(): readonly number[] {
    return this.#at;
  }

  get flags(): readonly number[] {
    return this.#flags;
  }

  /** Per slot, the turn of the entry's place (-1 when it has none). */
  get turns(): readonly number[] {
    return this.#turns;
  }

  /** Per slot, the round of the entry's place in its turn (-1 when it has none). */
  get roundNos(): readonly number[] {
    return this.#roundNos;
  }

  get(key: string): R | undefined {
    const i = this.#slot.get(key);
    return i === undefined ? undefined : this.#results[i];
  }

  has(key: string): boolean {
    return this.#slot.has(key);
  }

  set(key: string, r: R): this {
    const i = this.#slot.get(key);
    if (i !== undefined) {
      this.#unindex(this.#paths[i]!, i);
      this.#write(i, key, r);
      return this;
    }
    this.#write(this.#results.length, key, r);
    return this;
  }

  delete(key: string): boolean {
    const i = this.#slot.get(key);
    if (i === undefined) return false;
    this.#slot.delete(key);
    this.#unindex(this.#paths[i]!, i);
    this.#keys[i] = undefined;
    this.#results[i] = undefined;
    this.#removed++;
    if (this.#removed >= PACK_FROM && this.#removed * 2 > this.#results.length) this.#pack();
    return true;
  }

  clear(): void {
    this.#slot.clear();
    this.#byPath.clear();
    this.#keys = [];
    this.#results = [];
    this.#paths = [];
    this.#at = [];
    this.#flags = [];
    this.#turns = [];
    this.#roundNos = [];
    this.#removed = 0;
  }

  /** The slots holding an entry with this path (usually none or one), in slot order. */
  slotsOf(path: BlockPath): readonly number[] | number | undefined {
    return this.#byPath.get(path);
  }

  /** The keys of the entries with this path. */
  keysOf(path: BlockPath): string[] {
    const s = this.#byPath.get(path);
    if (s === undefined) return [];
    return (typeof s === 'number' ? [s] : s).map((i) => this.#keys[i]!);
  }

  /** The entries in insertion order, as a Map iterates them. */
  *entries(): IterableIterator<[string, R]> {
    for (let i = 0; i < this.#results.length; i++) {
      const r = this.#results[i];
      if (r !== undefined) yield [this.#keys[i]!, r];
    }
  }

  [Symbol.iterator](): IterableIterator<[string, R]> {
    return this.entries();
  }

  #write(i: number, key: string, r: R): void {
    this.#slot.set(key, i);
    this.#keys[i] = key;
    this.#results[i] = r;
    this.#paths[i] = r.path;
    this.#at[i] = r.at;
    this.#flags[i] = (r.external ? LIVE_EXTERNAL : 0) | (r.simple ? LIVE_SIMPLE : 0);
    this.#turns[i] = r.place?.turn ?? -1;
    this.#roundNos[i] = r.place?.roundNo ?? -1;
    const s = this.#byPath.get(r.path);
    if (s === undefined) this.#byPath.set(r.path, i);
    else if (typeof s === 'number') this.#byPath.set(r.path, s < i ? [s, i] : [i, s]);
    else {
      s.push(i);
      s.sort((a, b) => a - b);
    }
  }

  #unindex(path: BlockPath, i: number): void {
    const s = this.#byPath.get(path);
    if (s === i) this.#byPath.delete(path);
    else if (typeof s === 'object') {
      const left = s.filter((j) => j !== i);
      this.#byPath.set(path, left.length === 1 ? left[0]! : left);
    }
  }

  /** Drops the removed slots, keeping the order. */
  #pack(): void {
    const keys = this.#keys;
    const results = this.#results;
    this.clear();
    for (let i = 0; i < results.length; i++) if (results[i] !== undefined) this.#write(this.#results.length, keys[i]!, results[i]!);
  }
}
