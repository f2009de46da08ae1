/**
 * The projection of a timeline state onto the block stream, and where that
 * stream stands against the provider's cache. Every pass reads the state
 * through here; none builds a stream of its own.
 *
 * - {@link stableStream}: envelope, summaries, then every visible turn, each
 *   hidden payload replaced by its note (the hidden replacements). Pure and
 *   incremental: blocks are memoized per source block, so an unchanged block
 *   is the same object in every render (cheap identity diffs, memoized token
 *   counts), and a state that only appended reuses the previous stream.
 * - {@link tailStream}: the volatile tail's blocks.
 * - {@link positions} (the API's lookback positions), {@link prefixTokens},
 *   {@link firstChange} against the previous render, and {@link cacheStanding}:
 *   the stream, its first change and the cache entries still usable, computed
 *   once per state and context.
 * - {@link streamLayout}: the same figures of a stable stream (positions,
 *   cumulative tokens, where the envelope and each turn start) kept with it and
 *   extended from the previous render's, so a render that only appended does
 *   work in what it appended, not in the length of the session. The blocks
 *   and columns live in a store written in place (stream-store.ts): a render
 *   that changes a block (an economy prune in the newest rounds) rewrites it
 *   from there, so it too costs what it changes.
 */
import { RecentMemo } from '../internal/recent.js';
import { hiddenChanges } from './hidden-set.js';
import { type HiddenSet, hiddenSetOf } from '../timeline/hidden.js';
import type { ContentBlockParam, TextBlockParam } from '../providers/anthropic-types.js';
import type { BlockTokenCache } from '../tokens/counter.js';
import type {
  Block,
  CacheEntryRecord,
  HiddenRecord,
  LastRender,
  OtherView,
  StreamBlock,
  StreamKind,
  StreamRole,
  Summary,
  TimelineState,
  ToolBlock,
} from '../timeline/types.js';
import type { PassContext } from './context.js';
import { sharedRounds, sharedTurns } from '../timeline/edit.js';
import { parseTimelinePath } from '../timeline/paths.js';
import { replacementParam } from './notes.js';
import { blockAt, type Epoch, intactBelow, isIntact, materializeBlocks, materializeColumns, newStore, prepareWrite, type Store } from './stream-store.js';

// STREAM

// Memoized per token cache, so two counters never share token figures.
const memos = new WeakMap<BlockTokenCache, { plain: WeakMap<object, StreamBlock>; replaced: WeakMap<HiddenRecord, StreamBlock> }>();

function memo(ctx: PassContext) {
  let m = memos.get(ctx.tokens);
  if (!m) memos.set(ctx.tokens, (m = { plain: new WeakMap(), replaced: new WeakMap() }));
  return m;
}

/** Whether the API accepts a cache marker on this payload. */
export function isMarkable(param: StreamBlock['param']): boolean {
  const type = (param as { type?: string }).type;
  // SDK 1.14's request types give these no `cache_control` (the beta `fallback` and `mcp_tool_listing` blocks too):
  // the API refuses the extra field, as it does on thinking.
  if (type === 'thinking' || type === 'redacted_thinking' || type === 'fallback' || type === 'mcp_tool_listing') return false;
  if (type === 'text') return (param as TextBlockParam).text.length > 0;
  return true;
}

function make(
  source: object,
  path: string,
  id: string,
  role: StreamRole,
  kind: StreamKind,
  param: StreamBlock['param'],
  ctx: PassContext,
  where: { turn?: number; round?: number; segment?: StreamBlock['segment'] } = {},
): StreamBlock {
  const { plain } = memo(ctx);
  const hit = plain.get(source);
  if (hit) return hit;
  const block: StreamBlock = Object.freeze({
    path,
    id,
    role,
    kind,
    segment: where.segment ?? (role === 'tools' || role === 'system' ? 'envelope' : 'timeline'),
    param,
    tokens: ctx.tokens.tokens(param),
    markable: isMarkable(param),
    ...(where.turn === undefined ? {} : { turn: where.turn }),
    ...(where.round === undefined ? {} : { round: where.round }),
  });
  plain.set(source, block);
  return block;
}

function fromBlock(
  block: Block,
  role: StreamRole,
  kind: StreamKind,
  ctx: PassContext,
  hidden: HiddenRecord | undefined,
  where: { turn?: number; round?: number; segment?: StreamBlock['segment'] },
): StreamBlock {
  if (!hidden) return make(block, block.path, block.id, role, kind, block.param, ctx, where);
  const { replaced } = memo(ctx);
  const hit = replaced.get(hidden);
  if (hit) return hit;
  const param = replacementParam(block.param, hidden.note);
  const out: StreamBlock = Object.freeze({
    ...make(block, block.path, block.id, role, kind, block.param, ctx, where),
    param,
    tokens: ctx.tokens.tokens(param),
    hidden: hidden.reason,
    markable: isMarkable(param),
  });
  replaced.set(hidden, out);
  return out;
}

/** The envelope's blocks: tools, instructions, skill catalog. */
export function envelopeStream(state: TimelineState, ctx: PassContext): StreamBlock[] {
  const out: StreamBlock[] = state.envelope.tools.map((t: ToolBlock) => make(t, t.path, t.id, 'tools', 'tool', t.tool, ctx));
  for (const b of state.envelope.instructions) out.push(fromBlock(b, 'system', 'instruction', ctx, undefined, {}));
  const skills = state.envelope.skillCatalog;
  if (skills) out.push(fromBlock(skills, 'system', 'skills', ctx, undefined, {}));
  return out;
}

function summaryStream(summary: Summary, ctx: PassContext): StreamBlock {
  const param: ContentBlockParam = { type: 'text', text: summary.text };
  return make(summary, summary.path, summary.path, 'user', 'summary', param, ctx);
}

/** Where the visible timeline starts: turn (1-based) and, when a summary ended inside it, the first visible round. */
export function visibleFrom(state: TimelineState): { turn: number; round: number } {
  const last = state.summaries.at(-1);
  if (!last) return { turn: 1, round: 0 };
  return last.throughRound === undefined ? { turn: last.toTurn + 1, round: 0 } : { turn: last.toTurn, round: last.throughRound + 1 };
}

/** Whether a block of turn `turn` / round `round` (undefined: the user message) is covered by a summary. */
export function isCompacted(state: TimelineState, turn: number, round: number | undefined): boolean {
  return coveredFrom(visibleFrom(state), turn, round);
}

/** {@link isCompacted} given where the visible timeline starts ({@link visibleFrom}), for a caller asking per round. */
export function coveredFrom(from: { readonly turn: number; readonly round: number }, turn: number, round: number | undefined): boolean {
  if (turn !== from.turn) return turn < from.turn;
  return from.round > 0 && (round === undefined || round < from.round);
}

/** A response without its pruned thinking blocks (the same array when it has none). */
function prunedThinking(response: readonly Block[], hidden: HiddenSet): readonly Block[] {
  for (const b of response) if (isThinking(b) && hidden.has(b.path)) return response.filter((x) => !(isThinking(x) && hidden.has(x.path)));
  return response;
}

