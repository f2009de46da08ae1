/**
 * The cost gate (DESIGN.md "Every change to the stream has a price"). A change
 * that removes Δ tokens at stream index i makes the provider re-write every
 * token after the first changed byte. While the cache is warm, the tokens
 * between the newest entry still valid before i (R′) and the entry this request
 * would otherwise read (R) are written instead of read: that is the re-write.
 * The saving is Δ tokens not read by this request and by each of the expected
 * remaining ones. Cold, nothing is read anyway, so a removal only saves.
 */
import type { ModelProfile } from '../models/profiles.js';
import type { CacheEntryRecord, StreamBlock, TimelineState } from '../timeline/types.js';
import type { GatePrice } from './types.js';

/**
 * Dollars the one-time prune notice costs a warm prune that would add it: its
 * tokens read by the expected remaining requests. Not its write: economy
 * prunes something in nearly every session (every fixture), and the notice is
 * written once by whichever prune comes first, so coming first adds only the
 * reads until then (bounded by the remaining requests). 0 once the state
 * carries it.
 */
export function noticePrice(profile: ModelProfile, state: TimelineState, noticeTokens: number, remaining: number): number {
  if (state.pruneNotice) return 0;
  return (noticeTokens * profile.prices.cacheRead * remaining) / 1e6;
}

/**
 * What adding the one-time prune notice (a text block in a user message) costs on a model that strips earlier
 * thinking, for a batch whose first change is at stream index `at`: the API then drops every thinking block before
 * the notice, so the history from the first thinking block still sent is re-written instead of read; a batch re-writes
 * from `at` on anyway, so only the stretch before it counts, less the reads of that thinking the strip saves.
 * Undefined when the model keeps thinking, the notice is already there, or nothing is left to strip (the tail already
 * holds a user block other than a tool result, or no thinking follows the last one).
 */
export function noticeStripPrice(
  profile: ModelProfile,
  state: TimelineState,
  stream: readonly StreamBlock[],
  remaining: number,
): ((at: number) => number) | undefined {
  if (profile.keepsThinking || state.pruneNotice) return undefined;
  if (state.tail.some((b) => (b.param as { type?: string }).type !== 'tool_result')) return undefined;
  const thinkingAt = (b: StreamBlock): boolean => {
    const type = (b.param as { type?: string }).type;
    return b.role === 'assistant' && !b.hidden && (type === 'thinking' || type === 'redacted_thinking');
  };
  let first = -1;
  for (let i = stream.length - 1; i >= 0; i--) {
    const b = stream[i]!;
    if (b.role === 'user' && (b.param as { type?: string }).type !== 'tool_result') break;
    if (thinkingAt(b)) first = i;
  }
  if (first < 0) return undefined;
  // before[j]: tokens of stream[first .. first + j); thinking: the thinking from `first` on (all of it is stripped).
  const before = new Float64Array(stream.length - first + 1);
  let thinking = 0;
  for (let i = first; i < stream.length; i++) {
    before[i - first + 1] = before[i - first]! + stream[i]!.tokens;
    if (thinkingAt(stream[i]!)) thinking += stream[i]!.tokens;
  }
  const p = profile.prices;
  return (at) => {
    const rewritten = before[Math.max(0, Math.min(at, stream.length) - first)]!;
    return Math.max(0, (rewritten * (p.cacheWrite5m - p.cacheRead) - thinking * p.cacheRead * remaining) / 1e6);
  };
}

/** Expected requests left in the session: the caller's figure, or as many as were made so far (Lindy), within [4, 100]. */
export function expectedRemaining(state: TimelineState, given?: number): number {
  if (given !== undefined) return given;
  const made = state.lastRender?.requests ?? 0;
  return Math.min(100, Math.max(4, made));
}

/** Tokens of the entry a request can read when the stream changes at `index` (0 when none). */
export function readableBefore(entries: readonly CacheEntryRecord[], index: number): number {
  let best = 0;
  for (const e of entries) if (e.index < index && e.prefixTokens > best) best = e.prefixTokens;
  return best;
}

/**
 * Prices removing `removed` tokens with the first change at stream index `index`.
 *
 * @returns saving and re-write in dollars; apply when `saving > rewrite`
 */
export function priceChange(profile: ModelProfile, entries: readonly CacheEntryRecord[], index: number, removed: number, remaining: number): GatePrice {
  const warm = entries.length > 0;
  return {
    saving: changeSaving(profile, warm, removed, remaining),
    rewrite: changeRewrite(profile, warm, readableBefore(entries, Number.POSITIVE_INFINITY), readableBefore(entries, index), removed),
    warm,
  };
}

/** {@link priceChange}'s saving, alone: for a caller that prices many batches and keeps one (no object per batch). */
export function changeSaving(profile: ModelProfile, warm: boolean, removed: number, remaining: number): number {
  const p = profile.prices;
  const perToken = warm ? p.cacheRead : p.cacheWrite5m;
  return (removed * (perToken + p.cacheRead * remaining)) / 1e6;
}

/**
 * {@link priceChange}'s re-write, alone, from the tokens of the entry the request reads with no change (`R`, what
 * readableBefore gives for every index) and with the first change at the batch's index (`R2`).
 */
export function changeRewrite(profile: ModelProfile, warm: boolean, R: number, R2: number, removed: number): number {
  const p = profile.prices;
  // Removed tokens are not re-written; the rest of the stretch between R′ and R is.
  return warm ? (Math.max(0, R - R2 - removed) * (p.cacheWrite5m - p.cacheRead)) / 1e6 : 0;
}
