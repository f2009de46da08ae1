/**
 * The payload store contract: every hidden, pruned and compacted block kept
 * byte-identical by its logical path, so forgetting shrinks what the model
 * sees, never what exists (DESIGN.md invariant 5).
 *
 * The contract is synchronous on purpose: the renderer is a synchronous pure
 * pipeline, and recording a decision must not need an `await` inside it. The
 * file store does its (small, local) I/O with the sync fs calls.
 */
import type { ContentBlockParam } from '../providers/anthropic-types.js';
import type { BlockPath, HideReason } from '../timeline/types.js';

/** Why a payload was stored: the hide reasons, plus `compact` for blocks covered by a summary. */
export type StoreReason = HideReason | 'compact';

/** What the caller knows about a payload when storing it. */
export interface PutMeta {
  /** The turn the block belongs to; derived from the path when absent. */
  readonly turn?: number;
  readonly reason: StoreReason;
}

/** What `put` did: a value, never an exception (lru-cache's `status.set`). */
export type PutStatus = 'added' | 'unchanged' | 'replaced';

/** One stored payload with its metadata. */
export interface StoredPayload {
  readonly path: BlockPath;
  /** The payload exactly as it was put (`JSON.stringify` gives the same bytes). */
  readonly payload: ContentBlockParam;
  /** The turn, from the meta or the path (absent for non-timeline paths). */
  readonly turn?: number;
  readonly reason: StoreReason;
}

/** A search hit. */
export interface SearchHit {
  readonly path: BlockPath;
  /** Relevance; higher is better. Only comparable within one search. */
  readonly score: number;
  /** A short excerpt around the first match, whitespace collapsed. */
  readonly snippet: string;
}

/** Options of {@link PayloadStore.search}. */
export interface SearchOptions {
  /** Most hits returned (default 5). */
  readonly limit?: number;
}

/**
 * Where forgotten payloads live, keyed by logical path.
 *
 * @example
 * const store = new MemoryPayloadStore();
 * recordState(store, rendered.state);
 * store.get('turns/3/rounds/2/results/toolu_01')?.payload;
 */
export interface PayloadStore {
  /** Stores a payload (a deep copy: later mutation of the argument does not reach the store). */
  put(path: BlockPath, payload: ContentBlockParam, meta: PutMeta): PutStatus;
  get(path: BlockPath): StoredPayload | undefined;
  has(path: BlockPath): boolean;
  /** Every stored path, in a stable order (turn, then path). */
  paths(): readonly BlockPath[];
  /** The paths stored for one turn (the turn index), in a stable order. */
  byTurn(turn: number): readonly BlockPath[];
  /** Plain text search over the stored payloads, best first, for "topic-only" recovery. */
  search(query: string, options?: SearchOptions): readonly SearchHit[];
}