/** Whether this turn's thinking blocks are dropped (older models strip them once a later user turn exists). */
function stripsThinking(state: TimelineState, turnIndex: number, ctx: PassContext): boolean {
  return !ctx.profile.keepsThinking && turnIndex < state.turns.length;
}

/** How a stable stream was built: what it came from, and where each turn starts in it. */
interface BuildInfo {
  readonly state: Pick<TimelineState, 'envelope' | 'summaries' | 'turns'> & { readonly hidden: HiddenSet };
  readonly tokens: PassContext['tokens'];
  readonly keepsThinking: boolean;
  /**
   * turnStarts[t] = stream index of the first block of turns[t] (0-based), for visible turns. Shared by the builds
   * of an epoch that appended to each other: it may hold later builds' turns past this build's (read only this
   * build's turns); a build that rewrites the store starts an array of its own.
   */
  readonly turnStarts: readonly number[];
  /** The previous render's stable stream it was compared with, and the first index where they differ. */
  /** This build's number, and the number of the previous render's build it was compared with (not the
   *  stream itself: holding it would chain every stream of the session, each holding the one before). */
  readonly id: number;
  readonly against: number | undefined;
  readonly change: number;
  /**
   * The layout as built. Its columns are views of the store's: once a later build rewrote the store below this
   * build's length they no longer hold this build's figures, so read it through {@link layoutOf} (the other
   * fields are this build's own and may be read directly).
   */
  readonly layout: StreamLayout;
  /**
   * Where the blocks and the layout's columns are: a store shared by the builds of a session, written in place
   * (stream-store.ts), with the epoch this build was made in. A build that extends the newest one appends to the
   * store; one that differs below the newest length (a prune, a hide, a branch) rewrites it from its first
   * change, saving what it overwrites. The store's `blocks` may therefore hold more or other blocks than this
   * build's: read them through {@link blocksOf} or {@link blockAt}.
   */
  readonly store: Store;
  readonly epoch: Epoch;
  /** Blocks of this build (the layout's length). */
  readonly length: number;
  /** A copy of exactly `length` blocks, made when the store no longer held exactly them or for the public API. */
  copy?: readonly StreamBlock[];
  /** The layout with columns of its own, made once a later build rewrote the store below this build's length. */
  detached?: StreamLayout;
}

/**
 * Where the rounds of a stream's last turn start: starts[j] = stream index of
 * the first block of rounds[from + j] (`from`: the first round projected, > 0
 * when a summary covers the turn's first rounds). Shared along a chain like
 * `turnStarts`: a build that continues the turn writes its new rounds' starts
 * in place (the rounds before them start where they did), so the array may
 * hold later builds' rounds past this build's (read only this build's rounds).
 */
export interface RoundStarts {
  readonly starts: readonly number[];
  readonly from: number;
}

/** The build each array holds now: for a store's blocks, its newest build (whose length is the array's). */
const builds = new WeakMap<readonly StreamBlock[], BuildInfo>();
let builtSoFar = 0;
/**
 * The build of each of the last few states projected (the passes of one render ask for the same state several
 * times). Not a WeakMap: V8's scavenger keeps every WeakMap value alive whatever its key, so each state's build
 * (and through it the state's turns and, in an open turn, its rounds array, O(session) per request) survived
 * collections and was promoted instead of dying young (see internal/recent.ts).
 */
const byState = new RecentMemo<TimelineState, BuildInfo>(8);
/** The build of each LastRender the renderer made (its public `stream` is a copy made when read). */
const lastBuilds = new WeakMap<LastRender, BuildInfo>();

/** A build's blocks as an array of its own length: the store's while it is the newest build, else a copy. */
function blocksOf(info: BuildInfo): readonly StreamBlock[] {
  if (builds.get(info.store.blocks) === info) return info.store.blocks;
  return copyOf(info);
}

/** A build's layout: as built while the store holds its columns, else with columns of its own (made once). */
function layoutOf(info: BuildInfo): StreamLayout {
  if (isIntact(info)) return info.layout;
  if (!info.detached) info.detached = Object.freeze({ ...info.layout, ...materializeColumns(info) });
  return info.detached;
}

/**
 * The build's blocks as an array of their own (kept). Frozen: it is what `Rendered.stream` (without a tail) and
 * `lastRender.stream` hand out, and also what a later render of the same state reuses, so a caller that writes to
 * it past `readonly` would change what a retry sends.
 */
function copyOf(info: BuildInfo): readonly StreamBlock[] {
  if (!info.copy) {
    info.copy = Object.freeze(isIntact(info) ? info.store.blocks.slice(0, info.length) : materializeBlocks(info));
    builds.set(info.copy, info);
  }
  return info.copy;
}

/**
 * The previous render's stable stream: its length, its build when the renderer made it, and its blocks as an
 * array when it is one of its own (a LastRender made elsewhere); else they are read from the build ({@link previousAt}).
 */
interface Previous {
  readonly length: number;
  readonly info: BuildInfo | undefined;
  readonly blocks?: readonly StreamBlock[];
}

function previousOf(last: LastRender | undefined): Previous | undefined {
  if (!last) return undefined;
  const info = lastBuilds.get(last);
  if (info) return { length: info.length, info };
  return { blocks: last.stream, length: last.stream.length, info: builds.get(last.stream) };
}

/** Block `i` (below its length) of the previous render's stable stream. */
function previousAt(previous: Previous, i: number): StreamBlock {
  return previous.blocks ? previous.blocks[i]! : blockAt(previous.info!, i);
}

/**
 * The LastRender fields with `stream` = the stable stream `stable` (built
 * here): a copy of its blocks made when `stream` is read, since the array the
 * renderer keeps is the store's, which later renders extend or rewrite.
 */
export function withStableStream<T extends { stream: readonly StreamBlock[] }>(last: T, stable: readonly StreamBlock[]): T {
  const info = builds.get(stable);
  if (!info || info.length !== stable.length) return last;
  lastBuilds.set(last as unknown as LastRender, info);
  Object.defineProperty(last, 'stream', STABLE_STREAM);
  return last;
}

/** The `stream` accessor of a LastRender made here: one getter for all (no closure per render). */
const STABLE_STREAM: PropertyDescriptor = Object.freeze({
  enumerable: true,
  configurable: true,
  get(this: LastRender): readonly StreamBlock[] {
    return copyOf(lastBuilds.get(this)!);
  },
});

/** Blocks of the previous render's stable stream (without building its public copy). */
export function previousLength(last: LastRender): number {
  return previousOf(last)!.length;
}

/** Block `i` (below {@link previousLength}) of the previous render's stable stream. */
export function previousBlock(last: LastRender, i: number): StreamBlock {
  return previousAt(previousOf(last)!, i);
}

/**
 * Builds the stable stream: envelope, summaries, then every visible turn with
 * hidden payloads replaced by their notes.
 *
 * Incremental: when the envelope, the summaries and the hidden set are the
 * ones the previous render used, the previous stream is reused up to the first
 * turn that changed (appending a round changes only the last turn), so the
 * work grows with what changed, not with the history. Memoized per state; the
 * returned array is shared and must not be mutated.
 */
