/**
 * Duplicate payloads (part of the prune pass, `economy` only). Agents read the
 * same unchanged file again, re-run a command whose output did not change,
 * fetch a page twice: the second result is byte-identical to one the model
 * still sees. Sending it again costs its tokens in every later request; a
 * short note that points at the visible copy costs almost nothing.
 *
 * Only a result that was not in the previous request is replaced, so nothing
 * cached changes (it is in the newest round, after every cache entry) and the
 * decision is free: no re-write, no gate. Nothing is lost to the model either:
 * the identical text is visible earlier in the same request, and the note says
 * where. The record keeps `sameAs` (the visible copy), so:
 * - the re-use gate weighs the copy with the duplicate's chance of being needed
 *   (render/reuse.ts): removing the copy later removes both;
 * - the forced-recall count treats the duplicate as visible while its copy is
 *   (replay/recalls.ts).
 * `recall` of the duplicate's path returns its own payload, byte-identical.
 *
 * A partial re-read is the same case: a new result of a read call whose text
 * is contained, byte for byte, in a visible earlier result of a read of the
 * same file (a Read with offset/limit after the whole file was read; the
 * numbered lines are the same bytes) becomes a note naming that copy ("part
 * of …"). Only results of the same file are searched, so the check costs one
 * substring search per earlier read of that file. Unlike an identical copy,
 * the earlier read is usually larger, and it now carries the partial read's
 * chance of being needed, so it stays visible where it would otherwise have
 * been pruned as superseded: the pointer is used only when keeping the
 * container costs less than sending the partial read and pruning the
 * container at the re-write the gate would pay ({@link partWorthIt}).
 *
 * Errors and results at or under `prune.minChars` are left alone, as are
 * copies that are hidden or inside a compaction summary.
 */
import { findBlock, parseTimelinePath } from '../timeline/paths.js';
import type { Block, BlockPath, HiddenRecord, Summary, TimelineState } from '../timeline/types.js';
import type { PassContext } from './context.js';
import { expectedRemaining, priceChange } from './gate.js';
import { hiddenChanges, withHidden } from './hidden-set.js';
import { hiddenRecord, payloadChars } from './notes.js';
import { cacheStanding } from './projection.js';
import { indexOfPath } from './prune-rule.js';
import { contentKey, readFiles, resultIndex, reuseEstimates } from './reuse.js';
import type { Decision } from './types.js';
import { type HiddenSet, hiddenSetOf } from '../timeline/hidden.js';

/** The text of a result made only of text (string content or text parts), else undefined. */
export function textOf(param: { readonly content?: unknown }): string | undefined {
  const c = param.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return undefined;
  let out = '';
  for (const part of c as { type?: string; text?: string }[]) {
    if (part.type !== 'text' || typeof part.text !== 'string') return undefined;
    out += part.text;
  }
  return out;
}

const summarizedSets = new WeakMap<readonly Summary[], ReadonlySet<BlockPath>>();

/** The paths the summaries hold (built once per summaries array: it changes only when a compaction adds one). */
function summarizedOf(summaries: readonly Summary[]): ReadonlySet<BlockPath> {
  let out = summarizedSets.get(summaries);
  if (!out) {
    const set = new Set<BlockPath>();
    for (const s of summaries) for (const p of s.paths) set.add(p);
    summarizedSets.set(summaries, (out = set));
  }
  return out;
}

const prefixes = new WeakMap<readonly Block[], { rollbacks: number; against: HiddenSet; hidden: number }>();

/**
 * How many leading entries of a result list are hidden: none of them is a visible copy or container, so the scans
 * start after them. Late in a long session most earlier reads of a file are pruned, and every new read scanned
 * them again. Remembered per list against the hidden set it was counted in: a set made from that one (hidden-set.ts)
 * only hides more, and the list only grows at its end until the walk rolls back.
 */
