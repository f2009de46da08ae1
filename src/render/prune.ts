/**
 * Pass 1 — prune (the freshness rule). When the cache window has gone cold,
 * the prefix must be re-written anyway, so shrinking it now is free: old bulky
 * payloads (tool results, tool inputs, long response text) older than both the
 * most recent `keepTurns` turns and the most recent `keepRounds` rounds, and
 * above `minChars`, are hidden behind short notes; deferred hides are applied
 * too. The `economy` policy also prunes while warm when the cost gate says the
 * re-write pays back within the expected remaining requests, and, on models
 * that keep thinking, prunes earlier turns' thinking blocks: those are left out
 * of the request (the API lets a request omit them), never altered or noted.
 *
 * Contract: edits only `hidden` (and adds the one-time notice); never touches
 * user messages, the current turn's thinking, the envelope, the tail or the current round;
 * never prunes inside a warm window under `conservative`. Decisions are sticky:
 * a pruned block stays pruned in every later render. Idempotent.
 */
import { castDraft, produce } from 'immer';
import type { Block, BlockPath, CacheEntryRecord, HiddenRecord, Round, StreamBlock, TimelineState } from '../timeline/types.js';
import { isThinkingBlock } from './bind.js';
import type { Pass, PassContext } from './context.js';
import { changeRewrite, changeSaving, expectedRemaining, noticePrice, noticeStripPrice, priceChange, readableBefore } from './gate.js';
import { hiddenRecord, PRUNE_NOTICE } from './notes.js';
import { dedupe } from './dedupe.js';
import { withHidden } from './hidden-set.js';
import { hiddenSetOf } from '../timeline/hidden.js';
import { cacheStanding, isThinking } from './projection.js';
import type { LiveSeen } from './live-seen.js';
import { candidatesFrom, firstChanceFound, indexOfPath, type LiveSlots, locOf, pruneCandidates } from './prune-rule.js';
import { firstChance, type LiveResult, reuseWeigher, type ReuseVerdict } from './reuse.js';
import type { Decision } from './types.js';

const NOTICE_PARAM = { type: 'text' as const, text: PRUNE_NOTICE };

/** Notes counted so far, by counter: text → tokens (see {@link noteTextTokens}). */
const noteCounts = new WeakMap<object, Map<string, number>>();
/** Notes held per counter before its map starts again (a note is ~100 characters). */
const NOTE_COUNTS = 20_000;

/**
 * The tokens of a note as a text block. A payload the gate keeps visible is weighed again on later requests (the
 * visible results of file-less calls after every write: tens per request late in a long economy session with
 * compaction off), with the same note each time; a note is shorter than what the counter memoizes by text, so
 * it was tokenized anew every time. Counted once per counter here.
 */
function noteTextTokens(ctx: PassContext, note: string): number {
  let counts = noteCounts.get(ctx.tokens);
  if (!counts) noteCounts.set(ctx.tokens, (counts = new Map()));
  let n = counts.get(note);
  if (n === undefined) {
    if (counts.size >= NOTE_COUNTS) counts.clear();
    n = ctx.tokens.tokens({ type: 'text', text: note });
    counts.set(note, n);
  }
  return n;
}

/** A candidate's hidden record and its note's tokens, for one reason (see {@link candidateRecord}). */
interface Weighed {
  readonly record: HiddenRecord;
  /** The counter `noteTokens` was counted with: another counter counts the note again. */
  counter: object;
  noteTokens: number;
  /** Whether the block is thinking (left out without a note). */
  readonly thinking: boolean;
  /**
   * Where the block sat in the stable stream the gate last read it from, and the stream block there: a hint, used
   * while that stream block is still at that index of the stream read now (a stream holds a path once). The gate
   * finds the same payloads request after request (on a model that binds thinking, every visible stale result
   * before the last thinking block, after every write: a hundred late in a long session), each looked up by path.
   */
  at?: number;
  block?: StreamBlock | undefined;
  /** The tokens removing `block` saves (its tokens less the note's), while `block` and `noteTokens` are these. */
  removed?: number | undefined;
}

/** What the gate prepared of a round payload, by block, with the round it was found in (checked on use). */
interface Prepared {
  readonly round: Round;
  economy?: Weighed;
  prune?: Weighed;
}

const prepared = new WeakMap<Block, Prepared>();

/** A block the gate weighs: with its round and staleness when read from its round (see FirstChance in prune-rule.ts). */
interface Candidate {
  readonly block: Block;
  readonly round?: Round;
  readonly stale?: boolean;
  /** A live result's candidate: where its weighed record is kept (FirstChance.memo). */
  readonly memo?: { weighed?: unknown };
}

