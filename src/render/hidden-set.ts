/**
 * Updates of the hidden set (the sticky hides, prunes and duplicates of the
 * state), persistent and remembered.
 *
 * A prune while warm (economy) happens on most requests of a long session,
 * and the hidden set only grows, so an update must not copy the set: the new
 * state's set is made from the old one by {@link HiddenSet.with}
 * (timeline/hidden.ts: shares all but a few small maps with it), and the
 * state is copied without reading its plain `hidden` ({@link stateWith}).
 * Each update remembers the set it was made from and the paths it added or
 * replaced, so the readers that compare two sets (the projection: where the
 * stream first changed; the re-use model: the duplicates pointed at a payload)
 * read only what changed, not the whole set.
 */
import { CHAIN, type HiddenSet, hiddenSetOf, stateWith } from '../timeline/hidden.js';
import type { BlockPath, HiddenRecord, TimelineState } from '../timeline/types.js';

/**
 * The state with `records` added to (or replacing paths of) its hidden set,
 * and `deferred` when given: the same state (key order, freezing, records
 * frozen, the set's plain form) as immer's produce with
 * `draft.hidden[r.path] = r` gave.
 */
export function withHidden(state: TimelineState, records: readonly HiddenRecord[], deferred?: TimelineState['deferred']): TimelineState {
  if (records.length === 0 && deferred === undefined) return state;
  const hidden = hiddenSetOf(state).with(records);
  return stateWith(state, deferred !== undefined ? { deferred: Object.freeze(deferred) } : {}, hidden);
}

/**
 * The paths whose record differs between `before` and `after` when `after`
 * was made from `before` by a few updates here (added or replaced: nothing is
 * removed that way), else undefined (the caller compares the sets).
 */
export function hiddenChanges(before: HiddenSet, after: HiddenSet): readonly BlockPath[] | undefined {
  if (before === after) return [];
  const out: BlockPath[] = [];
  let cur: HiddenSet | undefined = after;
  for (let hops = 0; hops < CHAIN && cur !== undefined && cur !== before; hops++) {
    for (const p of cur.paths) out.push(p);
    cur = cur.base;
  }
  return cur === before ? out : undefined;
}
