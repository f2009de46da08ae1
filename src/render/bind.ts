/**
 * Preserved thinking (models whose profile has `bindsThinking`): the API
 * checks that everything before a thinking or redacted_thinking block that
 * comes back (top-level `system`, `tools`, every message before it) is what
 * the request that produced it sent; if not, that block and every later
 * thinking block are invalid and the request is refused with a 400 (or they
 * are dropped). Sources and dates: docs/models.md, "Preserved thinking".
 *
 * Two rules keep every request valid and lose as little thinking as possible:
 *
 * - {@link foldSentTail}: the tail a request sent stays in the history as it
 *   was sent, once a response to that request was appended (it becomes
 *   injected text of the user message it ended; the next tail goes after it).
 *   The response's thinking then keeps the prefix it was produced under
 *   ("put each update in a new message at the end and keep it unchanged").
 * - {@link bindThinking} (in the hide pass, before cache points): the first
 *   index where this request differs from everything the previous request sent
 *   (its stable stream and its tail; cache markers do not count) is found
 *   structurally (the projection's identity diff, then the previous tail by
 *   content), and every thinking block at or after it is left out, by a sticky
 *   record (reason `binding`), so none is ever sent with a changed prefix and
 *   none is left out between kept ones. By induction every thinking block before
 *   that index was valid in the previous request and its prefix is unchanged.
 *   Work: the blocks after the change (a normal render: only what it appended).
 */
import type { BlockPath, HiddenRecord, StreamBlock, TimelineState, Turn } from '../timeline/types.js';
import { noteTurns, roundCountOf, roundOf, shareToolUseIndex, turnWithRound } from '../timeline/edit.js';
import { paths } from '../timeline/paths.js';
import type { PassContext, RenderWork } from './context.js';
import { hiddenRecord } from './notes.js';
import { cacheStanding, previousBlock, previousLength } from './projection.js';
import type { ModelProfile } from '../models/profiles.js';
import type { BindingCause, Decision, ThinkingLost } from './types.js';
import { hiddenSetOf, stateWith } from '../timeline/hidden.js';
import { withHidden } from './hidden-set.js';

/** Whether a stream block is an assistant's thinking or redacted_thinking block (what the prefix check binds). */
export function isThinkingBlock(b: StreamBlock): boolean {
  const type = (b.param as { type?: string }).type;
  return b.role === 'assistant' && (type === 'thinking' || type === 'redacted_thinking');
}

/**
 * What leaving out the visible thinking blocks of `stream` from `from` on costs (models that bind thinking), or
 * undefined when there is none: their tokens at the output price (an estimate: the model may think them again).
 */
export function thinkingLostFrom(stream: readonly StreamBlock[], from: number, profile: ModelProfile): ThinkingLost | undefined {
  if (!profile.bindsThinking) return undefined;
  let blocks = 0;
  let tokens = 0;
  for (let i = Math.max(0, from); i < stream.length; i++) {
    const b = stream[i]!;
    if (!isThinkingBlock(b) || b.hidden) continue;
    blocks++;
    tokens += b.tokens;
  }
  return blocks === 0 ? undefined : lostPrice(blocks, tokens, profile);
}

/** {@link ThinkingLost} of `blocks` blocks holding `tokens` tokens. */
export function lostPrice(blocks: number, tokens: number, profile: ModelProfile): ThinkingLost {
  return { blocks, tokens, cost: (tokens * profile.prices.output) / 1e6 };
}

/** Canonical JSON without cache markers (the prefix check leaves them out). */
function sameContent(a: StreamBlock, b: StreamBlock): boolean {
  if (a === b) return true;
  if (a.role !== b.role) return false;
  return JSON.stringify(a.param) === JSON.stringify(b.param);
}

/**
 * The state with the tail the previous request sent kept where it was sent, when a response to that
 * request was appended since (models that bind thinking). The same state otherwise.
 */
export function foldSentTail(state: TimelineState, ctx: PassContext): TimelineState {
  if (!ctx.profile.bindsThinking) return state;
  const last = state.lastRender;
  const sent = last?.tail;
  if (!last || !sent || sent.length === 0) return state;
  const t = last.turn - 1;
  const turn = state.turns[t];
  // A response to that request: round `last.round` of that turn exists.
  if (!turn || roundCountOf(turn) < last.round) return state;
  let next: Turn;
  if (last.round <= 1) {
    const base = turn.user.length;
    const added = sent.map((b, k) => {
      const path: BlockPath = paths.user(turn.index, base + k);
      return Object.freeze({ id: path, path, param: b.param as StreamBlock['param'] }) as Turn['user'][number];
    });
    next = Object.freeze({ ...turn, user: Object.freeze([...turn.user, ...added]) });
  } else {
    const r = last.round - 2;
    const round = roundOf(turn, r)!;
    const base = round.results.length;
    const added = sent.map((b, k) => {
      const path: BlockPath = paths.injected(turn.index, round.index, base + k);
      return Object.freeze({ id: path, path, param: b.param as StreamBlock['param'] }) as Turn['user'][number];
    });
    // As the appends edit the open turn (edit.ts turnWithRound): a long turn's rounds are built when first read.
    next = Object.freeze(turnWithRound(turn, r, Object.freeze({ ...round, results: Object.freeze([...round.results, ...added]) })));
  }
  // A spread, not slice: slice of a frozen array is V8's slow path (Node 20: ~20 µs at 500 turns against ~0.5).
  const turns = [...state.turns];
  turns[t] = next;
  noteTurns(turns, state.turns, t);
  // lastRender stays as it is (its stream is the renderer's, read by identity): the guard then finds the sent
  // tail right after the previous stable stream, where it now is.
  // The fold adds no tool_use: the next append finds the session's tool_use ids without a rescan.
  return shareToolUseIndex(state, stateWith(state, { turns: Object.freeze(turns) }));
}