export function stableStream(state: TimelineState, ctx: PassContext): readonly StreamBlock[] {
  const memoInfo = byState.get(state);
  if (memoInfo && memoInfo.tokens === ctx.tokens && memoInfo.keepsThinking === ctx.profile.keepsThinking) return blocksOf(memoInfo);

  const from = visibleFrom(state);
  const previous = previousOf(state.lastRender);
  const prevLength = previous?.length ?? 0;
  const info = previous?.info;
  // The blocks projected here: the whole stream, or what follows the `reused` blocks taken over from the previous one.
  let out: StreamBlock[] = [];
  let t = from.turn - 1;
  let reused = 0;
  // A hide or prune changes the hidden set: the turns (and, in the turn it touches first, the rounds) before the
  // first block it touches project as before.
  const hidden = hiddenSetOf(state);
  const hiddenFrom = info ? firstHidden(info.state.hidden, hidden) : NOTHING_REUSED;
  // Round `resume` (0-based) of turns[t] is where the projection goes on when it continues a turn (the open turn of
  // a tool loop: appending a round changes only its last rounds), else 0.
  let resume = 0;
  if (
    info &&
    info.state.envelope === state.envelope &&
    info.state.summaries === state.summaries &&
    hiddenFrom.turn >= 0 &&
    info.tokens === ctx.tokens &&
    info.keepsThinking === ctx.profile.keepsThinking
  ) {
    // The first turn from t on that differs: through the appends' records (edit.ts), not compared turn by turn.
    let k = sharedTurns(state.turns, info.state.turns, Math.min(state.turns.length, info.state.turns.length, hiddenFrom.turn), t);
    // Older models drop thinking once a later turn exists: the previous last turn renders anew.
    if (!ctx.profile.keepsThinking && state.turns.length !== info.state.turns.length) k = Math.min(k, info.state.turns.length - 1);
    k = Math.max(k, t);
    const start = k < info.state.turns.length ? info.turnStarts[k] : prevLength;
    if (start !== undefined && start > 0) {
      t = k;
      reused = start;
      // The same last turn in both, changed: its rounds before the first one that differs project as before.
      const r = sameRounds(state, info, k, hiddenFrom);
      if (r > 0) {
        resume = r;
        // Every round of the previous build's last turn the same: the new rounds start where its stream ended.
        reused = r === info.state.turns[k]!.rounds.length ? info.length : info.layout.lastRounds.starts[r - info.layout.lastRounds.from]!;
      }
    }
  }
  if (reused === 0) {
    out = envelopeStream(state, ctx);
    const summaries = state.summaries;
    for (let s = 0; s < summaries.length; s++) out.push(summaryStream(summaries[s]!, ctx));
    t = from.turn - 1;
  }
  // starts[i] = stream index of the first block of turns[firstTurn + i].
  const firstTurn = t;
  const lastTurn = state.turns.length - 1;
  const starts: number[] = [];
  // rounds[r] = stream index of the first block of the last turn's rounds[r], for r ≥ `resume` (before it: the
  // previous build's, taken over below).
  const rounds: number[] = [];
  let roundsFrom = -1;
  for (; t < state.turns.length; t++) {
    const turn = state.turns[t]!;
    const resumed = t === firstTurn && resume > 0;
    starts.push(resumed ? info!.turnStarts[t]! : reused + out.length);
    const at = { turn: turn.index };
    const partial = turn.index === from.turn && from.round > 0;
    if (!partial && !resumed) {
      const user = turn.user;
      for (let i = 0; i < user.length; i++) {
        const b = user[i]!;
        out.push(fromBlock(b, 'user', b.path === 'notices/prune' ? 'notice' : 'user', ctx, hidden.get(b.path), at));
      }
    }
    const strip = stripsThinking(state, turn.index, ctx);
    const turnRounds = turn.rounds;
    for (let r = resumed ? resume : partial ? from.round - 1 : 0; r < turnRounds.length; r++) {
      const round = turnRounds[r]!;
      if (t === lastTurn) {
        if (roundsFrom < 0) roundsFrom = r;
        rounds.push(reused + out.length);
      }
      const where = { turn: turn.index, round: round.index };
      // Economy leaves out the thinking of earlier turns it pruned (prune-rule.ts): omitted as the API allows, never altered.
      const kept = strip ? round.response.filter((b) => !isThinking(b)) : prunedThinking(round.response, hidden);
      // A response that is only thinking keeps it: an empty assistant message is invalid.
      const response = kept.length > 0 ? kept : round.response;
      for (let i = 0; i < response.length; i++) {
        const b = response[i]!;
        out.push(fromBlock(b, 'assistant', b.param.type === 'tool_use' ? 'call' : 'response', ctx, hidden.get(b.path), where));
      }
      const results = round.results;
      for (let i = 0; i < results.length; i++) {
        const b = results[i]!;
        const kind = b.param.type === 'tool_result' ? 'result' : b.path === 'notices/prune' ? 'notice' : 'injected';
        out.push(fromBlock(b, 'user', kind, ctx, hidden.get(b.path), where));
      }
    }
  }
  // The first index where the stream differs from the previous render's: everything before the
  // reused slice is the same by construction, so only the re-projected part is compared.
  let change = 0;
  if (previous) {
    const n = Math.min(reused + out.length, prevLength);
    change = Math.min(reused, n);
    while (change < n && out[change - reused] === previousAt(previous, change)) change++;
  }
  // Where the blocks go: into the previous build's store when it still holds that build's blocks up to the
  // change (stream-store.ts): appended when the change is the store's newest length (a render that only
  // appended; the epoch goes on), else written from the change after saving what they overwrite (a prune or hide
  // in the newest rounds: it costs what it changes, not the session's length). Otherwise a new store: the whole
  // stream projected here, or the previous blocks copied (a branch back past a later change, a stream made elsewhere).
  // The turn starts of an epoch share one array, written in place (entries below `firstTurn` never change while
  // builds only append, and each reader reads only its own turns); a rewrite starts the new epoch's own.
  const length = reused + out.length;
  let store: Store;
  let writeFrom = 0;
  let appended = false;
  let turnStarts: number[] = [];
  if (reused > 0 && info && change <= intactBelow(info)) {
    store = info.store;
    writeFrom = change;
    // Only a build still intact can be extended on its chain: an older one whose epoch ended may have the newest
    // length again (a later build rewrote the store to it), but its chain and arrays were extended past it since.
    appended = change === store.used && isIntact(info);
    prepareWrite(store, change, length);
    const blocks = store.blocks;
    for (let i = change; i < length; i++) blocks[i] = out[i - reused]!;
    if (blocks.length > length) blocks.length = length;
    turnStarts = sharedStarts(info.turnStarts, firstTurn, starts);
  } else if (reused > 0) {
    // One array of the new length (the blocks before `change` are the previous ones).
    const prev = previous!.blocks ?? blocksOf(info!);
    const blocks = prev.slice(0, Math.min(length, prevLength));
    for (let i = change; i < length; i++) blocks[i] = out[i - reused]!;
    store = newStore(blocks);
    writeFrom = change;
    turnStarts = sharedStarts(info!.turnStarts, firstTurn, starts);
  } else {
    store = newStore(out);
    writeFrom = previous && info ? Math.min(change, info.length) : 0;
  }
  const stream = store.blocks;
  for (let i = 0; i < starts.length; i++) turnStarts[firstTurn + i] = starts[i]!;
  // The last turn's round starts go the same way (relative to `roundsFrom`, the first round projected in it).
  let lastRounds: RoundStarts;
  if (resume > 0) {
    const base = info!.layout.lastRounds;
    const shared = sharedStarts(base.starts, resume - base.from, rounds);
    for (let i = 0; i < rounds.length; i++) shared[resume - base.from + i] = rounds[i]!;
    lastRounds = shared === base.starts ? base : { starts: shared, from: base.from };
  } else if (reused > 0 && firstTurn > lastTurn && info!.layout.lastTurn === lastTurn) lastRounds = info!.layout.lastRounds;
  else lastRounds = { starts: rounds, from: Math.max(0, roundsFrom) };
  const base = info && writeFrom > 0 ? (store === info.store ? info.layout : layoutOf(info)) : undefined;
  const layout = extendLayout(store, writeFrom, appended, turnStarts, lastTurn, lastRounds, base);
  // Only the pieces compared next time: holding the state itself would chain every earlier render.
  const source = { envelope: state.envelope, summaries: state.summaries, hidden, turns: state.turns };
  const built: BuildInfo = {
    state: source,
    tokens: ctx.tokens,
    keepsThinking: ctx.profile.keepsThinking,
    turnStarts,
    id: ++builtSoFar,
    against: info?.id,
    change,
    layout,
    store,
    epoch: store.epoch,
    length: stream.length,
  };
  builds.set(stream, built);
  byState.set(state, built);
  return stream;
}

