/**
 * The freshness rule: which payloads are old and bulky enough to prune. The
 * prune pass applies it, compaction applies it for free to what it re-writes
 * anyway, and cache-point placement keeps ④ before what the next prune will
 * remove. Pure functions of the state and the resolved prune options.
 */
import { hiddenSetOf } from '../timeline/hidden.js';
import { parseTimelinePath } from '../timeline/paths.js';
import type { Block, BlockPath, StreamBlock, TimelineState } from '../timeline/types.js';
import { hiddenRecord, payloadChars, PRUNE_NOTICE } from './notes.js';
import type { ModelProfile } from '../models/profiles.js';
import type { PassContext } from './context.js';
import { expectedRemaining, noticePrice, noticeStripPrice } from './gate.js';
import { coveredFrom, isCompacted, isThinking, streamLayout, visibleFrom } from './projection.js';
import type { LiveSeen } from './live-seen.js';
import { type LiveResult, reuseWeigher, supersededFoundSince } from './reuse.js';
import type { PruneOptions } from './types.js';

const chars = new WeakMap<Block, number>();
/** Characters of a block's payload, memoized per block. */
function sizeOf(b: Block): number {
  let n = chars.get(b);
  if (n === undefined) chars.set(b, (n = payloadChars(b.param)));
  return n;
}

type Loc = { readonly turn: number; readonly round?: number };
const locs = new Map<BlockPath, Loc | undefined>();
/** Paths whose place is remembered before the map starts again (a path is ~40 characters). */
const LOCS = 50_000;

/**
 * Where a timeline path points ({@link parseTimelinePath}), remembered by path: the gate finds the same candidates
 * (the visible results a write made stale) on request after request, and a regular expression per look-up was a
 * measurable part of a long session's step.
 */
export function locOf(path: BlockPath): Loc | undefined {
  let loc = locs.get(path);
  if (loc === undefined && !locs.has(path)) {
    if (locs.size >= LOCS) locs.clear();
    const parsed = parseTimelinePath(path);
    loc = parsed && Object.freeze(parsed);
    locs.set(path, loc);
  }
  return loc;
}

/**
 * Blocks old and bulky enough to prune, oldest first.
 *
 * @param thinking also the thinking blocks of earlier turns (economy, on models that keep them): the API
 *   lets a request omit them, so the renderer leaves them out (render/projection.ts) rather than altering
 *   them; a response that is only thinking keeps it (an empty assistant message is invalid), and the current
 *   turn's thinking is never a candidate (the API needs the last assistant message's thinking unchanged)
 */
export function pruneCandidates(state: TimelineState, o: Readonly<Required<PruneOptions>>, thinking = false): Block[] {
  const out: Block[] = [];
  if (!o.enabled) return out;
  const rule = ruleOf(state, o, thinking);
  for (let t = 1; t <= rule.lastPrunableTurn; t++) {
    const turn = state.turns[t - 1]!;
    if (isCompacted(state, t, turn.rounds.length)) continue;
    for (const round of turn.rounds) {
      if (t === rule.keepFrom.turn && round.index >= rule.keepFrom.round) break;
      if (isCompacted(state, t, round.index)) continue;
      roundCandidates(state, o, rule, t, round, out);
    }
  }
  return out;
}

type Round = TimelineState['turns'][number]['rounds'][number];

/** What decides which rounds hold candidates: the keep window, the last prunable turn, the newest round (thinking). */
interface Rule {
  readonly lastTurn: number;
  readonly keepFrom: { readonly turn: number; readonly round: number };
  readonly lastPrunableTurn: number;
  /** The latest assistant message (keeps its thinking), when thinking is pruned. */
  readonly latest: Round | undefined;
  readonly thinking: boolean;
  /** Where the visible timeline starts ({@link visibleFrom}): read once, not per round asked. */
  readonly from: { readonly turn: number; readonly round: number };
}

