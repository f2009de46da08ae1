/**
 * Hiding a block on the agent's request (DESIGN.md "editable zone"). Hiding
 * changes bytes, and the provider re-writes everything after the first changed
 * byte; inside the editable zone (after ③, or ② while there is no ③) that is
 * only the last few rounds, never the cached prefix above them. Outside it the
 * hide is refused — or deferred to the next prune when the caller asks.
 */
import type { ContentBlockParam } from '../providers/anthropic-types.js';
import { HideRefusedError, InvalidOptionError, PathNotFoundError } from '../errors.js';
import { findBlock, parseTimelinePath } from '../timeline/paths.js';
import { turnIndex, turnIndexOf } from '../timeline/turn-index.js';
import type { BlockPath, CacheEntryRecord, StreamBlock, TimelineState } from '../timeline/types.js';
import { thinkingLostFrom } from './bind.js';
import { placeCachePoints } from './cache-points.js';
import { passContext, type PassContext } from './context.js';
import { expectedRemaining, priceChange } from './gate.js';
import { hiddenRecord } from './notes.js';
import { HIDE_OPTION_CHECKS } from './options.js';
import { cacheStanding, isCompacted } from './projection.js';
import type { Decision, RenderOptions } from './types.js';
import { hiddenSetOf, stateWith } from '../timeline/hidden.js';
import { withHidden } from './hidden-set.js';

/** Options of {@link hideBlock}. */
export interface HideOptions extends RenderOptions {
  /** A few words for the note (why it was hidden). */
  readonly note?: string;
  /** Outside the editable zone: defer to the next prune instead of throwing. */
  readonly defer?: boolean;
  /** Apply even when the cost gate says the re-write does not pay back yet (default: defer it). */
  readonly force?: boolean;
}

/** The result of a hide: the new state and what happened. */
export interface HideResult {
  readonly state: TimelineState;
  readonly decision: Decision;
}

/** Why a block cannot be hidden at all, or undefined when it can. */
export function notHideable(state: TimelineState, path: BlockPath): string | undefined {
  const loc = parseTimelinePath(path);
  if (!loc) return 'only timeline blocks (user messages, responses, tool calls and results) can be hidden';
  const block = findBlock(state, path);
  if (!block) return undefined;
  if (block.param.type === 'thinking' || block.param.type === 'redacted_thinking') {
    return 'thinking blocks carry a signature and must be sent unchanged';
  }
  return undefined;
}

/**
 * Hides a block's payload behind a short note naming its path; `recall(path)`
 * still returns the original.
 *
 * @throws {HideRefusedError} outside the editable zone (unless `defer`), for
 *   unknown paths and for blocks that cannot be hidden (thinking)
 * @example
 * const { state: next } = hideBlock(state, 'turns/3/rounds/7/results/toolu_01', { note: 'superseded' });
 */