/**
 * The array of starts (turn or round starts) a build writes `values` into from index `at`: the previous build's
 * own when no entry it holds changes (the build only appends past it, or writes what is there: a prune or hide in
 * the newest rounds changes blocks, not where rounds and turns start), else a copy of its first `at` entries.
 * Every build reads only its own turns' and rounds' entries, and no entry of a shared array ever changes, so each
 * reads what it wrote. A rewrite copied the array every time: O(turns) or, in a long open turn, O(rounds) on most
 * economy requests (and the copy grew again as it was written past its end).
 */
function sharedStarts(starts: readonly number[], at: number, values: readonly number[]): number[] {
  const n = Math.min(values.length, starts.length - at);
  for (let i = 0; i < n; i++) if (starts[at + i] !== values[i]) return starts.slice(0, at);
  return starts as number[];
}

/** Where a hidden set first differs from another: turn (0-based) and, in that turn, round (0-based; -1: its user message). */
interface HiddenFrom {
  readonly turn: number;
  readonly round: number;
}

const NOTHING_REUSED: HiddenFrom = Object.freeze({ turn: -1, round: -1 });
const NO_HIDDEN_CHANGE: HiddenFrom = Object.freeze({ turn: Number.POSITIVE_INFINITY, round: Number.POSITIVE_INFINITY });

/**
 * The first place (turn, then round) holding a path whose hidden record
 * differs between two hidden sets (added, removed or replaced); Infinity when
 * they are the same, turn -1 when a differing path is not a turn's (then
 * nothing is reused).
 */
function firstHidden(before: HiddenSet, after: HiddenSet): HiddenFrom {
  if (before === after) return NO_HIDDEN_CHANGE;
  let turn = Number.POSITIVE_INFINITY;
  let round = Number.POSITIVE_INFINITY;
  const differs = (path: string): boolean => {
    const loc = parseTimelinePath(path);
    if (!loc) return false;
    const t = loc.turn - 1;
    const r = loc.round === undefined ? -1 : loc.round - 1;
    if (t < turn) {
      turn = t;
      round = r;
    } else if (t === turn && r < round) round = r;
    return true;
  };
  // A set the prune pass made from `before` (hidden-set.ts): only the paths it added or replaced differ.
  const changed = hiddenChanges(before, after);
  if (changed) {
    for (const path of changed) if (before.get(path) !== after.get(path) && !differs(path)) return NOTHING_REUSED;
    return { turn, round };
  }
  for (const path of after.keys()) if (before.get(path) !== after.get(path) && !differs(path)) return NOTHING_REUSED;
  for (const path of before.keys()) if (!after.has(path) && !differs(path)) return NOTHING_REUSED;
  return { turn, round };
}

/**
 * How many rounds of turn `k` (0-based) project as in the build `info` when it is the last turn of both states
 * and changed since: its rounds before the first one that is a different object, or that the hidden set changed
 * in (0 when nothing of the turn can be taken over).
 */
function sameRounds(state: TimelineState, info: BuildInfo, k: number, hiddenFrom: HiddenFrom): number {
  const before = info.state.turns;
  if (k !== state.turns.length - 1 || k !== before.length - 1 || info.layout.lastTurn !== k) return 0;
  const a = state.turns[k]!;
  const b = before[k]!;
  if (a.user !== b.user || a.index !== b.index) return 0;
  const known = info.layout.lastRounds;
  let limit = Math.min(a.rounds.length, b.rounds.length, known.from + known.starts.length);
  if (hiddenFrom.turn === k) limit = Math.min(limit, hiddenFrom.round);
  if (known.from >= limit) return 0;
  const r = sharedRounds(a.rounds, b.rounds, limit);
  return r > known.from ? r : 0;
}

/** Whether a block is a thinking or redacted-thinking block. */
export function isThinking(b: Block): boolean {
  return b.param.type === 'thinking' || b.param.type === 'redacted_thinking';
}

/** The tail's blocks (never memoized across renders beyond the block objects themselves). */
export function tailStream(state: TimelineState, ctx: PassContext): StreamBlock[] {
  return state.tail.map((b) => make(b, b.path, b.id, 'user', 'tail', b.param, ctx, { segment: 'tail' }));
}

// LAYOUT

/**
 * The figures every pass and the mapper read about a stable stream besides its
 * blocks: lookback positions, cumulative tokens, where the envelope ends and
 * each turn starts. Built with the stream and kept with it (never mutated):
 * read them through {@link streamLayout}.
 */
export interface StreamLayout {
  /** Blocks it describes: the stable stream's length. */
  readonly length: number;
  /** Lookback position of each block (see {@link positions}). Shared: do not write. */
  readonly positions: Int32Array;
  /** prefix[i] = tokens of blocks 0..i (see {@link prefixTokens}). Shared: do not write. */
  readonly prefix: Float64Array;
  /** Index of the last envelope block (-1 when there is none), and of the last tool definition. */
  readonly envelopeEnd: number;
  readonly lastTool: number;
  /**
   * turnStarts[t] = index of the first block of turns[t] (0-based), for visible turns. Shared along the chain:
   * entries past this stream's turns may belong to later streams of it (read only this stream's turns).
   */
  readonly turnStarts: readonly number[];
  /** The state's last turn (0-based) and where its rounds start (shared along the chain like `turnStarts`). */
  readonly lastTurn: number;
  readonly lastRounds: RoundStarts;
  /** Whether every block's token count is an integer: then a stretch's tokens are exact prefix differences. */
  readonly integral: boolean;
  /**
   * The chain of renders this stream belongs to: each stream of a chain is a
   * prefix of the later ones (they only appended), so anything mapped per
   * block for one holds for the others up to their length. Opaque: a key.
   */
  readonly chain: object;
}