function ruleOf(state: TimelineState, o: Readonly<Required<PruneOptions>>, thinking: boolean): Rule {
  const lastTurn = state.turns.length;
  // The most recent keepRounds rounds, counted across turn boundaries.
  let keepFrom = { turn: lastTurn + 1, round: 0 };
  let left = o.keepRounds;
  for (let t = lastTurn; t >= 1 && left > 0; t--) {
    const rounds = state.turns[t - 1]!.rounds.length;
    if (rounds >= left) {
      keepFrom = { turn: t, round: rounds - left + 1 };
      left = 0;
    } else {
      left -= rounds;
      keepFrom = { turn: t, round: 1 };
    }
  }
  const lastPrunableTurn = Math.min(lastTurn - o.keepTurns, keepFrom.turn);
  // The latest assistant message keeps its thinking even with keepRounds 0: the newest round of the session, in an
  // earlier turn while the current one (and any turn between, user messages with no answer) has none yet (the
  // current turn's thinking is never a candidate).
  let latest: Round | undefined;
  for (let t = lastTurn; thinking && t >= 1 && latest === undefined; t--) latest = state.turns[t - 1]!.rounds.at(-1);
  return { lastTurn, keepFrom, lastPrunableTurn, latest, thinking, from: visibleFrom(state) };
}

/** Whether round `round` of turn `t` (1-based) may hold candidates: prunable, outside the keep window, not compacted. */
function roundOpen(rule: Rule, t: number, round: Round): boolean {
  return roundOpenAt(rule, t, round.index);
}

/** {@link roundOpen} of round number `r` of turn `t` (a round's number is its index). */
function roundOpenAt(rule: Rule, t: number, r: number): boolean {
  if (t > rule.lastPrunableTurn) return false;
  if (t === rule.keepFrom.turn && r >= rule.keepFrom.round) return false;
  return !coveredFrom(rule.from, t, r);
}

/** Pushes the candidates of one round (response, then results) onto `out`. */
function roundCandidates(state: TimelineState, o: Readonly<Required<PruneOptions>>, rule: Rule, t: number, round: Round, out: Block[]): void {
  const earlierThinking = thinkingPrunable(rule, t, round);
  for (const b of round.response) if (isCandidate(state, o, b, earlierThinking)) out.push(b);
  for (const b of round.results) if (isCandidate(state, o, b, earlierThinking)) out.push(b);
}

/** Whether the thinking of round `round` of turn `t` is a candidate (economy, earlier turns, not the latest response, not thinking only). */
function thinkingPrunable(rule: Rule, t: number, round: Round): boolean {
  return rule.thinking && t < rule.lastTurn && round !== rule.latest && round.response.some((x) => !isThinking(x));
}

function isCandidate(state: TimelineState, o: Readonly<Required<PruneOptions>>, b: Block, earlierThinking: boolean): boolean {
  return prunableKind(o, b, earlierThinking) && !hiddenSetOf(state).has(b.path);
}

/** {@link isCandidate} without its hidden test: a bulky kind (thinking only when `earlierThinking`), not the notice, big enough. */
function prunableKind(o: Readonly<Required<PruneOptions>>, b: Block, earlierThinking: boolean): boolean {
  const type = b.param.type;
  const bulky = type === 'tool_result' || type === 'tool_use' || type === 'text' || (earlierThinking && isThinking(b));
  return bulky && b.path !== 'notices/prune' && sizeOf(b) >= o.minChars;
}

/**
 * The candidates a warm render weighs (economy): {@link pruneCandidates} filtered by
 * `firstChance(state, o.keepRounds)` (reuse.ts), found without scanning every round: those of the rounds that
 * were inside the keepRounds window at the previous render (read from the end), and those superseded since (read
 * from the re-use walk's records of what happened since). Timeline order, like pruneCandidates. Undefined when
 * there is no previous render (the caller filters the whole list).
 */
export function firstChanceCandidates(state: TimelineState, o: Readonly<Required<PruneOptions>>, thinking = false): Block[] | undefined {
  return firstChanceFound(state, o, thinking)?.map((x) => x.block);
}

/** A first-chance candidate, with its round when it was read from one, and whether it is a stale result (chance 0). */
export interface FirstChance {
  readonly block: Block;
  readonly t: number;
  readonly r: number;
  readonly i: number;
  /** Its round in the state (the caller need not find it again). */
  readonly round: Round;
  /**
   * The visible result of a file-less call a write made stale, the newest source of nothing else: nothing a
   * later call targets is in it (its own chance is 0; a duplicate pointed at it may still carry one).
   */
  readonly stale: boolean;
  /**
   * A live result's candidate, made once per result (see {@link liveCandidate}): where the prune pass keeps what it
   * weighed of it (its memo, valid for this candidate's round), so the same payload found again after the next
   * write is not looked up by block. Undefined on other candidates.
   */
  readonly memo?: { weighed?: unknown };
}