export function hideBlock(state: TimelineState, path: BlockPath, options: HideOptions = {}): HideResult {
  checkPath(path);
  const ctx = passContext(state, options, HIDE_OPTION_CHECKS);
  const block = findBlock(state, path);
  if (!block) throw new HideRefusedError(path, 'unknown_path', 'no block exists at this path');
  const why = notHideable(state, path);
  if (why) throw new HideRefusedError(path, 'not_hideable', why);
  const loc = parseTimelinePath(path)!;
  if (hiddenSetOf(state).has(path) || isCompacted(state, loc.turn, loc.round)) {
    return { state, decision: { type: 'hide', path, reason: 'agent', tokensRemoved: 0 } };
  }

  const { stream, entries } = cacheStanding(state, ctx);
  const zone = editableZone(stream, state, ctx, entries);
  const index = stream.findIndex((b) => b.path === path);
  if (index > zone.index) {
    const record = hiddenRecord(state, path, 'agent', options.note);
    const removed = Math.max(0, stream[index]!.tokens - ctx.tokens.tokens({ type: 'text', text: record.note }));
    const changed = priceChange(ctx.profile, entries, index, removed, expectedRemaining(state, ctx.options.expectedRemaining));
    // Models that bind thinking: the guard leaves out every visible thinking block after the hidden one; that
    // loss is weighed too (its deferred form waits for a compaction instead, render/prune.ts).
    const thinkingLost = thinkingLostFrom(stream, index + 1, ctx.profile);
    const price = thinkingLost ? { ...changed, thinkingLost } : changed;
    if (!options.force && price.saving <= price.rewrite + (thinkingLost?.cost ?? 0)) {
      const next = addDeferred(state, path, options.note);
      const lost = thinkingLost ? ` and the ${thinkingLost.blocks} thinking block(s) after it it would leave out ($${thinkingLost.cost.toFixed(6)})` : '';
      const why = `the re-write it causes ($${price.rewrite.toFixed(6)})${lost} ${thinkingLost ? 'are' : 'is'} worth more than it saves ($${price.saving.toFixed(6)}); deferred to the next cold window or compaction`;
      return { state: next, decision: { type: 'defer', path, why, price } };
    }
    // By hand, not with immer: a draft of the state would build its plain hidden set (timeline/hidden.ts).
    const next = withHidden(
      state,
      [record],
      state.deferred.filter((d) => d.path !== path),
    );
    return { state: next, decision: { type: 'hide', path, reason: 'agent', tokensRemoved: removed, price } };
  }
  const message = `outside the editable zone (it starts after ${zone.path}): hiding it would re-bill the cached prefix from this block on`;
  if (!options.defer) throw new HideRefusedError(path, 'outside_editable_zone', `${message}; pass { defer: true } to apply it at the next prune`);
  return { state: addDeferred(state, path, options.note), decision: { type: 'defer', path, why: message } };
}

function addDeferred(state: TimelineState, path: BlockPath, note: string | undefined): TimelineState {
  if (state.deferred.some((d) => d.path === path)) return state;
  return stateWith(state, { deferred: Object.freeze([...state.deferred, Object.freeze(note === undefined ? { path } : { path, note })]) });
}

/**
 * Where the editable zone starts for the next request: the last cache point
 * already written by an earlier request (③, or ② while there is no ③, or ①).
 * Blocks strictly after it may be hidden cheaply.
 */
export function editableZoneStart(state: TimelineState, options: RenderOptions = {}): { index: number; path: string } {
  const ctx = passContext(state, options);
  const { stream, entries } = cacheStanding(state, ctx);
  return editableZone(stream, state, ctx, entries);
}

function editableZone(
  stream: readonly StreamBlock[],
  state: TimelineState,
  ctx: PassContext,
  entries: readonly CacheEntryRecord[],
): { index: number; path: string } {
  const points = placeCachePoints(stream, state, ctx, entries);
  const by = (label: 1 | 2 | 3) => points.find((p) => p.labels.includes(label));
  const point = by(3) ?? by(2) ?? by(1);
  return point ? { index: point.index, path: point.path } : { index: -1, path: '(start)' };
}

/**
 * The original payload at `path`, byte-identical, whether hidden, pruned or
 * compacted; for `turns/N`, the turn index: every path turn N held (what a
 * summary points at).
 */
export function recall(state: TimelineState, path: BlockPath): ContentBlockParam {
  checkPath(path);
  const turn = turnIndexOf(path);
  if (turn !== undefined) {
    const index = turnIndex(state, turn);
    if (!index) throw new PathNotFoundError(path, `no turn ${turn} exists (the session has ${state.turns.length})`);
    return index;
  }
  const block = findBlock(state, path);
  if (!block) throw new PathNotFoundError(path);
  return block.param;
}

/** A path that is not a string (a tool input passed whole, `undefined`) would fail as a bare TypeError in the lookup. */
function checkPath(path: unknown): void {
  if (typeof path !== 'string') {
    throw new InvalidOptionError('path', `expected a block path string like "turns/3/rounds/2/results/toolu_01", got ${path === null ? 'null' : typeof path}`, {
      value: path,
    });
  }
}