function hiddenPrefix(list: readonly Block[], hidden: HiddenSet, rollbacks: number): number {
  const was = prefixes.get(list);
  let n = 0;
  if (was && was.rollbacks === rollbacks && was.hidden <= list.length && hidden.descendsFrom(was.against)) n = was.hidden;
  while (n < list.length && hidden.has(list[n]!.path)) n++;
  if (was) {
    was.rollbacks = rollbacks;
    was.against = hidden;
    was.hidden = n;
  } else prefixes.set(list, { rollbacks, against: hidden, hidden: n });
  return n;
}

/** What {@link visibleAt} remembers of a list: against what it was read, how far, and the visible positions. */
interface VisibleAt {
  readonly rollbacks: number;
  readonly against: HiddenSet;
  readonly summaries: readonly Summary[];
  readonly minChars: number;
  /** Entries of the list read so far. */
  readonly covered: number;
  /** Positions, ascending, of those `visible` passed in `against`. */
  readonly at: readonly number[];
}

const visibleAts = new WeakMap<readonly Block[], VisibleAt>();

/**
 * Positions, in order, of the entries of a result list that `visible` passes (a result the pass may point at:
 * not an error, over minChars, not hidden, not summarized), remembered per list against the hidden set, the
 * summaries and minChars it was read with: a set made from that one (hidden-set.ts) only hides more, so only its
 * changed paths are dropped, and the list only grows at its end until the walk rolls back, so only its new
 * entries are read. A new partial read of a file is compared with every earlier visible read of the file: late in
 * a long session most of those are hidden, and each was looked up in the hidden set (every level) on every such
 * request.
 */
function visibleAt(
  list: readonly Block[],
  hidden: HiddenSet,
  rollbacks: number,
  summaries: readonly Summary[],
  minChars: number,
  visible: (b: Block) => boolean,
): readonly number[] {
  const was = visibleAts.get(list);
  const same = was && was.rollbacks === rollbacks && was.summaries === summaries && was.minChars === minChars && was.covered <= list.length;
  const changed = same ? hiddenChanges(was.against, hidden) : undefined;
  let at: readonly number[] = [];
  let from = 0;
  if (was && changed !== undefined) {
    at = was.at;
    from = was.covered;
    if (changed.length > 0) {
      const gone = new Set(changed);
      at = at.filter((i) => !gone.has(list[i]!.path));
    }
  } else if (same && hidden.descendsFrom(was.against)) {
    // Made from that set by more updates than it remembers the paths of: it still hides all it hid, so only the
    // positions visible then are looked up (a list not read for a while; on a model that binds thinking most of a
    // file's earlier reads stay visible, each was looked up in every level of the set).
    at = was.at.filter((i) => !hidden.has(list[i]!.path));
    from = was.covered;
  }
  if (from < list.length) {
    const more = at.slice();
    for (let i = from; i < list.length; i++) if (visible(list[i]!)) more.push(i);
    at = more;
  }
  if (!was || was.against !== hidden || was.at !== at || was.covered !== list.length)
    visibleAts.set(list, { rollbacks, against: hidden, summaries, minChars, covered: list.length, at });
  return at;
}

/**
 * Replaces every new tool result that repeats a visible earlier one by a note
 * pointing at it (economy only).
 *
 * Incremental: the results are not scanned. The new results (the rounds the previous request did not render) are
 * read from the end, and each one's earlier copies from the re-use walk's indexes of the session's results by
 * content and by file (reuse.ts {@link resultIndex}, kept across requests): the same copy and the same container
 * a scan of every result in timeline order finds (the first visible result with its content, not itself pointed
 * elsewhere by this pass; the first visible read of one of its files, first with its own content, that contains it).
 */