/**
 * The live results (reuse.ts `LiveResult`) {@link firstChanceFound} leaves to its caller when asked to (`split`):
 * after every write the gate finds every visible stale result of a file-less call again, request after request (a
 * hundred and more late in a long session on a model that binds thinking, which holds nearly all of them; tens on one
 * that does not, which weighs them again). The prune pass keeps, per slot, where it found each one in the stream,
 * what removing it saves and its record, and re-reads only a slot whose result or stream block changed since
 * (through `resolve`).
 */
export interface LiveSlots {
  /** Slots of `seen` whose result passed the round rule, in no particular order (filled by firstChanceFound). */
  readonly slots: number[];
  /** The walk's live keys seen visible (set by firstChanceFound). */
  seen?: LiveSeen<LiveResult>;
  /** The candidate firstChanceFound makes of a live result, or undefined when it is none (set by firstChanceFound). */
  resolve?: (live: LiveResult) => FirstChance | undefined;
}

/**
 * {@link firstChanceCandidates} with each candidate's place and staleness (see {@link FirstChance}). `ordered` false:
 * in no particular order (the prune pass orders its candidates by stream position anyway). `split`: the live results
 * read from the walk's slots are left in it (see {@link LiveSlots}), not made candidates here.
 */
export function firstChanceFound(
  state: TimelineState,
  o: Readonly<Required<PruneOptions>>,
  thinking = false,
  ordered = true,
  split?: LiveSlots,
): FirstChance[] | undefined {
  if (!o.enabled) return [];
  if (!state.lastRender) return undefined;
  const prev = state.lastRender.sentThrough ?? state.lastRender;
  const rule = ruleOf(state, o, thinking);
  const turns = state.turns;
  // Rounds the previous request rendered (firstChance's prevRounds), relative to the session's round count: all
  // rounds of earlier turns, then round − 1 of its turn; `since` = rounds not rendered then.
  let since = -Math.max(0, prev.round - 1);
  if (prev.turn >= 1 && prev.turn <= turns.length) for (let t = turns.length; t >= prev.turn; t--) since += turns[t - 1]!.rounds.length;
  // A round passes when its ordinal ≥ prevRounds − keepRounds + 1, i.e. when at most `since + keepRounds − 1` rounds follow it.
  const maxAfter = since + o.keepRounds - 1;
  const found: FirstChance[] = [];
  const taken = new Set<BlockPath>();
  const hidden = hiddenSetOf(state);
  const collect = (t: number, round: Round): void => {
    const out: Block[] = [];
    roundCandidates(state, o, rule, t, round, out);
    for (let i = 0; i < out.length; i++) {
      if (taken.has(out[i]!.path)) continue;
      taken.add(out[i]!.path);
      found.push({ block: out[i]!, t, r: round.index, i: positionIn(round, out[i]!), round, stale: false });
    }
  };
  let after = 0;
  outer: for (let t = turns.length; t >= 1; t--) {
    const rounds = turns[t - 1]!.rounds;
    for (let r = rounds.length - 1; r >= 0; r--, after++) {
      if (after > maxAfter) break outer;
      if (roundOpen(rule, t, rounds[r]!)) collect(t, rounds[r]!);
    }
  }
  // Hidden payloads are no candidates: left out before their weighing (most of what a write made stale is). A path
  // the walk just found visible in this hidden set (a live key's result) is not looked up again: a miss reads
  // every level of the set, for each visible result of a file-less call after every write.
  const superseded = supersededFoundSince(state, since, (path, live) => live !== undefined || !hidden.has(path), o.minChars, taken);
  // The candidate a superseded path is (undefined: none), found as the walk left it.
  const one = (path: BlockPath, live: LiveResult | undefined): FirstChance | undefined => {
    const place = live?.place;
    // A live result's place, found when the walk first saw it visible: still this state's when its round is.
    if (place !== undefined && turns[place.turn - 1]?.rounds[place.roundNo - 1] === place.round) {
      if (!roundOpen(rule, place.turn, place.round)) return undefined;
      // Not added to `taken`: the paths the walk found are distinct, and `only` has read it already.
      return liveCandidate(live!, o, rule);
    }
    const loc = locOf(path);
    if (loc?.round === undefined) return undefined;
    const round = turns[loc.turn - 1]?.rounds[loc.round - 1];
    if (!round || !roundOpen(rule, loc.turn, round)) return undefined;
    const i = blockIndex(round).get(path);
    if (i === undefined) return undefined;
    const b = i < round.response.length ? round.response[i]! : round.results[i - round.response.length]!;
    // No hidden test (`only` passed this path against the same set), and the round's thinking rule read only for a
    // thinking block (the only kind it decides): each look-up reads cold objects, per payload a write made stale,
    // tens per request late in a long session.
    if (!prunableKind(o, b, isThinking(b) && thinkingPrunable(rule, loc.turn, round))) return undefined;
    return { block: b, t: loc.turn, r: round.index, i, round, stale: live?.simple === true };
  };
  const seen = superseded.seen;
  if (split) {
    split.seen = seen;
    split.resolve = (live) => one(live.path, live);
  }
  for (let k = 0; k < superseded.paths.length; k++) {
    const slot = superseded.slots[k]!;
    // Read from the slots (split): only the round rule, from the place's numbers (a live result is a tool result of
    // at least minChars, a prunable kind); the caller checks the rest against what it kept of the slot, or resolves it.
    if (split && slot >= 0 && seen.turns[slot]! >= 0) {
      if (roundOpenAt(rule, seen.turns[slot]!, seen.roundNos[slot]!)) split.slots.push(slot);
      continue;
    }
    const c = one(superseded.paths[k]!, superseded.live[k]);
    if (c) found.push(c);
  }
  if (ordered) found.sort((a, b) => a.t - b.t || a.r - b.r || a.i - b.i);
  return found;
}