/**
 * {@link hiddenRecord} of a round's payload and the tokens of its note (0 for thinking, which leaves no note),
 * remembered by block while it is found in the same round (a round never changes, and the record reads only that
 * round: the payload and the call that names its tool), the note's tokens for the counter they were counted with.
 * A payload the gate keeps visible is weighed again on later requests (after every write, each visible result of a
 * file-less call), with the same record and note: one look-up by block instead of one by round, reason and path,
 * then one by counter and note. Paths outside a round are built each time. `found`: the block's round in the state,
 * when the caller read the block from it.
 */
function candidateRecord(state: TimelineState, ctx: PassContext, b: Block, reason: 'economy' | 'prune', found?: Round, memo?: { weighed?: unknown }): Weighed {
  // A live result's candidate keeps its warm record itself (it is made once per result, for its round): the same
  // record, without the look-up by block (a hundred such candidates a request late in a long session).
  if (memo && found && reason === 'economy') {
    let w = memo.weighed as Weighed | undefined;
    if (!w) memo.weighed = w = weighedOf(state, ctx, b, reason);
    else if (w.counter !== ctx.tokens) recount(ctx, b, w);
    return w;
  }
  // A candidate read from its round (firstChanceFound) comes with it: not found by its path again.
  const loc = found ? undefined : locOf(b.path);
  const round = found ?? (loc?.round === undefined ? undefined : state.turns[loc.turn - 1]?.rounds[loc.round - 1]);
  if (!round) {
    const record = hiddenRecord(state, b.path, reason);
    return { record, counter: ctx.tokens, noteTokens: noteTokensOf(ctx, b, record.note), thinking: isThinking(b) };
  }
  let p = prepared.get(b);
  if (p?.round !== round) prepared.set(b, (p = { round }));
  let w = p[reason];
  if (!w) w = p[reason] = weighedOf(state, ctx, b, reason);
  else if (w.counter !== ctx.tokens) recount(ctx, b, w);
  return w;
}

/** A round payload's weighed record, new (see {@link candidateRecord}). */
function weighedOf(state: TimelineState, ctx: PassContext, b: Block, reason: 'economy' | 'prune'): Weighed {
  const record = Object.freeze(hiddenRecord(state, b.path, reason));
  return { record, counter: ctx.tokens, noteTokens: noteTokensOf(ctx, b, record.note), thinking: isThinking(b) };
}

/** A weighed record's note counted with this render's counter (its saving with it: found again on use). */
function recount(ctx: PassContext, b: Block, w: Weighed): void {
  w.counter = ctx.tokens;
  w.noteTokens = noteTokensOf(ctx, b, w.record.note);
  w.block = undefined;
  w.removed = undefined;
}

/** The tokens a block's note adds in its place: none for thinking (left out, no note). */
function noteTokensOf(ctx: PassContext, b: Block, note: string): number {
  return isThinking(b) ? 0 : noteTextTokens(ctx, note);
}

/**
 * What the gate last read of each slot of the walk's live keys seen visible (live-seen.ts), for one counter: the
 * result it was (a slot read for another result, after a packing or a key seen anew, is read again), where its block
 * sat in the stable stream and that stream block, the tokens removing it saves, and its hidden record. While the slot
 * holds the same result and the stream read now holds that block at that index (a stream holds a path once; the
 * block is the projection of that payload, visible), the candidate is what it was: the same position, saving and
 * record, so still held when before the bound, else weighed again from these (its re-use verdict is read anew: it
 * depends on the state). After every write the gate finds every visible stale result again: on a model that binds
 * thinking nearly all are held, on one that does not they are weighed (tens late in a long session); read this way,
 * one costs a few array reads, not a candidate made, its record looked up and its place checked.
 */
interface SlotRecord {
  readonly counter: object;
  readonly live: (LiveResult | undefined)[];
  readonly at: number[];
  readonly block: (StreamBlock | undefined)[];
  readonly removed: number[];
  readonly record: (HiddenRecord | undefined)[];
  readonly thinking: boolean[];
}

const slotRecords = new WeakMap<LiveSeen<LiveResult>, SlotRecord>();