/**
 * The layout of the stream a build wrote into `store` (its blocks there, and its columns from `from` on; below
 * `from` the store holds them, or copies them from `base`'s when the store is new). `appended`: the build extends
 * the newest one of the store, so it stays on `base`'s chain; any other build (a branch, or one that changed a
 * block: a hide, a prune, a compaction) starts a new chain.
 */
function extendLayout(
  store: Store,
  from: number,
  appended: boolean,
  turnStarts: readonly number[],
  lastTurn: number,
  lastRounds: RoundStarts,
  base: StreamLayout | undefined,
): StreamLayout {
  const stream = store.blocks;
  const n = stream.length;
  if (store.used === 0 && base && from > 0) {
    store.positions.set(base.positions.subarray(0, from));
    store.prefix.set(base.prefix.subarray(0, from));
  }
  const pos = store.positions;
  const prefix = store.prefix;
  let integral = from > 0 && base ? base.integral : true;
  let p = from > 0 ? pos[from - 1]! : 0;
  let sum = from > 0 ? prefix[from - 1]! : 0;
  for (let i = from; i < n; i++) {
    const b = stream[i]!;
    if (i > 0 && !sameRun(stream[i - 1]!, b)) p++;
    pos[i] = p;
    prefix[i] = sum += b.tokens;
    if (integral && !Number.isInteger(b.tokens)) integral = false;
  }
  store.used = n;
  let envelopeEnd = -1;
  while (envelopeEnd + 1 < n && stream[envelopeEnd + 1]!.segment === 'envelope') envelopeEnd++;
  let lastTool = -1;
  while (lastTool + 1 < n && stream[lastTool + 1]!.role === 'tools') lastTool++;
  const key = appended && base ? base.chain : {};
  // A new chain that shares its first `from` blocks with the base's (a hide, a prune, a branch): remembered, so
  // what is mapped per block for the base's chain (the mapper's messages) is reused below `from`.
  if (base && key !== base.chain && from > 0) parents.set(key, { parent: base.chain, shared: from });
  return Object.freeze({
    length: n,
    positions: pos.subarray(0, n),
    prefix: prefix.subarray(0, n),
    envelopeEnd,
    lastTool,
    turnStarts,
    lastTurn,
    lastRounds,
    integral,
    chain: key,
  });
}

const parents = new WeakMap<object, { readonly parent: object; readonly shared: number }>();

/**
 * The chain a chain started from, and how many blocks their streams share from
 * the start (undefined for a chain built from nothing): what was mapped per
 * block for the parent holds for this one below `shared`.
 */
export function chainParent(chain: object): { readonly parent: object; readonly shared: number } | undefined {
  return parents.get(chain);
}

/** Streams with the tail appended (the tail pass), and the layout of their stable part. */
const withTail = new WeakMap<readonly StreamBlock[], StreamLayout>();

/**
 * The layout of a stable stream built here (or of the stable part of one
 * with its tail appended by {@link appendTail}); undefined for any other
 * array, whose figures the callers then compute themselves.
 */
export function streamLayout(stream: readonly StreamBlock[]): StreamLayout | undefined {
  const info = builds.get(stream);
  return info ? layoutOf(info) : withTail.get(stream);
}

/** The stable stream followed by the tail's blocks; the result keeps the stable part's layout. */
export function appendTail(stable: readonly StreamBlock[], tail: readonly StreamBlock[]): readonly StreamBlock[] {
  if (tail.length === 0) return stable;
  const out = stable.concat(tail);
  const layout = streamLayout(stable);
  if (layout && layout.length === stable.length) withTail.set(out, layout);
  return out;
}

/** A rendered stream kept as its two parts: the stable stream (with its layout) and the tail's blocks. */
export interface StreamParts {
  /**
   * The stable blocks: the first `stableLength` of this array (a store's array may have grown since, or been
   * rewritten past a later change: read them through {@link partsStable}).
   */
  readonly stable: readonly StreamBlock[];
  readonly stableLength: number;
  /** The stable part's build when it was built here (its layout, its public copy). */
  readonly build?: object;
  readonly tail: readonly StreamBlock[];
}

/** The parts of a render's stream: `stable` as it is now (its build remembered), then `tail`. */
export function partsOf(stable: readonly StreamBlock[], tail: readonly StreamBlock[]): StreamParts {
  const info = builds.get(stable);
  return info && info.length === stable.length ? { stable, stableLength: stable.length, build: info, tail } : { stable, stableLength: stable.length, tail };
}

/** The stable part's layout (undefined when it was not built here). */
export function partsLayout(parts: StreamParts): StreamLayout | undefined {
  const build = parts.build as BuildInfo | undefined;
  return build ? layoutOf(build) : undefined;
}

/**
 * The stable part's blocks (read the first `stableLength`): `stable` itself, unless a later build rewrote the
 * store it shares below this render's length (stream-store.ts); then a copy of this render's own blocks.
 */
export function partsStable(parts: StreamParts): readonly StreamBlock[] {
  const build = parts.build as BuildInfo | undefined;
  return !build || isIntact(build) ? parts.stable : copyOf(build);
}

const partsByHolder = new WeakMap<object, StreamParts>();

/**
 * Gives `holder` a `stream` property that is the stable stream followed by the
 * tail, built as one array only when it is read (then kept). A render then
 * allocates no array of the session's length for its stream: past 16,383
 * blocks such an array is a V8 large object, allocated on fresh pages (~8 ns
 * per element, against ~1.5 for a small one), and that cost grew the step with
 * the session. The engine's own readers (the plan, the mapper) take the parts
 * through {@link streamParts}.
 */
export function withLazyStream<T extends object>(holder: T, parts: StreamParts): T & { readonly stream: readonly StreamBlock[] } {
  partsByHolder.set(holder, parts);
  Object.defineProperty(holder, 'stream', LAZY_STREAM);
  return holder as T & { readonly stream: readonly StreamBlock[] };
}

/** Streams built by the {@link withLazyStream} accessor, kept once read. */
const lazyBuilt = new WeakMap<object, readonly StreamBlock[]>();

/** The `stream` accessor of {@link withLazyStream}: one getter for all (no closure per render). */
const LAZY_STREAM: PropertyDescriptor = Object.freeze({
  enumerable: true,
  configurable: true,
  get(this: object): readonly StreamBlock[] {
    const done = lazyBuilt.get(this);
    if (done) return done;
    const parts = partsByHolder.get(this)!;
    const build = parts.build as BuildInfo | undefined;
    const head = build ? copyOf(build) : parts.stable.length === parts.stableLength ? parts.stable : parts.stable.slice(0, parts.stableLength);
    const built = Object.freeze(appendTail(head, parts.tail));
    lazyBuilt.set(this, built);
    return built;
  },
});

