/**
 * The default payload store: a `Map` in memory (TanStack's `QueryStore`
 * habit). Payloads are kept as their JSON text plus one frozen parsed copy, so
 * what comes back serializes to exactly the bytes that went in and no caller
 * can mutate the store through a returned object.
 */
import type { ContentBlockParam } from '../providers/anthropic-types.js';
import { freeze } from 'immer';
import type { BlockPath } from '../timeline/types.js';
import { assertSafePath, comparePaths, turnOf } from './paths.js';
import { payloadText, rank } from './search.js';
import type { PayloadStore, PutMeta, PutStatus, SearchHit, SearchOptions, StoredPayload } from './types.js';

interface Entry {
  readonly stored: StoredPayload;
  readonly json: string;
  /** Searchable text, computed on first search. */
  text?: string;
}

/** Orders paths by turn (non-timeline paths last), then naturally. */
export function byTurnThenPath(a: { path: BlockPath; turn?: number | undefined }, b: { path: BlockPath; turn?: number | undefined }): number {
  const ta = a.turn ?? Number.POSITIVE_INFINITY;
  const tb = b.turn ?? Number.POSITIVE_INFINITY;
  return ta === tb ? comparePaths(a.path, b.path) : ta - tb;
}

/**
 * Payloads in memory, keyed by path.
 *
 * @example
 * const store = new MemoryPayloadStore();
 * store.put('turns/1/rounds/1/results/toolu_01', block, { reason: 'prune' }); // 'added'
 * store.get('turns/1/rounds/1/results/toolu_01')?.payload; // the same bytes
 */
export class MemoryPayloadStore implements PayloadStore {
  readonly #entries = new Map<BlockPath, Entry>();
  readonly #turns = new Map<number, Set<BlockPath>>();

  put(path: BlockPath, payload: ContentBlockParam, meta: PutMeta): PutStatus {
    assertSafePath(path);
    const json = JSON.stringify(payload);
    const turn = turnOf(path, meta.turn);
    const old = this.#entries.get(path);
    if (old && old.json === json && old.stored.turn === turn && old.stored.reason === meta.reason) return 'unchanged';
    if (old?.stored.turn !== undefined) this.#turns.get(old.stored.turn)?.delete(path);
    const copy = freeze(JSON.parse(json) as ContentBlockParam, true);
    const stored: StoredPayload = Object.freeze(
      turn === undefined ? { path, payload: copy, reason: meta.reason } : { path, payload: copy, turn, reason: meta.reason },
    );
    this.#entries.set(path, { stored, json });
    if (turn !== undefined) {
      let set = this.#turns.get(turn);
      if (!set) this.#turns.set(turn, (set = new Set()));
      set.add(path);
    }
    return old ? 'replaced' : 'added';
  }

  get(path: BlockPath): StoredPayload | undefined {
    return this.#entries.get(path)?.stored;
  }

  has(path: BlockPath): boolean {
    return this.#entries.has(path);
  }

  paths(): readonly BlockPath[] {
    return [...this.#entries.values()]
      .map((e) => e.stored)
      .sort(byTurnThenPath)
      .map((s) => s.path);
  }

  byTurn(turn: number): readonly BlockPath[] {
    return [...(this.#turns.get(turn) ?? [])].sort(comparePaths);
  }

  search(query: string, options: SearchOptions = {}): readonly SearchHit[] {
    const entries = this.#entries;
    function* docs() {
      for (const e of entries.values()) {
        e.text ??= payloadText(e.stored.payload);
        yield { path: e.stored.path, text: e.text };
      }
    }
    return rank(docs(), query, options.limit);
  }

  /** Number of stored payloads. */
  get size(): number {
    return this.#entries.size;
  }
}