/** The slot record of `seen` for this counter (a new one for another counter: savings are counted with it). */
function slotRecordOf(seen: LiveSeen<LiveResult>, counter: object): SlotRecord {
  let r = slotRecords.get(seen);
  if (r?.counter !== counter) slotRecords.set(seen, (r = { counter, live: [], at: [], block: [], removed: [], record: [], thinking: [] }));
  return r;
}

/**
 * Sorts the slots firstChanceFound left (see {@link SlotRecord}): held as recorded (before the bound), weighed from the
 * record, or made a candidate again (pushed onto `candidates`); returns the slot of each candidate made here. Its own
 * function, like the other loops over every stale result: late in a long session a write request reads a hundred and
 * more slots, and the prune pass's body, which sees states and standings of several shapes, is often running
 * unoptimized (V8 drops its optimized code on a shape it has not seen).
 */
function readSlots(
  split: LiveSlots,
  record: SlotRecord,
  stream: readonly StreamBlock[],
  bound: number,
  held: number[],
  recorded: number[],
  candidates: Candidate[],
): Map<Candidate, number> | undefined {
  const results = split.seen!.results;
  const slots = split.slots;
  let slotOf: Map<Candidate, number> | undefined;
  for (let k = 0; k < slots.length; k++) {
    const i = slots[k]!;
    const r = results[i]!;
    const at = record.at[i]!;
    // The same result at the same stream block: the same position, saving and record; held while before the bound.
    if (record.live[i] === r && stream[at] === record.block[i]) {
      if (record.removed[i]! > 0) (at < bound ? held : recorded).push(i);
      continue;
    }
    const c = split.resolve!(r);
    if (c) {
      candidates.push(c);
      (slotOf ??= new Map()).set(c, i);
    }
  }
  return slotOf;
}

/** The slots weighed from their record: what their candidates would give (a live result's candidate is stale as the result is simple), its re-use verdict read now. */
function weighSlots(
  slots: readonly number[],
  seen: LiveSeen<LiveResult>,
  record: SlotRecord,
  weigh: (path: BlockPath, removed: number, stale?: boolean) => ReuseVerdict | undefined,
  weighed: Weighted[],
): void {
  for (let k = 0; k < slots.length; k++) {
    const i = slots[k]!;
    const path = seen.paths[i]!;
    const removed = record.removed[i]!;
    const reuse = weigh(path, removed, seen.results[i]!.simple);
    weighed.push({ path, at: record.at[i]!, record: record.record[i]!, removed, reuse, thinking: record.thinking[i]! });
  }
}

/** A payload weighed by the prune pass: its place in the stream, record, saving, re-use verdict. */
interface Weighted {
  readonly path: BlockPath;
  readonly at: number;
  readonly record: HiddenRecord;
  readonly removed: number;
  readonly reuse: ReuseVerdict | undefined;
  readonly thinking: boolean;
}

const PRESERVED = 'preserved thinking: pruning it would invalidate the thinking blocks after it';

/**
 * Pushes the held items' decisions in stream order: those the candidates gave (in stream order) and the held slots,
 * merged by position (a stream holds a path once: no ties). Late in a long session on a model that binds thinking a
 * write request holds every visible stale result (a hundred and more): each becomes its decision here, with no
 * intermediate item.
 */
function pushHeld(
  decisions: Decision[],
  held: readonly { readonly path: BlockPath; readonly at: number }[],
  slots: number[],
  record: SlotRecord | undefined,
  seen: LiveSeen<LiveResult> | undefined,
): void {
  let j = 0;
  if (slots.length > 0) {
    const at = record!.at;
    const paths = seen!.paths;
    slots.sort((a, b) => at[a]! - at[b]!);
    for (const i of slots) {
      while (j < held.length && held[j]!.at < at[i]!) decisions.push({ type: 'defer', path: held[j++]!.path, why: PRESERVED });
      decisions.push({ type: 'defer', path: paths[i]!, why: PRESERVED });
    }
  }
  while (j < held.length) decisions.push({ type: 'defer', path: held[j++]!.path, why: PRESERVED });
}

/** Adds the one-time notice to the newest user message, if there is one to carry it. */
function addNotice(state: TimelineState): TimelineState {
  const turn = state.turns.at(-1);
  if (!turn) return state;
  const round = turn.rounds.at(-1);
  const notice = { id: 'notices/prune', path: 'notices/prune', param: { type: 'text' as const, text: PRUNE_NOTICE } };
  if (round && (round.open.length > 0 || round.results.length === 0)) return state;
  return produce(state, (draft) => {
    const t = draft.turns[draft.turns.length - 1]!;
    const r = t.rounds[t.rounds.length - 1];
    if (r) r.results.push(castDraft(notice));
    else t.user.push(castDraft(notice));
    draft.pruneNotice = true;
  });
}

