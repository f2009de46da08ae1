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
 * all) is the store's answer, as before. When the store answers with nothing (deleted, expired, never saved), no
 * decision of the copy is revived (a delete resets a conversation, and a delete cannot be told from a first save that
 * failed): the request is rendered from the messages alone, but the copy's ledger of what this process sent goes
 * with it as a cache hint ({@link withLedgerHint}), so the entries before the first changed block are read, not
 * re-written. The copy is a record `prepare` built itself, so every rule that makes a
 * stored record's request valid (a history cut or edit, responses it never saw on a model that binds thinking)
 * holds for it too. Bounded: {@link LOCAL_COPIES} conversations per store, the least recently prepared dropped
 * first; none for the in-memory store (it is the process's own).
 */
import type { ModelProfile } from '../models/profiles.js';
import { passContext } from '../render/context.js';
import { detachedCopy, stableStream } from '../render/projection.js';
import type { StreamBlock } from '../render/types.js';
import type { BlockTokenCache } from '../tokens/counter.js';
import { stateWith } from '../timeline/hidden.js';
import type { CacheEntryRecord, LastRender, OtherView, TimelineState } from '../timeline/types.js';
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
  /** Render memories of the copy's earlier requests whose entries a later decision left out, newest first ({@link earlierRenders}). */
  readonly earlier: readonly LastRender[];
}

/** What the render of a lost state gets from the copy as a cache hint ({@link withLedgerHint}). */
export interface LedgerHint {
  readonly record: ConversationRecord;
  readonly earlier: readonly LastRender[];
}

// IMPLEMENTATION

/** Conversations whose copy each process keeps per store. */
export const LOCAL_COPIES = 32;

/** Earlier renders each copy keeps: the last before each decision that changed sent bytes (their entries stay warm). */
export const EARLIER_RENDERS = 8;

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
  /** The store holds nothing, this process's copy does: its ledger is a cache hint for the render ({@link withLedgerHint}). */
  readonly hint?: LedgerHint;
}

/**
 * The record to render this request from: the store's (`stored`, undefined when it has none or failed), or the
 * process's copy where it is newer (see the file's comment). The in-memory store has no copy.
 */
export function sourceOf(store: ConversationStore, id: string, stored: ConversationRecord | undefined, storeDown: boolean): Source {
  const copy = copies.get(store)?.get(id);
  if (storeDown) return copy ? { record: copy.record, local: 'store_unavailable', base: copy.base } : { record: stored, base: UNKNOWN };
  if (!stored) return copy ? { record: undefined, base: null, hint: copy } : { record: undefined, base: null };
  const print = fingerprint(stored);
  if (!copy || copy.base === copy.own || copy.base === UNKNOWN || print !== copy.base) return { record: stored, base: print };
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
  const before = map.get(id);
  const earlier = before ? earlierRenders(before, record.state.lastRender) : [];
  map.delete(id);
  map.set(id, { record, own, base, earlier });
  if (map.size > LOCAL_COPIES) map.delete(map.keys().next().value!);
}

/**
 * The copy's earlier renders once `next` follows its latest: that one joins them when `next` no longer holds its newest
 * entry (a decision changed bytes before it: the provider still holds what it wrote); a render `next` only appended to
 * is in `next`'s ledger. Those with no entry warm at `next` are dropped, and all past {@link EARLIER_RENDERS}.
 */
function earlierRenders(before: LocalCopy, next: LastRender | undefined): readonly LastRender[] {
  const previous = before.record.state.lastRender;
  if (!next || !previous || previous === next) return before.earlier;
  const newest = previous.entries.at(-1);
  // By place and size, not identity: a record read back from a store has blocks of its own.
  const kept = newest === undefined || next.entries.some((e) => e.index === newest.index && e.path === newest.path && e.prefixTokens === newest.prefixTokens);
  const list = kept ? before.earlier : [previous, ...before.earlier];
  return list.filter((r) => r.entries.some((e) => e.expiresAt > next.at)).slice(0, EARLIER_RENDERS);
}

/**
 * `state` (rendered from the messages alone: the store held nothing) with the copy's memory of what this process sent as
 * its previous render: which entries the provider holds, on which blocks. Only the ledger comes back, no decision
 * (hides, prunes and compactions are the state's, not the render memory's): each block of a request's stable stream
 * whose path, role, hidden reason and payload this state's stream holds again is that block, so the render's identity
 * diff finds where the bytes first differ (a hide the lost state no longer has) and the bridge reads the newest entry
 * before it. A block not held again stays the copy's (it compares unequal). The sent tail is left out (a lost state
 * keeps none), and so are entries on it.
 *
 * The lost state sends again the bytes the decisions replaced, and the provider may still hold the entries written
 * on them before a decision (the request before a hide wrote past the block it hid): of the copy's earlier renders
 * ({@link earlierRenders}) and the latest itself, the newest with an entry still warm past the latest one's reach
 * (unless an older one reads further now) goes with it as its other view ({@link earlierView}), so the bridge reads
 * that entry, now or when a later request makes the same decision again. Unchanged when the copy rendered nothing for this model.
 */