export function dedupe(state: TimelineState, ctx: PassContext): { state: TimelineState; decisions: Decision[] } {
  const o = ctx.options;
  if (o.policy !== 'economy' || !o.prune.enabled || state.turns.length === 0) return { state, decisions: [] };
  // Rounds the previous request rendered: every round before its own (turn, round), or before the rounds a request
  // before a cut sent when they are sent again (cut-shadow.ts).
  const prev = state.lastRender?.sentThrough ?? state.lastRender;
  const isNew = (turn: number, round: number): boolean => !prev || turn > prev.turn || (turn === prev.turn && round >= prev.round);
  const summarized = state.summaries.length > 0 ? summarizedOf(state.summaries) : undefined;
  const hidden = hiddenSetOf(state);
  const visible = (b: Block): boolean => {
    const p = b.param;
    return p.type === 'tool_result' && !p.is_error && !hidden.has(b.path) && payloadChars(p) > o.prune.minChars && !summarized?.has(b.path);
  };
  // The new results that may repeat an earlier one, in timeline order (read from the end: a few rounds).
  const fresh: { block: Block; response: readonly Block[] }[] = [];
  for (let t = state.turns.length - 1; t >= 0; t--) {
    const turn = state.turns[t]!;
    let any = false;
    for (let r = turn.rounds.length - 1; r >= 0; r--) {
      const round = turn.rounds[r]!;
      if (!isNew(turn.index, round.index)) break;
      any = true;
      for (let i = round.results.length - 1; i >= 0; i--) if (visible(round.results[i]!)) fresh.push({ block: round.results[i]!, response: round.response });
    }
    if (!any && prev && turn.index < prev.turn) break;
  }
  if (fresh.length === 0) return { state, decisions: [] };
  fresh.reverse();
  const { byContent, byFile, rollbacks } = resultIndex(state);
  /** New results this pass points elsewhere (a duplicate, or part of a read). */
  const pointed = new Set<Block>();
  /** The first result in `list` before `b` (or anywhere when b is not in it) that is visible and not pointed elsewhere. */
  const firstCopy = (list: readonly Block[] | undefined, b: Block): Block | undefined => {
    if (!list) return undefined;
    for (let i = hiddenPrefix(list, hidden, rollbacks); i < list.length; i++) {
      const x = list[i]!;
      if (x === b) return undefined;
      if (visible(x) && !pointed.has(x)) return x;
    }
    return undefined;
  };
  const found: { path: BlockPath; sameAs: BlockPath; part: boolean }[] = [];
  for (const { block: b, response } of fresh) {
    const key = contentKey(b.param as { content?: unknown });
    const copy = firstCopy(byContent.get(key), b);
    if (copy) {
      found.push({ path: b.path, sameAs: copy.path, part: false });
      pointed.add(b);
      continue;
    }
    const files = readFiles(response, b.id);
    const text = files.length > 0 ? textOf(b.param as { content?: unknown }) : undefined;
    if (text === undefined) continue;
    // The reads a scan would have listed by then: visible, not pointed elsewhere, the first with their content.
    let container: Block | undefined;
    const lines = innerLines(text);
    for (const f of files) {
      const list = byFile.get(f) ?? [];
      // The visible entries only (`b`, a new result, is one of them): the hidden ones are not looked up again.
      for (const i of visibleAt(list, hidden, rollbacks, state.summaries, o.prune.minChars, visible)) {
        const x = list[i]!;
        if (x === b) break;
        if (pointed.has(x)) continue;
        const own = textOf(x.param as { content?: unknown });
        if (own === undefined || !(own.length > text.length) || !mayContain(x, own, lines) || !own.includes(text)) continue;
        // Whether it is the first with its content is asked last, of a read that holds the text: on a model that binds
        // thinking a file's earlier reads stay visible, tens late in a long session, and most hold no partial read.
        if (firstCopy(byContent.get(contentKey(x.param as { content?: unknown })), x) !== undefined) continue;
        container = x;
        break;
      }
      if (container) break;
    }
    if (container && partWorthIt(state, ctx, container.path, b)) {
      found.push({ path: b.path, sameAs: container.path, part: true });
      pointed.add(b);
    }
  }
  if (found.length === 0) return { state, decisions: [] };
  const records: HiddenRecord[] = found.map(({ path, sameAs, part }) => ({
    ...hiddenRecord(state, path, 'economy', `${part ? 'part of' : 'identical to'} ${sameAs}, shown above`),
    sameAs,
  }));
  const decisions: Decision[] = records.map((r) => {
    const b = ctx.tokens.tokens({ type: 'text', text: r.note });
    const block = findResult(state, r.path);
    return { type: 'prune', path: r.path, reason: 'economy', tokensRemoved: Math.max(0, (block ? ctx.tokens.tokens(block) : 0) - b) };
  });
  return { state: withHidden(state, records), decisions };
}