/** Pass 1: applies {@link prune} to the work's state. */
export const prunePass: Pass = {
  name: 'prune',
  run(work, ctx) {
    const { state, decisions } = prune(work.state, ctx);
    if (state === work.state && decisions.length === 0) return work;
    // Prune runs first: its decisions are the render's so far (a hundred and more a write request late in a long session).
    return { ...work, state, decisions: work.decisions.length === 0 ? decisions : [...work.decisions, ...decisions] };
  },
};

/**
 * Prunes the state: (economy) replaces new results that repeat a visible one by a note pointing at it
 * (dedupe.ts), then hides what the freshness rule selects (cold, or warm when the gate says so under economy).
 */
export function prune(state: TimelineState, ctx: PassContext): { state: TimelineState; decisions: Decision[] } {
  // Duplicates first: the gate then sees which visible copies they point at (a copy carries their re-use).
  const deduped = dedupe(state, ctx);
  const pruned = pruneOld(deduped.state, ctx);
  return deduped.decisions.length === 0 ? pruned : { state: pruned.state, decisions: [...deduped.decisions, ...pruned.decisions] };
}

function pruneOld(state: TimelineState, ctx: PassContext): { state: TimelineState; decisions: Decision[] } {
  const options = ctx.options;
  const o = options.prune;
  if (!o.enabled || state.turns.length === 0) return { state, decisions: [] };

  const { stream, entries } = cacheStanding(state, ctx);
  const timelineWarm = entries.some((e) => e.block.segment !== 'envelope');
  if (timelineWarm && options.policy !== 'economy') return { state, decisions: [] };

  const deferred = new Set(state.deferred.map((d) => d.path));
  // Economy also prunes earlier turns' thinking on models that keep it: left out of the request, not replaced by a note.
  // Not on models that bind thinking to its prefix: leaving one out invalidates every later one (render/bind.ts).
  const thinking = options.policy === 'economy' && ctx.profile.keepsThinking && !ctx.profile.bindsThinking;
  // While warm, each payload is weighed once, when it leaves the keepRounds window (its
  // removal then re-writes only the newest rounds); what the gate keeps then stays
  // until the cache is cold (a free prune) or compaction rewrites it.
  // (Found from the rounds since the previous render and the payloads superseded since, not by filtering every round's.)
  const first = timelineWarm && o.reuse;
  // Models that bind thinking: a payload before a visible thinking block stays (see `held` below), so its re-use is
  // not weighed: only its path is reported. Late in a long session those are most candidates, on every request.
  const bound = ctx.profile.bindsThinking ? lastThinking(stream) : -1;
  // The live results (the visible results of file-less calls, stale after every write) come as the walk's slots: most
  // are found again as the slot's record says (see {@link SlotRecord}), held or weighed from it.
  const split: LiveSlots | undefined = first && state.deferred.length === 0 ? { slots: [] } : undefined;
  const candidates: Candidate[] =
    (first && firstChanceFound(state, o, thinking, false, split)) ||
    (first ? pruneCandidates(state, o, thinking).filter(firstChance(state, o.keepRounds)) : pruneCandidates(state, o, thinking)).map((block) => ({ block }));
  /**
   * Slots held as their record says (no candidate made of them), slots weighed from their record (after the bound, or
   * no bound), and the slot of each live candidate made here.
   */
  const heldSlots: number[] = [];
  const recordedSlots: number[] = [];
  let slotOf: Map<Candidate, number> | undefined;
  const seen = split?.seen;
  const slotRecord = seen && split.slots.length > 0 ? slotRecordOf(seen, ctx.tokens) : undefined;
  if (slotRecord) slotOf = readSlots(split!, slotRecord, stream, bound, heldSlots, recordedSlots, candidates);
  const hiddenNow = hiddenSetOf(state);
  for (const d of state.deferred) {
    if (!candidates.some((c) => c.block.path === d.path) && !hiddenNow.has(d.path)) {
      const at = indexOfPath(stream, d.path);
      const b = at === undefined ? undefined : stream[at]!;
      if (b) candidates.push({ block: { id: b.id, path: b.path, param: b.param as Block['param'] } });
    }
  }
  if (candidates.length === 0 && heldSlots.length === 0 && recordedSlots.length === 0) return { state, decisions: [] };

  // Stream positions by path, read from the layout as asked (a map of the whole stream cost O(session) per render).
  const positions = new Map<string, number | undefined>();
  const index = {
    get(path: string): number | undefined {
      if (!positions.has(path)) positions.set(path, indexOfPath(stream, path));
      return positions.get(path);
    },
  };
  const remaining = expectedRemaining(state, options.expectedRemaining);
  const weigh = reuseWeigher(state, stream, ctx, timelineWarm, remaining);
  const weighed = candidates.map((c) => {
    const b = c.block;
    const reason = deferred.has(b.path) ? ('agent' as const) : timelineWarm ? ('economy' as const) : ('prune' as const);
    let record: HiddenRecord;
    let at: number;
    let thinking: boolean;
    let removed: number;
    if (reason === 'agent') {
      record = hiddenRecord(state, b.path, reason, state.deferred.find((d) => d.path === b.path)?.note);
      at = index.get(b.path)!;
      thinking = isThinking(b);
      removed = Math.max(0, stream[at]!.tokens - noteTokensOf(ctx, b, record.note));
    } else {
      const w = candidateRecord(state, ctx, b, reason, c.round, c.memo);
      ({ record, thinking } = w);
      // The same stream block where the gate last found it: the same position and the same saving.
      if (w.block !== undefined && stream[w.at!] === w.block) {
        at = w.at!;
        removed = w.removed!;
      } else {
        at = index.get(b.path)!;
        w.at = at;
        w.block = stream[at]!;
        removed = w.removed = Math.max(0, w.block.tokens - w.noteTokens);
      }
    }
    const slot = slotOf?.get(c);
    if (slot !== undefined && at !== undefined) {
      slotRecord!.live[slot] = seen!.results[slot];
      slotRecord!.at[slot] = at;
      slotRecord!.block[slot] = stream[at];
      slotRecord!.removed[slot] = removed;
      slotRecord!.record[slot] = record;
      slotRecord!.thinking[slot] = thinking;
    }
    // The agent's own hides are its decision: no re-use weighing.
    const reuse = reason === 'agent' || at < bound ? undefined : weigh(b.path, removed, c.stale);
    return { path: b.path, at, record, removed, reuse, thinking };
  });
  if (recordedSlots.length > 0) weighSlots(recordedSlots, seen!, slotRecord!, weigh, weighed);
  // By stream position (a stream holds a path once: no ties, so the order the candidates came in does not matter).
  const all = weighed.filter((x) => x.at !== undefined && x.removed > 0).sort((a, b) => a.at - b.at);
  // Models that bind thinking: a payload before a visible thinking block stays, since pruning it would invalidate
  // that thinking and every later one (render/bind.ts). The agent's deferred hides wait too (for a compaction);
  // a hide it asks for now (hideBlock) still applies, and the plan then says which thinking it cost.
  const held = bound >= 0 ? all.filter((x) => x.at < bound) : [];
  const free = held.length > 0 || heldSlots.length > 0 ? all.filter((x) => x.at >= bound) : all;
  // Payloads a later call is likely enough to need stay visible: the plan says so, with the figures.
  const kept = free.filter((x) => x.reuse?.keep);
  const items = free.filter((x) => !x.reuse?.keep);

  const chosen = timelineWarm
    ? chooseWarmBatch(
        items,
        entries,
        ctx,
        remaining,
        noticePrice(ctx.profile, state, ctx.tokens.tokens(NOTICE_PARAM), remaining),
        noticeStripPrice(ctx.profile, state, stream, remaining),
      )
    : {
        from: 0,
        price: priceChange(
          ctx.profile,
          [],
          items[0]?.at ?? 0,
          items.reduce((n, x) => n + x.removed, 0),
          remaining,
        ),
      };
  // A warm batch re-writes everything after its first change: older payloads there ride along for free when
  // nothing a later call targets is in them any more (p = 0: superseded, stale) or when the gate would not keep
  // them now (its own rule with no re-write to pay: a one-shot lookup, or a file's text whose chance of being
  // needed has decayed; docs/benchmarks.md, "Riders").
  if (timelineWarm && first && chosen.from < items.length) {
    const from = items[chosen.from]!.at;
    const taken = new Set(all.map((x) => x.path));
    for (const i of heldSlots) taken.add(seen!.paths[i]!);
    for (const b of candidatesFrom(state, o, thinking, items[chosen.from]!.path) ?? pruneCandidates(state, o, thinking)) {
      const at = index.get(b.path);
      if (at === undefined || at <= from || at < bound || taken.has(b.path)) continue;
      const { record, noteTokens } = candidateRecord(state, ctx, b, 'economy');
      const removed = Math.max(0, stream[at]!.tokens - noteTokens);
      const reuse = weigh(b.path, removed);
      if (removed > 0 && !reuse?.keep) items.push({ path: b.path, at, record, removed, reuse, thinking: isThinking(b) });
    }
  }
  const decisions: Decision[] = kept.map((it) => ({
    type: 'defer' as const,
    path: it.path,
    why: `re-use: p=${it.reuse!.p.toFixed(2)} (${it.reuse!.why}); expected recall $${it.reuse!.expectedRecall.toFixed(5)} ≥ saving $${it.reuse!.saving.toFixed(5)}`,
    price: {
      saving: it.reuse!.saving,
      rewrite: 0,
      warm: timelineWarm,
      reuse: { p: it.reuse!.p, why: it.reuse!.why, expectedRecall: it.reuse!.expectedRecall },
    },
  }));
  pushHeld(decisions, held, heldSlots, slotRecord, seen);
  const apply: HiddenRecord[] = [];
  items.forEach((it, k) => {
    if (k >= chosen.from) {
      apply.push(it.record);
      const price =
        chosen.price && it.reuse ? { ...chosen.price, reuse: { p: it.reuse.p, why: it.reuse.why, expectedRecall: it.reuse.expectedRecall } } : chosen.price;
      decisions.push({
        type: 'prune',
        path: it.path,
        reason: it.record.reason,
        tokensRemoved: it.removed,
        ...(price ? { price } : {}),
      });
    }
  });
  if (apply.length === 0) return { state, decisions };
  // One copy of the hidden set for the whole batch, made by hand and remembered (hidden-set.ts).
  const applied = new Set(apply.map((r) => r.path));
  let next = withHidden(
    state,
    apply,
    state.deferred.filter((d) => !applied.has(d.path) && !hiddenNow.has(d.path)),
  );
  // The notice explains [pruned: …] notes and recall: a prune that only leaves out thinking (no note) waits for one.
  if (!next.pruneNotice && items.some((it, k) => k >= chosen.from && !it.thinking)) {
    next = addNotice(next);
    if (next.pruneNotice) decisions.push({ type: 'notice', path: 'notices/prune' });
  }
  return { state: next, decisions };
}