/** The parts of a stream made by {@link withLazyStream} (undefined for a plain `stream` array). */
export function streamParts(holder: object): StreamParts | undefined {
  return partsByHolder.get(holder);
}

/** Blocks in `holder.stream`, without building it when it is kept as parts. */
export function streamLength(holder: { readonly stream: readonly StreamBlock[] }): number {
  const parts = partsByHolder.get(holder);
  return parts ? parts.stableLength + parts.tail.length : holder.stream.length;
}

/** Lookback positions of a stream's first `length` blocks: the layout's when it has one (shared: do not write). */
export function positionsOf(stream: readonly StreamBlock[], length = stream.length): Int32Array {
  const layout = streamLayout(stream);
  if (layout && layout.length >= length) return length === layout.length ? layout.positions : layout.positions.subarray(0, length);
  return positions(length === stream.length ? stream : stream.slice(0, length));
}

/** Cumulative tokens of a stream's first `length` blocks: the layout's when it has one (shared: do not write). */
export function prefixOf(stream: readonly StreamBlock[], length = stream.length): Float64Array {
  const layout = streamLayout(stream);
  if (layout && layout.length >= length) return length === layout.length ? layout.prefix : layout.prefix.subarray(0, length);
  return prefixTokens(length === stream.length ? stream : stream.slice(0, length));
}

/** Tokens of a stream's first `length` blocks, summed in order (the same figure a loop gives). */
export function tokensOf(stream: readonly StreamBlock[], length = stream.length): number {
  if (length === 0) return 0;
  const layout = streamLayout(stream);
  if (layout && layout.length >= length) return layout.prefix[length - 1]!;
  let sum = 0;
  for (let i = 0; i < length; i++) sum += stream[i]!.tokens;
  return sum;
}

/** Whether block b continues a's lookback position: a run of tool_use (or tool_result) blocks in one message. */
function sameRun(a: StreamBlock, b: StreamBlock): boolean {
  const type = (b.param as { type?: string }).type;
  return a.role === b.role && (type === 'tool_use' || type === 'tool_result') && (a.param as { type?: string }).type === type;
}

// POSITIONS AND STANDING

/**
 * Lookback positions: one per block, except that a run of consecutive
 * tool_use blocks in one message counts as one position, and so does a run of
 * tool_result blocks (the Claude API rule).
 */
export function positions(stream: readonly StreamBlock[]): Int32Array {
  const pos = new Int32Array(stream.length);
  let p = 0;
  for (let i = 0; i < stream.length; i++) {
    if (i > 0 && !sameRun(stream[i - 1]!, stream[i]!)) p++;
    pos[i] = p;
  }
  return pos;
}

/** Cumulative tokens: prefix[i] = tokens of blocks 0..i. */
export function prefixTokens(stream: readonly StreamBlock[]): Float64Array {
  const out = new Float64Array(stream.length);
  let sum = 0;
  for (let i = 0; i < stream.length; i++) out[i] = sum += stream[i]!.tokens;
  return out;
}

/** First index where the stream differs from the previous render's stable stream. */
export function firstChange(stream: readonly StreamBlock[], prev: LastRender | undefined): number {
  const previous = previousOf(prev);
  if (!previous) return 0;
  // A stream built here was compared with the previous render's when it was built.
  const info = builds.get(stream);
  if (info?.against !== undefined && previous.info?.id === info.against) return info.change;
  const n = Math.min(stream.length, previous.length);
  for (let i = 0; i < n; i++) if (stream[i] !== previousAt(previous, i)) return i;
  return n;
}

/**
 * Entries of the previous render still valid for this stream and still warm at `now`.
 *
 * Models that do not keep thinking (`boundary` defined: this request's strip boundary, see {@link stripBoundary}):
 * the API strips every thinking block before the boundary, so each entry is a prefix of the previous stream without
 * the thinking before the previous request's boundary (`prev.stripBoundary`). Below `change` and both boundaries
 * nothing differs, and with the same boundary on both sides nothing differs below `change`; from there on the two
 * streams are walked side by side, each side's stripped thinking skipped, and every warm entry whose prefix is the
 * same for the provider is kept, moved to its index in this stream (a marker never sits on thinking, so the mapping
 * is monotonic) with its prefix tokens less the thinking dropped and plus the thinking added (this stream's own
 * figures). The walk stops at the first real difference, and at the last warm entry. The previous render may carry
 * another view of the provider's entries (`prev.otherView`: the request before a cut, or an earlier request that
 * stripped other thinking): its entries still valid for this stream join the others.
 */
export function validEntries(prev: LastRender | undefined, stream: readonly StreamBlock[], change: number, now: number, boundary?: number): CacheEntryRecord[] {
  return entriesAndView(prev, stream, change, now, boundary).entries;
}

/**
 * {@link validEntries}, and the view to keep beside this render's ledger (LastRender.otherView): the warm entries a
 * walk left where one of the two requests kept thinking the other stripped (they may match a later request that
 * strips like theirs did), with their request's stream and boundary; the previous render's first, else the ones of
 * its own other view.
 */
function entriesAndView(
  prev: LastRender | undefined,
  stream: readonly StreamBlock[],
  change: number,
  now: number,
  boundary: number | undefined,
): { entries: CacheEntryRecord[]; otherView?: OtherView } {
  if (!prev) return { entries: [] };
  const rest: CacheEntryRecord[] = [];
  const valid = entriesOf(prev, stream, change, now, boundary, rest);
  let otherView: OtherView | undefined =
    rest.length > 0 ? { from: change, stream: ownBlocks(prev), entries: rest, stripBoundary: prev.stripBoundary ?? 0 } : undefined;
  const other = prev.otherView;
  if (!other) return otherView ? { entries: valid, otherView } : { entries: valid };
  // The other view equals `prev` below its `from`: where this stream first differs from it (up to its last entry: its
  // stream may be a chain's array, which later renders extend).
  let c = Math.min(change, other.from);
  const end = Math.min(stream.length, (other.entries.at(-1)?.index ?? -1) + 1);
  let blocks = other.stream;
  let ledger = other.entries;
  if (c === other.from) {
    while (c < end && blocks[c] === stream[c]) c++;
    // A view read back from a conversation record holds detached blocks where the record's stream had none (a
    // compaction's superseded stretch): they match this stream's blocks by path and payload, and take them.
    if (c < end && matchesDetached(blocks[c]!, stream[c]!)) {
      const copy = blocks.slice();
      for (; c < end && (copy[c] === stream[c] || matchesDetached(copy[c]!, stream[c]!)); c++) copy[c] = stream[c]!;
      blocks = copy;
      ledger = ledger.map((e) => (e.index < c ? { ...e, block: copy[e.index]! } : e));
    }
  }
  const view = { stream: blocks, entries: ledger, stripBoundary: other.stripBoundary } as LastRender;
  const otherRest: CacheEntryRecord[] = [];
  const entries = union(valid, entriesOf(view, stream, c, now, boundary, otherRest));
  if (!otherView && otherRest.length > 0) otherView = { from: c, stream: blocks, entries: otherRest, stripBoundary: other.stripBoundary };
  // A compaction's superseded entries this stream does not reach are carried on while warm: an edit or cut back into
  // the summarised stretch two or more requests later re-sends their bytes. The view equals this stream below `c`.
  if (!otherView && other.superseded) {
    const carried = ledger.filter((e) => e.index >= c && e.expiresAt > now);
    if (carried.length > 0) otherView = { from: c, stream: blocks, entries: carried, stripBoundary: other.stripBoundary, superseded: true };
  }
  return otherView ? { entries, otherView } : { entries };
}

