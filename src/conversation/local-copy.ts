/**
 * The process's copy of each conversation it prepared last: the record `prepare` built for its latest request,
 * saved or not. The store is the conversation's home, but when it cannot give the state back (down at load, or it
 * holds an older revision because the save after the previous request failed), the process that prepared that
 * request still holds it. Rendered without it, the request loses the sticky prune, hide and compaction decisions:
 * its bytes differ from what was sent, and the cache is re-written from there (the judge's lost-state busts).
 *
 * The copy is used only where it cannot be older than the store's state:
 * - the store failed at load: the copy (nothing is saved, as without it);
 * - the store answered with the very state the copy's unsaved renders started from (same incarnation, messages,
 *   render count and time: only `recordUsage` may have moved its revision since): the copy, saved over that
 *   revision with the store's optimistic check, so a worker that saved meanwhile still wins with a conflict.
 * Anything else (another worker rendered since, the record was deleted or expired, the failed save landed after
 * all) is the store's answer, as before. The copy is a record `prepare` built itself, so every rule that makes a
 * stored record's request valid (a history cut or edit, responses it never saw on a model that binds thinking)
 * holds for it too. Bounded: {@link LOCAL_COPIES} conversations per store, the least recently prepared dropped
 * first; none for the in-memory store (it is the process's own).
 */
import { consumedDigest, consumedOf } from './mapping.js';
import type { ConversationRecord, ConversationStore } from './types.js';

// TYPES

/** Why a request was rendered from the process's copy (PreparePlan.localState). */
export type LocalStateReason =
  /** The store failed at load: nothing saved. */
  | 'store_unavailable'
  /** The store held the state the copy's unsaved renders started from (the save after one of them failed). */
  | 'unsaved';

interface LocalCopy {
  readonly record: ConversationRecord;
  /** Its state's fingerprint ({@link fingerprint}). */
  readonly own: string;
  /**
   * The stored state the copy's renders started from: its fingerprint (equal to `own` once saved), `null` when the
   * store held none, {@link UNKNOWN} when that is not known (rendered from the messages alone while the store was down).
   */
  readonly base: string | null;
}

// IMPLEMENTATION

/** Conversations whose copy each process keeps per store. */
export const LOCAL_COPIES = 32;

const UNKNOWN = '\u0000unknown';

const copies = new WeakMap<ConversationStore, Map<string, LocalCopy>>();

/**
 * What tells one stored state from another without reading it: the conversation's incarnation, how many messages it
 * mapped and the last one's digest, and its last render's count and time. Two renders of one conversation differ in
 * count or time, or mapped other messages.
 */
export function fingerprint(record: ConversationRecord): string {
  const { list, count } = consumedOf(record);
  const last = record.state.lastRender;
  return `${record.incarnation ?? ''}|${count}|${count > 0 ? consumedDigest(list[count - 1]!) : ''}|${last?.requests ?? 0}|${last?.at ?? ''}`;
}

/** The record to render from, and why it is the process's copy (when it is). */
export interface Source {
  readonly record: ConversationRecord | undefined;
  readonly local?: LocalStateReason;
  /**
   * What this request's copy starts from, for {@link keepCopy} when its save fails: the copy's base, or the store's
   * state as loaded (taken before the render: a request extends the loaded record's message list in place).
   */
  readonly base: string | null;
}

/**
 * The record to render this request from: the store's (`stored`, undefined when it has none or failed), or the
 * process's copy where it is newer (see the file's comment). The in-memory store has no copy.
 */
export function sourceOf(store: ConversationStore, id: string, stored: ConversationRecord | undefined, storeDown: boolean): Source {
  const copy = copies.get(store)?.get(id);
  if (storeDown) return copy ? { record: copy.record, local: 'store_unavailable', base: copy.base } : { record: stored, base: UNKNOWN };
  const print = stored ? fingerprint(stored) : null;
  if (!copy || copy.base === copy.own || copy.base === UNKNOWN || print !== copy.base) return { record: stored, base: print };
  if (!stored) return { record: copy.record, local: 'unsaved', base: null };
  // The store's revision, usage records and calibration (recordUsage may have added to them), the copy's state.
  const record: ConversationRecord = { ...copy.record, revision: stored.revision, requests: stored.requests };
  if (stored.calibration) (record as { calibration?: ConversationRecord['calibration'] }).calibration = stored.calibration;
  return { record, local: 'unsaved', base: copy.base };
}

/**
 * Keeps `record` (this request's, saved or not) as the conversation's copy. `saved`: the store holds it now. Else
 * its base is `source`'s: the copy's (it goes on), the store's state as loaded, or unknown (rendered from the
 * messages alone while the store was down: the store's state wins when it answers again).
 */
export function keepCopy(store: ConversationStore, id: string, record: ConversationRecord, saved: boolean, source: Source): void {
  let map = copies.get(store);
  if (!map) copies.set(store, (map = new Map()));
  const own = fingerprint(record);
  const base = saved ? own : source.base;
  map.delete(id);
  map.set(id, { record, own, base });
  if (map.size > LOCAL_COPIES) map.delete(map.keys().next().value!);
}
