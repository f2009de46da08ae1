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
 */
import type { ContentBlockParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { BlockTokenCache } from '../tokens/counter.js';
import type {
  Block,
  CacheEntryRecord,
  HiddenRecord,
  LastRender,
  StreamBlock,
  StreamKind,
  StreamRole,
  Summary,
  TimelineState,
  ToolBlock,
} from '../timeline/types.js';
import type { PassContext } from './context.js';
import { replacementParam } from './notes.js';

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
  if (type === 'thinking' || type === 'redacted_thinking') return false;
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
  const from = visibleFrom(state);
  if (turn !== from.turn) return turn < from.turn;
  return from.round > 0 && (round === undefined || round < from.round);
}

/** Whether this turn's thinking blocks are dropped (older models strip them once a later user turn exists). */
function stripsThinking(state: TimelineState, turnIndex: number, ctx: PassContext): boolean {
  return !ctx.profile.keepsThinking && turnIndex < state.turns.length;
}

/** How a stable stream was built: what it came from, and where each turn starts in it. */
interface BuildInfo {
  readonly state: Pick<TimelineState, 'envelope' | 'summaries' | 'hidden' | 'turns'>;
  readonly tokens: PassContext['tokens'];
  readonly keepsThinking: boolean;
  /** turnStarts[t] = stream index of the first block of turns[t] (0-based), for visible turns. */
  readonly turnStarts: readonly number[];
}

const builds = new WeakMap<readonly StreamBlock[], BuildInfo>();
const byState = new WeakMap<TimelineState, readonly StreamBlock[]>();

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
  const memo = byState.get(state);
  const memoInfo = memo && builds.get(memo);
  if (memo && memoInfo && memoInfo.tokens === ctx.tokens && memoInfo.keepsThinking === ctx.profile.keepsThinking) return memo;

  const from = visibleFrom(state);
  const prev = state.lastRender?.stream;
  const info = prev ? builds.get(prev) : undefined;
  let out: StreamBlock[] = [];
  let turnStarts: number[] = [];
  let t = from.turn - 1;
  if (
    prev &&
    info &&
    info.state.envelope === state.envelope &&
    info.state.summaries === state.summaries &&
    info.state.hidden === state.hidden &&
    info.tokens === ctx.tokens &&
    info.keepsThinking === ctx.profile.keepsThinking
  ) {
    let k = t;
    const limit = Math.min(state.turns.length, info.state.turns.length);
    while (k < limit && state.turns[k] === info.state.turns[k]) k++;
    // Older models drop thinking once a later turn exists: the previous last turn renders anew.
    if (!ctx.profile.keepsThinking && state.turns.length !== info.state.turns.length) k = Math.min(k, info.state.turns.length - 1);
    k = Math.max(k, t);
    const start = k < info.state.turns.length ? info.turnStarts[k] : prev.length;
    if (start !== undefined) {
      out = prev.slice(0, start);
      turnStarts = info.turnStarts.slice(0, k);
      t = k;
    }
  }
  if (out.length === 0) {
    out = envelopeStream(state, ctx);
    for (const s of state.summaries) out.push(summaryStream(s, ctx));
    turnStarts = [];
    t = from.turn - 1;
  }
  const hidden = state.hidden;
  for (; t < state.turns.length; t++) {
    const turn = state.turns[t]!;
    turnStarts[t] = out.length;
    const at = { turn: turn.index };
    const partial = turn.index === from.turn && from.round > 0;
    if (!partial) for (const b of turn.user) out.push(fromBlock(b, 'user', b.path === 'notices/prune' ? 'notice' : 'user', ctx, hidden[b.path], at));
    const strip = stripsThinking(state, turn.index, ctx);
    for (const round of partial ? turn.rounds.slice(from.round - 1) : turn.rounds) {
      const where = { turn: turn.index, round: round.index };
      const kept = strip ? round.response.filter((b) => !isThinking(b)) : round.response;
      // A response that is only thinking keeps it: an empty assistant message is invalid.
      for (const b of kept.length > 0 ? kept : round.response) {
        out.push(fromBlock(b, 'assistant', b.param.type === 'tool_use' ? 'call' : 'response', ctx, hidden[b.path], where));
      }
      for (const b of round.results) {
        const kind = b.param.type === 'tool_result' ? 'result' : b.path === 'notices/prune' ? 'notice' : 'injected';
        out.push(fromBlock(b, 'user', kind, ctx, hidden[b.path], where));
      }
    }
  }
  // Only the pieces compared next time: holding the state itself would chain every earlier render.
  const source = { envelope: state.envelope, summaries: state.summaries, hidden: state.hidden, turns: state.turns };
  builds.set(out, { state: source, tokens: ctx.tokens, keepsThinking: ctx.profile.keepsThinking, turnStarts });
  byState.set(state, out);
  return out;
}

function isThinking(b: Block): boolean {
  return b.param.type === 'thinking' || b.param.type === 'redacted_thinking';
}

/** The tail's blocks (never memoized across renders beyond the block objects themselves). */
export function tailStream(state: TimelineState, ctx: PassContext): StreamBlock[] {
  return state.tail.map((b) => make(b, b.path, b.id, 'user', 'tail', b.param, ctx, { segment: 'tail' }));
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
    if (i > 0) {
      const a = stream[i - 1]!;
      const b = stream[i]!;
      const type = (b.param as { type?: string }).type;
      const run = a.role === b.role && (type === 'tool_use' || type === 'tool_result') && (a.param as { type?: string }).type === type;
      if (!run) p++;
    }
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
  if (!prev) return 0;
  const n = Math.min(stream.length, prev.stream.length);
  for (let i = 0; i < n; i++) if (stream[i] !== prev.stream[i]) return i;
  return n;
}

/** Entries of the previous render still valid for this stream and still warm at `now`. */
export function validEntries(prev: LastRender | undefined, stream: readonly StreamBlock[], change: number, now: number): CacheEntryRecord[] {
  if (!prev) return [];
  return prev.entries.filter((e) => e.index < change && stream[e.index] === e.block && e.expiresAt > now);
}

/** The stable stream of a state, where it differs from the previous render, and the entries still usable. */
export interface CacheStanding {
  readonly stream: readonly StreamBlock[];
  readonly change: number;
  readonly entries: readonly CacheEntryRecord[];
}

const standings = new WeakMap<TimelineState, { readonly ctx: PassContext; readonly standing: CacheStanding }>();

/**
 * The stream, first change and valid entries of a state, computed once per
 * state and context: prune, hide and placement all ask for them.
 */
export function cacheStanding(state: TimelineState, ctx: PassContext): CacheStanding {
  const hit = standings.get(state);
  if (hit && hit.ctx.now === ctx.now && hit.ctx.tokens === ctx.tokens && hit.ctx.profile === ctx.profile) return hit.standing;
  const stream = stableStream(state, ctx);
  const change = firstChange(stream, state.lastRender);
  const standing = { stream, change, entries: validEntries(state.lastRender, stream, change, ctx.now) };
  standings.set(state, { ctx, standing });
  return standing;
}