/**
 * A copy of `b` standing detached for the block a later request sends under its path with the same role, hidden
 * reason, markability and payload bytes (a block built anew: after a cut back, or in a state rendered from the
 * messages alone), where identity cannot tell.
 */
export function detachedCopy(b: StreamBlock): StreamBlock {
  const text = JSON.stringify(b.param);
  return detachBlock(
    Object.freeze({ ...b }),
    (x) => x.path === b.path && x.role === b.role && x.hidden === b.hidden && x.markable === b.markable && JSON.stringify(x.param) === text,
  );
}

/**
 * `view` with each block from `from` to its last entry standing detached ({@link detachedCopy}) where it is not yet:
 * for a state cut back (conversation/cut-shadow.ts), whose next request builds the blocks past the cut anew. `view`
 * itself when every such block is detached already (a view read back from a record).
 */
export function detachedView(view: OtherView, from: number): OtherView {
  const to = (view.entries.at(-1)?.index ?? -1) + 1;
  let copy: StreamBlock[] | undefined;
  for (let i = from; i < to; i++) {
    const b = view.stream[i]!;
    if (detached.has(b)) continue;
    copy ??= view.stream.slice(0, to);
    copy[i] = detachedCopy(b);
  }
  if (!copy) return view;
  const stream = Object.freeze(copy);
  return { ...view, stream, entries: view.entries.map((e) => ({ ...e, block: stream[e.index]! })) };
}

/**
 * Stream blocks of an other view read back from a conversation record with no block of the record's state behind
 * them (a compaction's superseded stretch is not in the compacted stream): each with the test that tells the block
 * it stood for (conversation/state.ts: path, key and payload digest), where identity cannot.
 */
const detached = new WeakMap<StreamBlock, (b: StreamBlock) => boolean>();

/** Registers `placeholder` as a detached view block that stands for the blocks `matches` accepts. */
export function detachBlock(placeholder: StreamBlock, matches: (b: StreamBlock) => boolean): StreamBlock {
  detached.set(placeholder, matches);
  return placeholder;
}

function matchesDetached(view: StreamBlock, b: StreamBlock | undefined): boolean {
  const test = detached.get(view);
  return test !== undefined && b !== undefined && test(b);
}

/**
 * The previous render's stable blocks as an array of their own (its build's public copy, made once): never a chain's
 * shared array, which later renders extend in place (and which a deep freeze of a state holding it would break).
 */
function ownBlocks(prev: LastRender): readonly StreamBlock[] {
  const info = previousOf(prev)!.info;
  return info ? copyOf(info) : prev.stream;
}

/**
 * A compacting render's view of the entries its compaction superseded: the previous render's entries at or past
 * `change` still warm at `now`, with its stream and boundary (LastRender.otherView). The provider keeps them; a
 * later request that undoes the compaction (a history edit or cut back into the summarised stretch) re-sends those
 * bytes, and validEntries takes the entries back where its stream is the view's again. Undefined when none.
 */
export function supersededView(prev: LastRender | undefined, change: number, now: number): OtherView | undefined {
  if (!prev) return undefined;
  // Stable blocks only (an entry the tail held is not in the view's stream).
  const length = previousLength(prev);
  const entries = prev.entries.filter((e) => e.index >= change && e.index < length && e.expiresAt > now);
  if (entries.length === 0) return undefined;
  return { from: change, stream: ownBlocks(prev), entries, stripBoundary: prev.stripBoundary ?? 0, superseded: true };
}

/**
 * The entries a lost state's hint says the copy's latest request wrote past where this state parts from it
 * (LastRender.undone), as this render's superseded view, like a compaction's: from where this render's stream may first
 * differ from the view's (`change`, its first difference from the hinted render, or the view's own `from`), those still
 * warm at `now`. Undefined when none.
 */
export function undoneView(prev: LastRender | undefined, change: number, now: number): OtherView | undefined {
  const undone = prev?.undone;
  if (!undone) return undefined;
  const from = Math.min(undone.from, change);
  const entries = undone.entries.filter((e) => e.index >= from && e.expiresAt > now);
  return entries.length === 0 ? undefined : { from, stream: undone.stream, entries, stripBoundary: undone.stripBoundary, superseded: true };
}

/** Two entry lists in index order as one, one entry per index (the one that lives longer). */
function union(a: readonly CacheEntryRecord[], b: readonly CacheEntryRecord[]): CacheEntryRecord[] {
  if (b.length === 0) return a as CacheEntryRecord[];
  const out: CacheEntryRecord[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.index < y.index)) out.push(a[i++]!);
    else if (x === undefined || y.index < x.index) out.push(b[j++]!);
    else {
      out.push(x.expiresAt >= y.expiresAt ? x : y);
      i++;
      j++;
    }
  }
  return out;
}

/** {@link validEntries} of one view of the previous request (its stream, entries and strip boundary). */
function entriesOf(
  prev: LastRender,
  stream: readonly StreamBlock[],
  change: number,
  now: number,
  boundary: number | undefined,
  rest: CacheEntryRecord[],
): CacheEntryRecord[] {
  const before = prev.stripBoundary ?? 0;
  const from = boundary === undefined || before === boundary ? change : Math.min(change, before, boundary);
  const valid = prev.entries.filter((e) => e.index < from && stream[e.index] === e.block && e.expiresAt > now);
  if (prev.tail && prev.tail.length > 0) valid.push(...onFoldedTail(prev, prev.tail, stream, change, now, from, boundary));
  if (boundary === undefined || !prev.entries.some((e) => e.index >= from && e.expiresAt > now)) return valid;
  return valid.concat(sameForProvider(prev, stream, from, before, boundary, now, rest));
}

/**
 * Entries the previous request wrote on its tail (a model that binds thinking: cache-points.ts puts ④ there), still
 * valid when this stream holds that tail folded into the history (bind.ts foldSentTail: new blocks, the same
 * payloads) right after the previous stable stream, unchanged up to the entry. Each is moved onto its folded block.
 * A model that strips thinking (`boundary` defined) may have dropped thinking before it (a new turn): the provider
 * prefix is the same, so the tail is looked for after the same blocks less the stripped thinking (see
 * {@link foldedAt}), and the entries' prefix tokens lose that thinking's.
 */