/**
 * The candidate a live result is in its round (its place, checked by the caller to be the state's), or undefined
 * when its kind or size is not prunable. A result that is not thinking is judged by its block and minChars alone,
 * so it is remembered per live result (which never changes): after every write the gate finds every visible
 * stale result again (on a model that binds thinking, a hundred late in a long session), each read from its block.
 */
function liveCandidate(live: LiveResult, o: Readonly<Required<PruneOptions>>, rule: Rule): FirstChance | undefined {
  // Kept on the result (its `memo`), with the minChars it was judged with (undefined: not a bulky kind).
  const memo = live.memo;
  if (memo.minChars === o.minChars) return memo.candidate as FirstChance | undefined;
  const place = live.place!;
  const b = place.block;
  const thinking = isThinking(b);
  const candidate = prunableKind(o, b, thinking && thinkingPrunable(rule, place.turn, place.round))
    ? Object.freeze({ block: b, t: place.turn, r: place.round.index, i: place.index, round: place.round, stale: live.simple, memo: {} })
    : undefined;
  // Thinking is judged by the rule of the state too: not remembered.
  if (!thinking) {
    memo.candidate = candidate;
    memo.minChars = o.minChars;
  }
  return candidate;
}

const blockIndexes = new WeakMap<Round, ReadonlyMap<BlockPath, number>>();

/**
 * Where each path of a round first sits (the response's blocks, then the results): what finding it by path gave
 * (`response.find`, else `results.find`). Built once per round (rounds never change): the payloads a write made
 * stale are found in their rounds again after every write, late in a long session tens per request.
 */
function blockIndex(round: Round): ReadonlyMap<BlockPath, number> {
  let index = blockIndexes.get(round);
  if (!index) {
    const m = new Map<BlockPath, number>();
    const n = round.response.length;
    for (let i = 0; i < n; i++) if (!m.has(round.response[i]!.path)) m.set(round.response[i]!.path, i);
    for (let i = 0; i < round.results.length; i++) if (!m.has(round.results[i]!.path)) m.set(round.results[i]!.path, n + i);
    blockIndexes.set(round, (index = m));
  }
  return index;
}

/** Where a block sits in its round: the response's blocks, then the results. */
function positionIn(round: Round, b: Block): number {
  const i = round.response.indexOf(b);
  return i >= 0 ? i : round.response.length + round.results.indexOf(b);
}

/**
 * The candidates in the rounds from the one holding `path` to the end (timeline order), read from the end: what
 * follows a block that a warm batch re-writes from. Undefined when `path` is not a round's block (the caller
 * scans every round).
 */
export function candidatesFrom(state: TimelineState, o: Readonly<Required<PruneOptions>>, thinking: boolean, path: BlockPath): Block[] | undefined {
  const loc = parseTimelinePath(path);
  if (loc?.round === undefined || loc.turn > state.turns.length) return undefined;
  if (!o.enabled) return [];
  const rule = ruleOf(state, o, thinking);
  const rounds: { t: number; round: Round }[] = [];
  outer: for (let t = state.turns.length; t >= loc.turn; t--) {
    const turn = state.turns[t - 1]!;
    for (let r = turn.rounds.length - 1; r >= 0; r--) {
      const round = turn.rounds[r]!;
      if (t === loc.turn && round.index < loc.round) break outer;
      rounds.push({ t, round });
    }
  }
  const out: Block[] = [];
  for (let k = rounds.length - 1; k >= 0; k--)
    if (roundOpen(rule, rounds[k]!.t, rounds[k]!.round)) roundCandidates(state, o, rule, rounds[k]!.t, rounds[k]!.round, out);
  return out;
}

