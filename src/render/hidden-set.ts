/**
 * Updates of the hidden set (the sticky hides, prunes and duplicates of the
 * state), by hand and remembered.
 *
 * A prune while warm (economy) happens on most requests of a long session,
 * and the hidden set only grows, so the update must not cost more than the
 * one copy of the set an immutable state needs: immer's `produce` copied it
 * and then walked every record to freeze it. Each update made here is
 * remembered (the set it was made from and the paths it added or replaced),
 * so the readers that compare two sets (the projection: where the stream
 * first changed; the re-use model: the duplicates pointed at a payload) read
 * only what changed, not the whole set.
 */
import type { BlockPath, HiddenRecord, TimelineState } from '../timeline/types.js';

type Hidden = TimelineState['hidden'];

/** What an update added: the set it was made from and the paths it added or replaced. */
interface Change {
  readonly base: Hidden;
  readonly paths: readonly BlockPath[];
}

const changes = new WeakMap<Hidden, Change>();

/**
 * The state with `records` added to (or replacing paths of) its hidden set,
 * and `deferred` when given: the same state, key order and freezing as immer's
 * produce with `draft.hidden[r.path] = r` gave (a new frozen state and set,
 * records frozen).
 */
export function withHidden(state: TimelineState, records: readonly HiddenRecord[], deferred?: TimelineState['deferred']): TimelineState {
  if (records.length === 0 && deferred === undefined) return state;
  const base = state.hidden;
  const hidden: Record<BlockPath, HiddenRecord> = {};
  for (const path in base) if (Object.hasOwn(base, path)) hidden[path] = base[path]!;
  const paths: BlockPath[] = [];
  for (const r of records) {
    hidden[r.path] = Object.freeze(r);
    paths.push(r.path);
  }
  Object.freeze(hidden);
  changes.set(hidden, { base, paths });
  const next: Record<string, unknown> = {};
  for (const key of Object.keys(state) as (keyof TimelineState)[]) next[key] = state[key];
  next.hidden = hidden;
  if (deferred !== undefined) next.deferred = Object.freeze(deferred);
  return Object.freeze(next) as unknown as TimelineState;
}

/**
 * The paths whose record differs between `before` and `after` when `after`
 * was made from `before` by a few updates here (added or replaced: nothing is
 * removed that way), else undefined (the caller compares the sets).
 */
export function hiddenChanges(before: Hidden, after: Hidden): readonly BlockPath[] | undefined {
  if (before === after) return [];
  const out: BlockPath[] = [];
  let cur = after;
  for (let hops = 0; hops < 8 && cur !== before; hops++) {
    const change = changes.get(cur);
    if (!change) return undefined;
    for (const p of change.paths) out.push(p);
    cur = change.base;
  }
  return cur === before ? out : undefined;
}

/** The update `after` was made by (its base set and the paths it added or replaced), when made here. */
export function hiddenChange(after: Hidden): Change | undefined {
  return changes.get(after);
}
