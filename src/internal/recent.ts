/**
 * A memo of the last few keys, by identity, holding keys and values strongly.
 *
 * Why not a WeakMap keyed on per-request objects (a state, its turns): V8's
 * young-generation collector (the scavenger) visits every WeakMap value as a
 * strong reference, whether or not its key is still alive. A value that holds
 * a session-sized array (a state's turns, an open turn's rounds) keeps that
 * array through the collection, and anything else that reaches a key of
 * another WeakMap keeps that entry too; every request's copy is then promoted
 * to the old generation instead of dying young, and only a full collection
 * frees it. A memo that forgets all but the newest keys lets them die young.
 *
 * @example
 * const memo = new RecentMemo<object, number>(4);
 * memo.set(key, 1);
 * memo.get(key); // 1, until four newer keys were set
 */
export class RecentMemo<K extends object, V> {
  readonly #keys: (K | undefined)[];
  readonly #values: (V | undefined)[];
  /** Where the next new key goes (the oldest entry's slot once full). */
  #next = 0;

  constructor(capacity: number) {
    this.#keys = new Array<K | undefined>(capacity).fill(undefined);
    this.#values = new Array<V | undefined>(capacity).fill(undefined);
  }

  /** The value set for `key`, unless `capacity` newer keys were set since. */
  get(key: K): V | undefined {
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return this.#values[i];
    return undefined;
  }

  /** Sets `key`'s value (a key already held keeps its place); a new key takes the oldest entry's place. */
  set(key: K, value: V): void {
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++)
      if (keys[i] === key) {
        this.#values[i] = value;
        return;
      }
    const i = this.#next;
    keys[i] = key;
    this.#values[i] = value;
    this.#next = (i + 1) % keys.length;
  }
}
