/**
 * What a cut-back forgets, remembered until the loop sends it again. A request with fewer messages than stored (a
 * retry that dropped the last response, a rewind to an earlier user message) cuts the timeline back, and its render
 * forgets the cache entries past the cut. The provider does not: the entries the requests before the cut wrote there
 * live on (5 minutes or 1 hour after their last use). When the loop then re-sends the same messages (it retried, or
 * went on with its whole array), those entries match the request's prefix again, and a marker must reach them
 * (the bridge) or they are a bust.
 *
 * So a cut keeps a *shadow* of the stretch it removed, in the conversation record: per block its path, id and a
 * digest of its payload, the sticky hides on it, and the previous render's stream past the cut (path and key per
 * block) with the cache entries there. The request that appends past the cut again takes the stretch back as far as
 * its blocks are the same bytes: their hides are restored (so they render as the provider cached them) and the
 * shadow's entries rejoin the ledger for the stream blocks that are the same again. Bounded (the stretch up to the
 * newest entry, at most the ledger's entries), dropped when its entries have expired, when it was taken back, or
 * when the history is edited.
 */
import { castDraft, produce } from 'immer';
import type { ModelProfile } from '../models/profiles.js';
import { foldSentTail } from '../render/bind.js';
import { passContext } from '../render/context.js';
import { detachedView, previousBlock, previousLength, stableStream } from '../render/projection.js';
import type { BlockTokenCache } from '../tokens/counter.js';
import type { Block, CacheEntryRecord, DeferredHide, HiddenRecord, LastRender, StreamBlock, TimelineState } from '../timeline/types.js';
import { stateWith } from '../timeline/hidden.js';
import { findBlock, turnBlocks } from '../timeline/paths.js';
import { currentThinking, digestOf } from './mapping.js';
import { streamKey, thinkingPlaceholder } from './state.js';
import type { CutShadow, MessageMark, ShadowEntry } from './types.js';

// IMPLEMENTATION

/** The blocks a cut at `mark` removes from `state`, in timeline (stream) order. */
export function stretchOf(state: TimelineState, mark: MessageMark): Block[] {
  const out: Block[] = [];
  const turn = state.turns[mark.turns - 1];
  if (turn) {
    if (mark.rounds > 0) out.push(...(turn.rounds[mark.rounds - 1]?.results.slice(mark.results) ?? []));
    for (const r of turn.rounds.slice(mark.rounds)) out.push(...r.response, ...r.results);
  }
  for (const t of state.turns.slice(mark.turns)) out.push(...turnBlocks(t));
  return out;
}

function payloadDigest(b: Block): string {
  return digestOf(JSON.stringify(b.param));
}

/**
 * `state`, cut back at `mark` from `before`, with its superseded view (LastRender.otherView: a compaction's, or a lost
 * state's hint) standing detached from the view's first block the cut removed (render/projection.ts detachedView): the
 * request that appends past the cut again builds those blocks anew, so identity no longer tells them; their path, role
 * and bytes do (as for a view read back from a record, conversation/state.ts).
 */
export function withViewDetached(before: TimelineState, state: TimelineState, mark: MessageMark): TimelineState {
  const last = state.lastRender;
  const view = last?.otherView;
  if (!view?.superseded) return state;
  const cut = new Set(stretchOf(before, mark).map((b) => b.path));
  const from = view.stream.findIndex((b) => cut.has(b.path));
  const otherView = from < 0 ? view : detachedView(view, from);
  return otherView === view ? state : stateWith(state, { lastRender: { ...last!, otherView } });
}

/** Whether the shadow still holds an entry the provider may keep at `now`. */
export function shadowLive(shadow: CutShadow | undefined, now: number): shadow is CutShadow {
  return shadow?.entries.some((e) => e.expiresAt > now) === true;
}

/**
 * The shadow of a cut, once the cut request has rendered: `before` is the state the cut was made from (its last
 * render is the last request before the cut), `after` the cut request's rendered state, `mark` and `count` where it
 * cut. Undefined when there is nothing worth remembering: no entry past the cut, or the cut request changed the
 * stream before the cut (then the provider's entries past it no longer match any prefix the loop can send), unless
 * that change is one the request appending past the cut undoes (a strip boundary, the latest answer's thinking).
 * `previous`: the shadow of an earlier cut not taken back yet (the conversation was not extended since), continued
 * by this one when it cut at or before it.
 */