export function withLedgerHint(state: TimelineState, hint: LedgerHint, profile: ModelProfile, tokens: BlockTokenCache | undefined, now: number): TimelineState {
  const last = hint.record.state.lastRender;
  if (!last || state.lastRender || (last.model ?? hint.record.state.model) !== state.model) return state;
  const current = stableStream(state, passContext(state, { profile, now, ...(tokens ? { tokens } : {}) }));
  const byPath = new Map(current.map((b) => [b.path, b]));
  const json = new Map<StreamBlock, string>();
  const bytes = (b: StreamBlock): string => {
    let j = json.get(b);
    if (j === undefined) json.set(b, (j = JSON.stringify(b.param)));
    return j;
  };
  // A request's stream with each block this state sends again, byte for byte, as this state's block.
  const mapped = (r: LastRender): StreamBlock[] =>
    r.stream.map((b) => {
      const x = byPath.get(b.path);
      return x && (x === b || (x.role === b.role && x.hidden === b.hidden && x.markable === b.markable && bytes(x) === bytes(b))) ? x : b;
    });
  // The entries of a mapped stream still warm below where it parts from this state's stream.
  const live = (r: LastRender, m: readonly StreamBlock[]): CacheEntryRecord[] => {
    let agree = 0;
    while (agree < m.length && agree < current.length && m[agree] === current[agree]) agree++;
    return r.entries.filter((e) => e.index < agree && e.expiresAt > now).map((e) => ({ ...e, block: m[e.index]! }));
  };
  const stream = mapped(last);
  const n = stream.length;
  const entries = last.entries.filter((e) => e.index < n && e.expiresAt > now).map((e) => ({ ...e, block: stream[e.index]! }));
  const reach = live(last, stream).at(-1)?.index ?? -1;
  let view: OtherView | undefined;
  let latest: OtherView | undefined;
  let best = -1;
  // The latest render first: its entries past where this state parts from it are warm, and a later request that makes
  // the same decision again sends their bytes again.
  for (const r of [last, ...hint.earlier]) {
    if ((r.model ?? hint.record.state.model) !== state.model) continue;
    const m = r === last ? stream : mapped(r);
    const warm = r.entries.filter((e) => e.index < m.length && e.expiresAt > now);
    if (!warm.some((e) => e.index > reach)) continue;
    // The newest such render, unless an older one reads further now.
    const valid = live(r, m).at(-1)?.index ?? -1;
    if (view && valid <= best) continue;
    best = valid;
    view = earlierView(r, m, warm, stream, byPath);
    if (r === last) latest = view;
  }
  if (entries.length === 0 && !view) return state;
  const previous: LastRender = {
    at: last.at,
    ...(last.model === undefined ? {} : { model: last.model }),
    stream: Object.freeze(stream),
    entries,
    turn: last.turn,
    round: last.round,
    // The counters start again, as for any lost state (the gate's Lindy forecast of the requests left reads them).
    requests: 0,
    idleGaps: 0,
    ...(last.stripBoundary === undefined ? {} : { stripBoundary: Math.min(last.stripBoundary, n) }),
    ...(view ? { otherView: view } : {}),
    // An older render reads further now: the latest's entries go on after this render all the same (render.ts).
    ...(latest && latest !== view ? { undone: latest } : {}),
  };
  return stateWith(state, { lastRender: previous });
}

/**
 * An earlier render as the other view of the hint (LastRender.otherView, marked `superseded` so each render carries it
 * on while an entry is warm, as a compaction's: a later request that makes the same decision again sends its bytes
 * again). Its blocks this state holds are this state's; each other block stands detached for the block that sends its
 * bytes under its path (render/projection.ts), where identity cannot tell.
 */
function earlierView(
  r: LastRender,
  m: readonly StreamBlock[],
  warm: readonly CacheEntryRecord[],
  stream: readonly StreamBlock[],
  byPath: ReadonlyMap<string, StreamBlock>,
): OtherView {
  const blocks = m.map((b) => (byPath.get(b.path) === b ? b : detachedCopy(b)));
  // The view's stream is the previous render's below `from`.
  let from = 0;
  while (from < blocks.length && from < stream.length && blocks[from] === stream[from]) from++;
  return {
    from,
    stream: Object.freeze(blocks),
    entries: warm.map((e) => ({ ...e, block: blocks[e.index]! })),
    stripBoundary: Math.min(r.stripBoundary ?? 0, blocks.length),
    superseded: true,
  };
}