/** Index of the last visible thinking block of the stream (-1 when there is none). */
function lastThinking(stream: readonly StreamBlock[]): number {
  for (let i = stream.length - 1; i >= 0; i--) if (isThinkingBlock(stream[i]!)) return i;
  return -1;
}

/**
 * While warm (economy): the batch of candidates from k on, for the k that
 * maximizes saving − expected recalls − re-write − the one-time notice (when
 * this is the first prune and the batch leaves a note: thinking is left out
 * without one), if positive. Later candidates ride along free.
 */
function chooseWarmBatch(
  items: readonly { at: number; removed: number; reuse?: ReuseVerdict | undefined; thinking: boolean }[],
  entries: readonly CacheEntryRecord[],
  ctx: PassContext,
  remaining: number,
  notice: number,
  /** On a model that strips earlier thinking: what the notice's strip adds for a batch starting at a stream index. */
  strip?: (at: number) => number,
): { from: number; price?: ReturnType<typeof priceChange> } {
  // priceChange's figures per batch, its price made only for the batch chosen: a write request late in a long session
  // weighs every visible stale result again (tens on a model that does not bind thinking), one batch per item.
  const warm = entries.length > 0;
  const whole = readableBefore(entries, Number.POSITIVE_INFINITY);
  let from = items.length;
  let best = 0;
  let chosen = 0;
  let suffix = 0;
  let recalls = 0;
  let notes = false;
  for (let k = items.length - 1; k >= 0; k--) {
    suffix += items[k]!.removed;
    recalls += items[k]!.reuse?.expectedRecall ?? 0;
    notes ||= !items[k]!.thinking;
    const saving = changeSaving(ctx.profile, warm, suffix, remaining);
    const rewrite = changeRewrite(ctx.profile, warm, whole, readableBefore(entries, items[k]!.at), suffix);
    const net = saving - recalls - rewrite - (notes ? notice + (strip?.(items[k]!.at) ?? 0) : 0);
    if (net > best) {
      from = k;
      best = net;
      chosen = suffix;
    }
  }
  return from < items.length ? { from, price: priceChange(ctx.profile, entries, items[from]!.at, chosen, remaining) } : { from };
}
