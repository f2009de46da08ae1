/**
 * In-memory conversation store: bounded (least recently used goes first) and
 * with idle expiry. Records are kept as the live immutable objects, so the
 * next `prepare` reuses every block and stream object (no parsing, identity diffs).
 */
import { ConversationConflictError, InvalidOptionError } from '../errors.js';
import { optionKeys, refuseUnknownKeys } from '../internal/option-keys.js';
import type { ConversationRecord, ConversationStore } from './types.js';

// TYPES

/** Options of {@link MemoryConversationStore}. */
export interface MemoryConversationStoreOptions {
  /** Most conversations kept; the least recently used one is dropped beyond (default 1,000). */
  readonly maxConversations?: number;
  /** A conversation not loaded or saved for this long is dropped (ms, default 24 h; a save of what the latest load returned counts from that load). */
  readonly idleMs?: number;
  /** The clock (ms), for tests. Default Date.now. */
  readonly now?: () => number;
  /** Called when a conversation is dropped. */
  readonly onEvict?: (id: string, reason: 'lru' | 'idle') => void;
}

// CLASS

/**
 * Conversations in this process's memory.
 *
 * Idle expiry is judged when a conversation is loaded or saved; a save of the conversation the latest load
 * returned (`prepare`'s load, render, save) is judged by that load: one clock read per request, and a
 * conversation found live when its request started is not dropped under it before its save.
 *
 * @example
 * const store = new MemoryConversationStore({ maxConversations: 200, idleMs: 60 * 60_000 });
 * const { params } = await prepare(body, { conversationId: 'chat-42', store });
 */
export class MemoryConversationStore implements ConversationStore {
  readonly #entries = new Map<string, { record: ConversationRecord; touched: number }>();
  /** The id last in the map's order (the most recently used), if known. */
  #last: string | undefined;
  /**
   * The entry the latest {@link loadSync} returned, until another load: its save ({@link saveSync}, `prepare`'s
   * load–save pair) is judged live without a second clock read: the load judged it, and moved and touched it.
   */
  #held: { record: ConversationRecord; touched: number } | undefined;
  #heldId: string | undefined;
  readonly #max: number;
  readonly #idleMs: number;
  readonly #now: () => number;
  readonly #onEvict: MemoryConversationStoreOptions['onEvict'];

  constructor(options: MemoryConversationStoreOptions = {}) {
    refuseUnknownKeys(options, optionKeys<MemoryConversationStoreOptions>({ maxConversations: true, idleMs: true, now: true, onEvict: true }));
    const max = options.maxConversations ?? 1000;
    const idle = options.idleMs ?? 24 * 60 * 60_000;
    if (!Number.isInteger(max) || max < 1) throw new InvalidOptionError('maxConversations', 'must be a positive integer');
    if (!(idle > 0)) throw new InvalidOptionError('idleMs', 'must be a positive number of milliseconds');
    this.#max = max;
    this.#idleMs = idle;
    this.#now = options.now ?? Date.now;
    this.#onEvict = options.onEvict;
  }

  /** Conversations held now (expired ones count until they are seen). */
  get size(): number {
    return this.#entries.size;
  }

  #live(id: string): { record: ConversationRecord; touched: number } | undefined {
    const e = this.#entries.get(id);
    if (!e) return undefined;
    const now = this.#now();
    if (now - e.touched >= this.#idleMs) {
      this.#entries.delete(id);
      if (this.#last === id) this.#last = undefined;
      this.#onEvict?.(id, 'idle');
      return undefined;
    }
    // Re-insert: Map order is the LRU order (the most recent one already is last: a loop's next request).
    e.touched = now;
    if (this.#last !== id) {
      this.#entries.delete(id);
      this.#entries.set(id, e);
      this.#last = id;
    }
    return e;
  }

  async load(id: string): Promise<ConversationRecord | undefined> {
    return this.loadSync(id);
  }

  async save(record: ConversationRecord, expected: number | null): Promise<void> {
    this.saveSync(record, expected);
  }

  /** {@link load} without the promise (what `prepare` uses for this store). */
  loadSync(id: string): ConversationRecord | undefined {
    const e = this.#live(id);
    this.#held = e;
    this.#heldId = id;
    return e?.record;
  }

  /** {@link save} without the promise (what `prepare` uses for this store). */
  saveSync(record: ConversationRecord, expected: number | null): void {
    const held = this.#held;
    this.#held = undefined;
    // Still the most recent one (a delete or an idle drop clears #last; any other load or save clears #held).
    const current = held !== undefined && this.#heldId === record.id && this.#last === record.id ? held : this.#live(record.id);
    const actual = current?.record.revision ?? null;
    if (actual !== expected) throw new ConversationConflictError(record.id, expected, actual);
    if (current && current.record.incarnation !== record.incarnation) throw new ConversationConflictError(record.id, expected, actual, true);
    if (current) {
      // Already the most recent one (#live moved it last and touched it, here or at its load): replaced in place,
      // no Map delete and re-insert.
      current.record = record;
      return;
    }
    this.#entries.set(record.id, { record, touched: this.#now() });
    this.#last = record.id;
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
      this.#onEvict?.(oldest, 'lru');
    }
  }

  async delete(id: string): Promise<void> {
    this.#entries.delete(id);
    if (this.#last === id) this.#last = undefined;
  }
}