export function shadowOfCut(
  before: TimelineState,
  after: TimelineState,
  mark: MessageMark,
  count: number,
  now: number,
  previous: CutShadow | undefined,
): CutShadow | undefined {
  const a = before.lastRender;
  const b = after.lastRender;
  if (!a || !b) return undefined;
  const cutLength = previousLength(b);
  const length = previousLength(a);
  let same = 0;
  while (same < cutLength && same < length && previousBlock(a, same) === previousBlock(b, same)) same++;
  // Models that do not keep thinking: the two requests' provider prefixes part where their streams do (the cut
  // request may render thinking the request before it had dropped, or the reverse), or where one stripped thinking
  // the other kept (their strip boundaries differ): from there the shadow keeps the request before the cut's own
  // view (its stream and boundary), entries before the cut mark included.
  const boundary = a.stripBoundary;
  // Models that keep thinking: the cut sends the thinking of the latest assistant message again (truncateTo: the
  // API needs it unchanged), which the request before the cut had left out (economy, an earlier turn's). The request
  // that appends past the cut leaves it out again (its hide comes back with the stretch, takeBack), so the provider's
  // entries of the request before the cut match again: the shadow keeps that request's own view from where the two
  // streams part, and the hides the cut undid.
  const unhidden = boundary === undefined && same < cutLength ? [...currentThinking(after)].filter((p) => before.hidden[p] && !after.hidden[p]) : [];
  const own = (boundary !== undefined && (same < cutLength || boundary !== b.stripBoundary)) || unhidden.length > 0;
  if (same < cutLength && !own) return undefined;
  const from = own ? (boundary === undefined || boundary === b.stripBoundary ? same : Math.min(same, boundary, b.stripBoundary ?? 0)) : cutLength;
  // An earlier cut's shadow continues this one when `before` is that cut's request (nothing appended since).
  const chained =
    !own && shadowLive(previous, now) && previous.stripBoundary === undefined && previous.from === length && previous.count >= count ? previous : undefined;
  const entries: ShadowEntry[] = [];
  for (const e of a.entries) {
    // An entry on the tail that request sent (kept on models that bind thinking: render/cache-points.ts) is past its
    // stable stream: no re-sent stretch ends there (the cut request's own tail is kept before it), so it is not kept.
    if (e.index >= from && e.index < length && e.expiresAt > now) {
      entries.push({ path: e.path, index: e.index, prefixTokens: e.prefixTokens, ttl: e.ttl, expiresAt: e.expiresAt });
    }
  }
  if (chained) entries.push(...chained.entries.filter((e) => e.expiresAt > now));
  if (entries.length === 0) return undefined;
  // Bounded: the stream up to the newest entry (all of it when an earlier shadow continues it), the blocks up to that one.
  const end = chained ? length : entries.at(-1)!.index + 1;
  const stream: { path: string; key: string }[] = [];
  for (let i = from; i < end; i++) {
    const s = previousBlock(a, i);
    stream.push({ path: s.path, key: streamKey(s) });
  }
  const last = stream.at(-1)?.path;
  const blocks: CutShadow['blocks'][number][] = [];
  const hidden: Record<string, HiddenRecord> = {};
  for (const x of stretchOf(before, mark)) {
    blocks.push({ path: x.path, id: x.id, digest: payloadDigest(x) });
    const h = before.hidden[x.path];
    if (h) hidden[x.path] = h;
    if (!chained && x.path === last) break;
  }
  for (const p of unhidden) hidden[p] = before.hidden[p]!;
  const paths = new Set(blocks.map((x) => x.path));
  const deferred = before.deferred.filter((d) => paths.has(d.path));
  if (chained) {
    stream.push(...chained.stream);
    blocks.push(...chained.blocks);
    Object.assign(hidden, chained.hidden);
    deferred.push(...chained.deferred);
  }
  // A model that keeps thinking strips none: its own view's boundary is 0.
  return { count, mark, blocks, hidden, deferred, from, stream, entries: entries.slice(-48), ...(own ? { stripBoundary: boundary ?? 0 } : {}) };
}

/**
 * The request that appends past a cut again: the re-appended blocks that are the shadow's (the same path, id and
 * payload, from the cut up to the first that differs) take back their hides and deferred hides. Returns the state
 * and the paths taken back.
 */
export function takeBack(state: TimelineState, shadow: CutShadow): { state: TimelineState; kept: ReadonlySet<string> } {
  const news = stretchOf(state, shadow.mark);
  const kept = new Set<string>();
  const hides: [string, HiddenRecord][] = [];
  const current = currentThinking(state);
  for (let i = 0; i < news.length && i < shadow.blocks.length; i++) {
    const n = news[i]!;
    const o = shadow.blocks[i]!;
    if (n.path !== o.path || n.id !== o.id || state.hidden[n.path] !== undefined) break;
    const h = shadow.hidden[o.path];
    if (payloadDigest(n) !== o.digest) break;
    kept.add(n.path);
    // The current thinking goes back unchanged (the API requires it), not left out as it was cut: if the request
    // leaves it out again (unvouched.ts), the stream there is the cut one and the shadow's entries after it rejoin.
    if (h && !current.has(n.path)) hides.push([n.path, h]);
  }
  if (kept.size === 0) return { state, kept };
  // The thinking the cut sent again before the mark (shadowOfCut), no longer the latest assistant message's.
  const stretch = new Set(shadow.blocks.map((b) => b.path));
  for (const [path, h] of Object.entries(shadow.hidden)) {
    if (!stretch.has(path) && state.hidden[path] === undefined && !current.has(path) && findBlock(state, path)) hides.push([path, h]);
  }
  const deferred = shadow.deferred.filter((d) => kept.has(d.path) && !state.deferred.some((x) => x.path === d.path));
  if (hides.length === 0 && deferred.length === 0) return { state, kept };
  const next = produce(state, (draft) => {
    for (const [path, h] of hides) draft.hidden[path] = castDraft(h);
    if (deferred.length > 0) draft.deferred.push(...castDraft(deferred as DeferredHide[]));
  });
  return { state: next, kept };
}