function onFoldedTail(
  prev: LastRender,
  sent: readonly StreamBlock[],
  stream: readonly StreamBlock[],
  change: number,
  now: number,
  from: number,
  boundary: number | undefined,
): CacheEntryRecord[] {
  const start = previousLength(prev);
  if (!prev.entries.some((e) => e.index >= start && e.expiresAt > now)) return [];
  const at = change >= start ? { index: start, delta: 0 } : boundary === undefined ? undefined : foldedAt(prev, stream, from, boundary);
  if (!at) return [];
  const out: CacheEntryRecord[] = [];
  let same = 0;
  for (const e of prev.entries) {
    const k = e.index - start;
    if (k < 0 || k >= sent.length || e.expiresAt <= now) continue;
    while (same <= k && stream[at.index + same] !== undefined && samePayload(stream[at.index + same]!.param, sent[same]!.param)) same++;
    if (same <= k) break;
    const index = at.index + k;
    out.push(
      at.delta === 0 && index === e.index ? { ...e, block: stream[index]! } : { ...e, index, block: stream[index]!, prefixTokens: e.prefixTokens + at.delta },
    );
  }
  return out;
}

/**
 * Where the previous stable stream ends in this one (a model that strips thinking), walking both from `from` with
 * each side's stripped thinking skipped (as {@link sameForProvider}), and this stream's prefix tokens less the
 * previous one's there; undefined when a kept block differs.
 */
function foldedAt(prev: LastRender, stream: readonly StreamBlock[], from: number, boundary: number): { index: number; delta: number } | undefined {
  const n = previousLength(prev);
  const before = prev.stripBoundary ?? 0;
  let i = from;
  let j = from;
  let delta = 0;
  for (;;) {
    while (i < n && stripped(previousBlock(prev, i), i, before)) delta -= previousBlock(prev, i++).tokens;
    while (j < stream.length && stripped(stream[j]!, j, boundary)) delta += stream[j++]!.tokens;
    if (i >= n) return { index: j, delta };
    if (j >= stream.length || previousBlock(prev, i) !== stream[j]) return undefined;
    i++;
    j++;
  }
}

/** The same payload: the very object (a fold keeps it) or the same JSON (a state read back from a store). */
function samePayload(a: object, b: object): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Where the API starts keeping thinking in a request (models that do not keep thinking): the index, in the stable
 * stream followed by the tail, of the last user block other than a tool_result (the last user message holding
 * one, the tail counted); every thinking block before it is stripped. 0 when there is none (nothing stripped).
 *
 * `prev` and `change`: the previous render and where this stream first differs from it. Its boundary, when it was a
 * block of its stable stream before `change`, is still one here, and nothing between it and `change` is: the scan
 * stops there (a tool loop does work in what it appended, not in the turn's length).
 */
export function stripBoundary(stable: readonly StreamBlock[], tail: readonly { readonly param: object }[], prev?: LastRender, change = 0): number {
  for (let k = tail.length - 1; k >= 0; k--) if ((tail[k]!.param as { type?: unknown }).type !== 'tool_result') return stable.length + k;
  const known = prev?.stripBoundary;
  const floor = known !== undefined && known < change && known < previousLength(prev!) ? known : 0;
  for (let k = stable.length - 1; k > floor; k--) if (stable[k]!.role === 'user' && stable[k]!.param.type !== 'tool_result') return k;
  return floor;
}

function isThinkingParam(param: StreamBlock['param']): boolean {
  const type = (param as { type?: string }).type;
  return type === 'thinking' || type === 'redacted_thinking';
}

/** Whether block `b` at index `i` of a stream whose strip boundary is `boundary` is left out by the API. */
function stripped(b: StreamBlock, i: number, boundary: number): boolean {
  return i < boundary && b.role === 'assistant' && isThinkingParam(b.param);
}

/**
 * The warm entries at or past `from` whose provider prefix (the stream without the thinking before its boundary) is
 * the same in this stream: both streams walked from `from`, each side's stripped thinking skipped. When the walk
 * stops at thinking one side keeps (the other stripped it or has none there), the warm entries from there on go to
 * `rest`.
 */
function sameForProvider(
  prev: LastRender,
  stream: readonly StreamBlock[],
  from: number,
  before: number,
  after: number,
  now: number,
  rest: CacheEntryRecord[],
): CacheEntryRecord[] {
  const n = previousLength(prev);
  const out: CacheEntryRecord[] = [];
  let i = from;
  let j = from;
  // This stream's prefix tokens less the previous one's at the blocks walked in step.
  let delta = 0;
  for (const e of prev.entries) {
    if (e.index < from || e.expiresAt <= now) continue;
    for (;;) {
      while (i < n && stripped(previousBlock(prev, i), i, before)) delta -= previousBlock(prev, i++).tokens;
      while (j < stream.length && stripped(stream[j]!, j, after)) delta += stream[j++]!.tokens;
      if (i >= e.index || i >= n || j >= stream.length || previousBlock(prev, i) !== stream[j]) break;
      i++;
      j++;
    }
    if (i !== e.index || j >= stream.length || stream[j] !== e.block) {
      if (i < n && j < stream.length && (keptThinking(previousBlock(prev, i)) || keptThinking(stream[j]!)))
        for (const x of prev.entries) if (x.index >= e.index && x.expiresAt > now) rest.push(x);
      return out;
    }
    out.push(j === e.index && delta === 0 ? e : { ...e, index: j, prefixTokens: e.prefixTokens + delta });
  }
  return out;
}

/** Whether a block the walk stopped at is thinking (its side keeps it: the walk skips what a side strips). */
function keptThinking(b: StreamBlock): boolean {
  return b.role === 'assistant' && isThinkingParam(b.param);
}

/** The stable stream of a state, where it differs from the previous render, and the entries still usable. */
export interface CacheStanding {
  readonly stream: readonly StreamBlock[];
  readonly change: number;
  readonly entries: readonly CacheEntryRecord[];
  /** Models that do not keep thinking: this request's strip boundary ({@link stripBoundary}; the state's tail counted). */
  readonly boundary?: number;
  /** Models that do not keep thinking: the view to keep beside this render's ledger (LastRender.otherView), if any. */
  readonly otherView?: OtherView;
}

const standings = new WeakMap<TimelineState, { readonly ctx: PassContext; readonly standing: CacheStanding }>();

/**
 * The stream, first change and valid entries of a state, computed once per
 * state and context: prune, hide and placement all ask for them.
 */
export function cacheStanding(state: TimelineState, ctx: PassContext): CacheStanding {
  const hit = standings.get(state);
  if (hit && hit.ctx.now === ctx.now && hit.ctx.tokens === ctx.tokens && hit.ctx.profile === ctx.profile) {
    // The stream array is the store's: when a later render has grown or rewritten it since, this state's own blocks.
    const stream = stableStream(state, ctx);
    return stream === hit.standing.stream ? hit.standing : { ...hit.standing, stream };
  }
  const stream = stableStream(state, ctx);
  const change = firstChange(stream, state.lastRender);
  const boundary = ctx.profile.keepsThinking ? undefined : stripBoundary(stream, state.tail, state.lastRender, change);
  const { entries, otherView } = entriesAndView(state.lastRender, stream, change, ctx.now, boundary);
  const standing = { stream, change, entries, ...(boundary === undefined ? {} : { boundary }), ...(otherView ? { otherView } : {}) };
  standings.set(state, { ctx, standing });
  return standing;
}