/** Where each path was last found after its turn's (or round's) start by {@link indexOfPath}: a hint, checked on use. */
const offsets = new Map<BlockPath, number>();

/**
 * Index of the block with path `path` in a stable stream (the last one with it, like a map of the stream by path),
 * or undefined: read from the layout (where its turn, or in the last turn its round, starts), else scanned.
 */
export function indexOfPath(stream: readonly StreamBlock[], path: BlockPath): number | undefined {
  const layout = streamLayout(stream);
  const loc = layout ? locOf(path) : undefined;
  if (layout && loc && layout.length === stream.length) {
    const t = loc.turn - 1;
    let start = t <= layout.lastTurn ? layout.turnStarts[t] : undefined;
    const end = t < layout.lastTurn ? layout.turnStarts[t + 1] : layout.length;
    if (t === layout.lastTurn && loc.round !== undefined) {
      const k = loc.round - 1 - layout.lastRounds.from;
      if (k >= 0 && k < layout.lastRounds.starts.length) start = layout.lastRounds.starts[k];
    }
    if (start !== undefined && end !== undefined && start >= 0 && end <= stream.length) {
      // The gate looks up the same visible payloads request after request (the stale ones it keeps weighing): where
      // the path sat after its start last time is checked first, so the turn's blocks are not read one by one
      // again. A stream has a path at most once (paths are unique in a timeline), so a hit is what the scan finds.
      const hint = offsets.get(path);
      if (hint !== undefined && start + hint < end && stream[start + hint]!.path === path) return start + hint;
      for (let i = start; i < end; i++)
        if (stream[i]!.path === path) {
          if (offsets.size >= LOCS) offsets.clear();
          offsets.set(path, i - start);
          return i;
        }
    }
  }
  for (let i = stream.length - 1; i >= 0; i--) if (stream[i]!.path === path) return i;
  return undefined;
}

const thinks = (round: Round): boolean => round.response.some(isThinking);

/** Responses the thinking rate is read from: the newest ones (a session's habit drifts; the walk stays O(1)). */
const THINKING_WINDOW = 8;

/**
 * Whether the next response is too likely to think for the newest payloads to be sent uncached, on a model that
 * binds thinking. Sent uncached, a payload costs 1× now, plus a 1.25× write next request if the response in between
 * thinks (the prune is deferred); written now, 1.25×, plus a 0.1× read in that case. Uncached wins while
 * P(think) < (write − input) ÷ (write − read): 0.22 at the 5-minute prices, 0.53 when the caller gives ④ (`ttl.tail`)
 * the hour (a 2× write). P is the rate over the newest
 * {@link THINKING_WINDOW} responses, add-half smoothed ((k + ½) ÷ (n + 1): 0.5 with no history, so the first rounds
 * write); a response that thinks right before is taken to say the next one will (they come in runs).
 */
function thinkingLikely(state: TimelineState, prices: ModelProfile['prices'], hour: boolean): boolean {
  let n = 0;
  let k = 0;
  for (let t = state.turns.length; t >= 1 && n < THINKING_WINDOW; t--) {
    const rounds = state.turns[t - 1]!.rounds;
    for (let r = rounds.length - 1; r >= 0 && n < THINKING_WINDOW; r--) {
      const yes = thinks(rounds[r]!);
      if (yes && n === 0) return true;
      n++;
      if (yes) k++;
    }
  }
  const write = hour ? prices.cacheWrite1h : prices.cacheWrite5m;
  const breakEven = (write - prices.input) / (write - prices.cacheRead);
  return (k + 0.5) / (n + 1) >= breakEven;
}

/**
 * Under `economy` with `keepRounds: 1`, the newest round's bulky payloads the
 * re-use gate will not keep are pruned by the very next request, so they are never read from cache: ④ stops
 * before the first of them and they are sent uncached (1× instead of a 1.25×
 * write nobody reads). Returns that stream index, or undefined.
 */
