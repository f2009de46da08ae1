/**
 * Copies what a state has forgotten into a payload store, so it outlives the
 * state (a restart, a trimmed timeline, another process answering recall).
 */
import { findBlock, parseTimelinePath } from '../timeline/paths.js';
import type { BlockPath, TimelineState } from '../timeline/types.js';
import type { PayloadStore, PutStatus, StoreReason } from './types.js';
import { hiddenSetOf } from '../timeline/hidden.js';

/** What {@link recordState} did, by path count. */
export interface RecordResult {
  readonly added: number;
  readonly replaced: number;
  readonly unchanged: number;
  /** Forgotten paths the state has no block for (already trimmed away): nothing to store. */
  readonly missing: readonly BlockPath[];
}

/** Every forgotten path of a state and why: hidden/pruned (state.hidden), then compacted (state.summaries). */
export function forgottenPaths(state: TimelineState): { path: BlockPath; reason: StoreReason }[] {
  const out = new Map<BlockPath, StoreReason>();
  for (const record of hiddenSetOf(state).values()) out.set(record.path, record.reason);
  for (const summary of state.summaries) {
    for (const path of summary.paths) if (!out.has(path)) out.set(path, 'compact');
  }
  return [...out].map(([path, reason]) => ({ path, reason }));
}

/**
 * Puts every hidden, pruned and compacted block of `state` into `store`,
 * byte-identical. Idempotent: call it after every render; blocks already
 * stored are `unchanged` and cost one hash compare.
 *
 * @example
 * const r = render(state);
 * recordState(store, r.state); // { added: 3, replaced: 0, unchanged: 12, missing: [] }
 */
export function recordState(store: PayloadStore, state: TimelineState): RecordResult {
  const counts: Record<PutStatus, number> = { added: 0, replaced: 0, unchanged: 0 };
  const missing: BlockPath[] = [];
  for (const { path, reason } of forgottenPaths(state)) {
    const block = findBlock(state, path);
    if (!block) {
      missing.push(path);
      continue;
    }
    const turn = parseTimelinePath(path)?.turn;
    counts[store.put(path, block.param, turn === undefined ? { reason } : { turn, reason })]++;
  }
  return { ...counts, missing };
}
