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
import type { CacheEntryRecord, TimelineState } from '../timeline/types.js';
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
  const p = profile.prices;
  const warm = entries.length > 0;
  const R = readableBefore(entries, Number.POSITIVE_INFINITY);
  const R2 = readableBefore(entries, index);
  const perToken = warm ? p.cacheRead : p.cacheWrite5m;
  const saving = (removed * (perToken + p.cacheRead * remaining)) / 1e6;
  // Removed tokens are not re-written; the rest of the stretch between R′ and R is.
  const rewrite = warm ? (Math.max(0, R - R2 - removed) * (p.cacheWrite5m - p.cacheRead)) / 1e6 : 0;
  return { saving, rewrite, warm };
}