/**
 * The state with its last render's memory extended by the shadow: the stream past the cut request's, as far as the
 * blocks this state renders there are the ones the shadow remembers (the same path and key, taken back), and the
 * shadow's entries there (still warm at `now`). The render then knows what the provider holds past the cut.
 */
export function withShadowLedger(
  state: TimelineState,
  shadow: CutShadow,
  kept: ReadonlySet<string>,
  profile: ModelProfile,
  tokens: BlockTokenCache | undefined,
  now: number,
): TimelineState {
  const last = state.lastRender;
  const own = shadow.stripBoundary !== undefined;
  if (!last || kept.size === 0 || (own ? previousLength(last) < shadow.from : previousLength(last) !== shadow.from)) return state;
  const ctx = passContext(state, { profile, now, ...(tokens ? { tokens } : {}) });
  // The stream as the render builds it: on a model that binds thinking, the cut request's tail stays in the history
  // where it was sent (foldSentTail), right at `from`, where the requests before the cut had other blocks.
  const stream = stableStream(foldSentTail(state, ctx), ctx);
  if (own) return withOwnView(state, last, shadow, kept, stream, ctx.tokens, now);
  const merged: StreamBlock[] = [];
  for (let i = 0; i < shadow.from; i++) merged.push(previousBlock(last, i));
  for (let j = 0; j < shadow.stream.length; j++) {
    const d = shadow.stream[j]!;
    const s = stream[shadow.from + j];
    if (!s || s.path !== d.path || !kept.has(s.path) || streamKey(s) !== d.key) break;
    merged.push(s);
  }
  const entries: CacheEntryRecord[] = [];
  for (const e of shadow.entries) if (e.index < merged.length && e.expiresAt > now) entries.push({ ...e, block: merged[e.index]! });
  if (entries.length === 0) return state;
  // The rounds before the last one taken back were sent: dedupe and the prune's first chance leave them be.
  const end = merged.at(-1)!;
  const sentThrough = end.turn !== undefined && merged.length > shadow.from ? { turn: end.turn, round: end.round ?? 1 } : undefined;
  return stateWith(state, {
    lastRender: {
      ...last,
      stream: Object.freeze(merged),
      entries: [...last.entries.filter((e) => e.index < shadow.from), ...entries],
      ...(sentThrough ? { sentThrough } : {}),
    },
  });
}

function isThinkingBlock(b: { readonly param: object }): boolean {
  const type = (b.param as { type?: unknown }).type;
  return type === 'thinking' || type === 'redacted_thinking';
}

/**
 * {@link withShadowLedger} for a shadow that keeps the request before the cut's own view (a model that does not keep
 * thinking, or the cut sent the latest answer's thinking again: see shadowOfCut): its stream from `from` on, re-attached to this state's blocks by path and key (a block
 * past the cut mark only when taken back), with a placeholder for a thinking block this stream no longer holds (its
 * type and tokens: validEntries skips it where that request's API had stripped it), and its entries there. The last
 * render stays the cut request's; the view goes with it as `otherView`, and validEntries keeps the entries of either.
 */
function withOwnView(
  state: TimelineState,
  last: LastRender,
  shadow: CutShadow,
  kept: ReadonlySet<string>,
  stream: readonly StreamBlock[],
  tokens: BlockTokenCache,
  now: number,
): TimelineState {
  const cut = new Set(shadow.blocks.map((b) => b.path));
  const view: StreamBlock[] = [];
  // Where `from` falls in this stream: the two may differ before it by thinking only (a new turn dropped some).
  let k = 0;
  for (let i = 0; i < shadow.from; i++) {
    const b = previousBlock(last, i);
    view.push(b);
    while (k < stream.length && stream[k] !== b && isThinkingBlock(stream[k]!)) k++;
    if (stream[k] === b) k++;
    else if (!isThinkingBlock(b)) return state;
  }
  for (const d of shadow.stream) {
    const s = stream[k];
    if (s && s.path === d.path && streamKey(s) === d.key && (kept.has(s.path) || !cut.has(s.path))) {
      view.push(s);
      k++;
      continue;
    }
    const thinking = cut.has(d.path) && !kept.has(d.path) ? undefined : thinkingPlaceholder(state, d.path, tokens);
    if (!thinking) break;
    view.push(thinking);
  }
  const entries: CacheEntryRecord[] = [];
  for (const e of shadow.entries) if (e.index < view.length && e.expiresAt > now) entries.push({ ...e, block: view[e.index]! });
  if (entries.length === 0) return state;
  return stateWith(state, {
    lastRender: { ...last, otherView: { from: shadow.from, stream: Object.freeze(view), entries, stripBoundary: shadow.stripBoundary! } },
  });
}