/** Containers shorter than this are searched at once (a search costs about a nanosecond a character). */
const LINES_FROM = 1024;
/** The lines of a container's text (split at '\n'), by block: made the first time it is searched. */
const lineSets = new WeakMap<Block, ReadonlySet<string>>();

/**
 * The complete lines of `text` (each between two of its newlines), in order, cut when first asked: a new partial
 * read is checked against each earlier read of its file (see {@link mayContain}), its lines cut once, not per read.
 */
function innerLines(text: string): () => readonly string[] {
  let out: string[] | undefined;
  return () => {
    if (out) return out;
    out = [];
    let i = text.indexOf('\n');
    let j = i < 0 ? -1 : text.indexOf('\n', i + 1);
    while (j >= 0) {
      out.push(text.slice(i + 1, j));
      i = j;
      j = text.indexOf('\n', i + 1);
    }
    return out;
  };
}

/**
 * Whether `own` (the text of `x`) may contain the text whose complete lines `lines` gives: false only when a
 * complete line of it (between two of its newlines) is not a line of `own`, which containment needs (those newlines
 * are newlines of `own` too). Each earlier read of a file is searched for every new partial read of it (tens of
 * kilocharacters a request late in a long session), and most are other versions, or other renderings (numbered
 * lines), whose lines differ: the lines are looked up instead of the text searched.
 */
function mayContain(x: Block, own: string, lines: () => readonly string[]): boolean {
  if (own.length < LINES_FROM) return true;
  const wanted = lines();
  if (wanted.length === 0) return true;
  let set = lineSets.get(x);
  if (!set) lineSets.set(x, (set = new Set(own.split('\n'))));
  for (const line of wanted) if (!set.has(line)) return false;
  return true;
}

/**
 * Whether pointing a partial re-read at the visible read that contains it is
 * cheaper than sending it. Pointing: the container stays visible (it carries
 * the partial read's chance of being needed), read by every remaining
 * request. Sending: the partial is written once and read, and the container
 * stays too, unless nothing targets it any more (its own chance is 0, so the
 * gate weighs it again) and the gate prunes it at the re-write that causes. Prices from the profile, remaining requests as the gate
 * expects them (gate.ts).
 */
export function partWorthIt(state: TimelineState, ctx: PassContext, containerPath: BlockPath, partial: Block): boolean {
  const { stream, entries } = cacheStanding(state, ctx);
  const at = indexOfPath(stream, containerPath);
  if (at === undefined) return false;
  const p = ctx.profile.prices;
  const remaining = expectedRemaining(state, ctx.options.expectedRemaining);
  const container = stream[at]!.tokens;
  const part = ctx.tokens.tokens(partial.param);
  const keepContainer = (container * p.cacheRead * remaining) / 1e6;
  // The gate weighs a warm payload again only once nothing targets it any more (its own p is 0: reuse.ts).
  const gate = priceChange(ctx.profile, entries, at, container, remaining);
  // Cold, every payload is weighed (for free): count the container as pruned, i.e. send the partial (no change).
  const weighedAgain = entries.length === 0 || (reuseEstimates(state).get(containerPath)?.p ?? 0) === 0;
  const containerInB = weighedAgain && gate.saving > gate.rewrite ? gate.rewrite : keepContainer;
  const sendPart = (part * (p.cacheWrite5m + p.cacheRead * remaining)) / 1e6;
  return keepContainer < sendPart + containerInB;
}

/** The param of the tool result at `path`, found where its path says it is. */
function findResult(state: TimelineState, path: BlockPath): unknown {
  const b = parseTimelinePath(path) ? findBlock(state, path) : undefined;
  return b?.param.type === 'tool_result' ? b.param : undefined;
}