export function doomedFrom(stable: readonly StreamBlock[], state: TimelineState, ctx: PassContext): number | undefined {
  const options = ctx.options;
  if (options.policy !== 'economy') return undefined;
  const o = options.prune;
  if (!o.enabled || o.keepRounds > 1 || o.keepTurns > 0) return undefined;
  const turn = state.turns.at(-1);
  const round = turn?.rounds.at(-1);
  if (!turn || !round) return undefined;
  // A model that binds thinking: the next request defers the prune when the response in between thinks (it would
  // invalidate that thinking), and the payload stays to be read: written then, after this request sent it uncached.
  if (ctx.profile.bindsThinking && thinkingLikely(state, ctx.profile.prices, ctx.options.ttl?.[4] === '1h')) return undefined;
  // The gate's own verdict for the next request (warm, the same remaining): what it keeps is read again.
  const weigh = reuseWeigher(state, stable, ctx, true, expectedRemaining(state, options.expectedRemaining));
  for (let i = stable.length - 1; i >= 0; i--) {
    const b = stable[i]!;
    if (b.turn !== turn.index || b.round !== round.index) {
      // Scan the newest round forwards for its first doomed payload: bulky, and not kept by the re-use gate.
      // A payload the gate keeps is read again, so it must not fall behind ④: ④ stops before the first
      // doomed payload only when nothing kept follows it (nor shares its tool_use / tool_result run).
      const source = new Set([...round.response, ...round.results].filter((x) => sizeOf(x) >= o.minChars).map((x) => x.path));
      const bulkyAt = (j: number): boolean => {
        const c = stable[j]!;
        const type = (c.param as { type?: string }).type;
        return (type === 'tool_result' || type === 'tool_use' || type === 'text') && !c.hidden && c.path !== 'notices/prune' && source.has(c.path);
      };
      const keptAt = (j: number): boolean => o.reuse && bulkyAt(j) && weigh(stable[j]!.path, stable[j]!.tokens)?.keep === true;
      let first: number | undefined;
      for (let j = i + 1; j < stable.length; j++)
        if (bulkyAt(j) && !keptAt(j)) {
          first = j;
          break;
        }
      if (first === undefined) return undefined;
      const from = runStart(stable, first);
      for (let j = from; j < stable.length; j++) if (keptAt(j)) return undefined;
      // The first prune adds the one-time notice: the next request's gate prunes them only if they save more
      // than it costs (prune.ts), so they are doomed only then; otherwise they are read again and worth writing.
      if (!state.pruneNotice && !worthTheNotice(stable, from, bulkyAt, state, ctx, weigh)) return undefined;
      return from;
    }
  }
  return undefined;
}

/**
 * Whether pruning the bulky payloads from `from` on, by the next request (warm, after every entry: no
 * re-write), saves more than their expected recalls plus the one-time notice and, on a model that strips
 * earlier thinking, what the notice strips (the next request's batch rule in prune.ts, for a state that has
 * no notice yet).
 */
function worthTheNotice(
  stable: readonly StreamBlock[],
  from: number,
  bulkyAt: (j: number) => boolean,
  state: TimelineState,
  ctx: PassContext,
  weigh: ReturnType<typeof reuseWeigher>,
): boolean {
  const remaining = expectedRemaining(state, ctx.options.expectedRemaining);
  const prices = ctx.profile.prices;
  let net = -noticePrice(ctx.profile, state, ctx.tokens.tokens({ type: 'text', text: PRUNE_NOTICE }), remaining);
  // The gate counts the strip too: left out, a payload was sent uncached that the next request kept (judge-2220).
  net -= noticeStripPrice(ctx.profile, state, stable, remaining)?.(from) ?? 0;
  for (let j = from; j < stable.length; j++) {
    if (!bulkyAt(j)) continue;
    const b = stable[j]!;
    const removed = Math.max(0, b.tokens - ctx.tokens.tokens({ type: 'text', text: hiddenRecord(state, b.path, 'economy').note }));
    net += (removed * prices.cacheRead * (1 + remaining)) / 1e6 - (weigh(b.path, removed)?.expectedRecall ?? 0);
  }
  return net > 0;
}

/**
 * The first block of the tool_use / tool_result run that contains index j. A
 * run counts as one lookback position, and later requests find an entry only at
 * a run's end, so a marker must never stop inside one.
 */
function runStart(stable: readonly StreamBlock[], j: number): number {
  const type = (stable[j]!.param as { type?: string }).type;
  if (type !== 'tool_use' && type !== 'tool_result') return j;
  while (j > 0 && stable[j - 1]!.role === stable[j]!.role && (stable[j - 1]!.param as { type?: string }).type === type) j--;
  return j;
}