/**
 * The first block from `from` on (what this request appends: responses sent back for the first time) that is
 * not sent as the model produced it (hidden already, e.g. an agent's immediate hide), or +Infinity. A thinking
 * block after it in the same response (interleaved thinking) was produced after the original, so it is left out;
 * one before it keeps its prefix.
 */
function firstAltered(state: TimelineState, stream: readonly StreamBlock[], from: number): number {
  for (let i = from; i < stream.length; i++) {
    const b = stream[i]!;
    if (b.hidden || (isThinkingBlock(b) && afterDroppedBlank(state, b.path))) return i;
  }
  return Number.POSITIVE_INFINITY;
}

const RESPONSE_PATH = /^turns\/(\d+)\/rounds\/(\d+)\/response\/(\d+)$/;

/**
 * Whether a block of the response it was produced in was dropped before this one: a whitespace-only text block
 * (the API refuses one in a request; timeline/edit.ts drops it at append and keeps the response's indexes in the
 * paths), so this block's position in the response is not its index.
 */
function afterDroppedBlank(state: TimelineState, path: BlockPath): boolean {
  const m = RESPONSE_PATH.exec(path);
  if (!m) return false;
  const response = state.turns[Number(m[1]) - 1]?.rounds[Number(m[2]) - 1]?.response;
  if (!response) return false;
  const at = response.findIndex((x) => x.path === path);
  return at >= 0 && at !== Number(m[3]);
}

/** Why thinking from `at` on no longer has its prefix. */
function causeAt(stream: readonly StreamBlock[], at: number, prevLength: number): BindingCause {
  const b = stream[at];
  if (at >= prevLength) return b?.hidden ? 'hidden' : 'tail';
  if (!b) return 'edit';
  if (b.segment === 'envelope') return 'envelope';
  if (b.kind === 'summary') return 'compaction';
  if (b.hidden) return 'hidden';
  return 'edit';
}

/**
 * The hide pass's guard (models that bind thinking): thinking blocks whose prefix changed since the
 * request that produced them are left out (sticky), all of them from the first change on.
 */
export function bindThinking(work: RenderWork, ctx: PassContext): RenderWork {
  const state = work.state;
  const prev = state.lastRender;
  if (!ctx.profile.bindsThinking || !prev) return work;
  const { stream, change } = cacheStanding(state, ctx);
  const prevLength = previousLength(prev);
  let at = change;
  let edited = false;
  // The identity diff is exact when the blocks were memoized; a block rebuilt with the same content (another
  // token cache, a rehydrated state) is no change for the API: compare on by content (one step for a real change).
  const n = Math.min(prevLength, stream.length);
  while (at < n && sameContent(stream[at]!, previousBlock(prev, at))) at++;
  if (at >= prevLength && at === n) {
    // The previous stable stream is a prefix: then what its tail sent must follow, unchanged. Unknown (a state
    // rendered without this record, e.g. imported from an older build): its newest thinking may not be valid.
    const sent = prev.tail;
    if (sent === undefined) at = prevLength;
    else {
      let i = 0;
      while (i < sent.length && prevLength + i < stream.length && sameContent(stream[prevLength + i]!, sent[i]!)) i++;
      const k = prevLength + i;
      // Right after what the previous request sent comes its response (its thinking was produced there). Anything
      // else there (the client added a block to the user message that request ended with: prepare's resync) moved
      // the response's prefix.
      if (i === sent.length && k < stream.length && stream[k]!.role !== 'assistant') edited = true;
      at = i === sent.length && !edited ? firstAltered(state, stream, k) : k;
    }
  }
  if (at >= stream.length) return work;
  const cause = edited ? 'edit' : causeAt(stream, at, prevLength);
  const changedAt = stream[at]?.path ?? 'tail';
  const hidden: HiddenRecord[] = [];
  const held = hiddenSetOf(state);
  const decisions: Decision[] = [];
  for (let i = at; i < stream.length; i++) {
    const b = stream[i]!;
    if (!isThinkingBlock(b) || held.has(b.path)) continue;
    hidden.push(hiddenRecord(state, b.path, 'binding'));
    decisions.push({ type: 'prune', path: b.path, reason: 'binding', tokensRemoved: b.tokens, binding: { cause, changedAt } });
  }
  if (decisions.length === 0) return work;
  const next = withHidden(state, hidden);
  return { ...work, state: next, decisions: [...work.decisions, ...decisions] };
}
