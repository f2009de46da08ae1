/**
 * When a stored entry may be served: it belongs to the call (key, tool, scope,
 * well-formed), it belongs to this session when it counts turns, and it has
 * not expired by the entry's TTL or the current policy's.
 */
import type { ResolvedPolicy } from './policy.js';
import type { StoredEntry } from './store.js';

/** The clocks a lookup judges by. */
export interface Clocks {
  /** This session's turn. */
  readonly turn: number;
  /** This cache's wall clock (ms). */
  readonly nowMs: number;
}

/** The call an entry must belong to. */
export interface EntryOwner {
  readonly key: string;
  readonly tool: string;
  readonly scope: string;
}

/** Whether an entry is what the store should hold under `owner.key` (a corrupt or foreign value is not). */
export function belongsTo(entry: StoredEntry, owner: EntryOwner): boolean {
  return (
    typeof entry === 'object' &&
    entry !== null &&
    entry.key === owner.key &&
    entry.tool === owner.tool &&
    entry.scope === owner.scope &&
    (typeof entry.content === 'string' || Array.isArray(entry.content)) &&
    typeof entry.durationMs === 'number' &&
    Number.isFinite(entry.insertedTurn) &&
    Number.isFinite(entry.insertedAtMs)
  );
}

/**
 * Whether an entry has expired (`age ≥ ttl`, in turns or ms). An entry from
 * the future (the wall clock went back, or a process serving the same session
 * runs behind) has an age we cannot know: expired, never fresh.
 */
export function isExpired(entry: StoredEntry, policy: Pick<ResolvedPolicy, 'ttlTurns' | 'ttlMs'>, clocks: Clocks): boolean {
  const { turn, nowMs } = clocks;
  if (entry.insertedTurn > turn && (entry.ttlTurns !== undefined || policy.ttlTurns !== undefined)) return true;
  if (entry.insertedAtMs > nowMs && (entry.expiresAtMs !== undefined || policy.ttlMs !== undefined)) return true;
  if (entry.ttlTurns !== undefined && turn - entry.insertedTurn >= entry.ttlTurns) return true;
  if (entry.expiresAtMs !== undefined && nowMs >= entry.expiresAtMs) return true;
  if (entry.ttlTurns === undefined && entry.expiresAtMs === undefined) return true;
  // The current policy applies too, in case it is stricter than the one the entry was written under.
  if (policy.ttlTurns !== undefined && turn - entry.insertedTurn >= policy.ttlTurns) return true;
  if (policy.ttlMs !== undefined && nowMs - entry.insertedAtMs >= policy.ttlMs) return true;
  return false;
}

/** Whether an entry of any tool has expired by its own TTL alone (for sweeping a store this session owns). */
export function expiredByOwnTtl(entry: StoredEntry, clocks: Clocks, session: string): boolean {
  if (entry.ttlTurns !== undefined) {
    // Another session's turn entry cannot be judged by our turn clock: the LRU bound takes care of it.
    if (entry.session !== session) return false;
    return entry.insertedTurn > clocks.turn || clocks.turn - entry.insertedTurn >= entry.ttlTurns;
  }
  if (entry.expiresAtMs !== undefined) return entry.insertedAtMs > clocks.nowMs || clocks.nowMs >= entry.expiresAtMs;
  return true;
}

/**
 * Whether content at least as fresh as `since` has reached the policy's TTL by `now` (or `since` lies in the
 * future, an age we cannot know): what a call may not be handed, whether from the store or from a run it would join.
 */
export function agedOut(since: Clocks, policy: Pick<ResolvedPolicy, 'ttlTurns' | 'ttlMs'>, now: Clocks): boolean {
  if (policy.ttlTurns !== undefined && (since.turn > now.turn || now.turn - since.turn >= policy.ttlTurns)) return true;
  if (policy.ttlMs !== undefined && (since.nowMs > now.nowMs || now.nowMs - since.nowMs >= policy.ttlMs)) return true;
  return false;
}
