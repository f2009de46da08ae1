/**
 * Edits of the session state. Each edit validates first and then produces a
 * new frozen state by copying only the spine it changes, so an invalid edit throws a TimelineError and
 * leaves nothing half-changed, and a valid one shares every untouched object
 * with the previous state (appending a round copies only the spine).
 */
import type { ContentBlock, ContentBlockParam, Message, TextBlockParam, Tool, ToolResultBlockParam, ToolUnion } from '../providers/anthropic-types.js';
import { TimelineError } from '../errors.js';
import { toolSchemaProblem, withoutMarker } from '../internal/blocks.js';
import { sameData } from '../internal/same-data.js';
import { paths } from './paths.js';
import type { Block, Envelope, Round, Skill, TimelineState, ToolBlock, Turn } from './types.js';
import { hasPersistentHidden, stateWith } from './hidden.js';

/** What the envelope is made of, as the caller gives it. */
export interface EnvelopeInput {
  /** Runtime instructions first, then agent/domain instructions. */
  readonly instructions: readonly (string | TextBlockParam)[];
  readonly tools?: readonly (Tool | ToolUnion)[];
  readonly skills?: readonly Skill[];
}

/** Options of {@link createTimeline}. */
export interface CreateTimelineInput extends EnvelopeInput {
  /** Model id (see models/profiles.ts). */
  readonly model: string;
}

function textParam(text: string | TextBlockParam): TextBlockParam {
  return typeof text === 'string' ? { type: 'text', text } : stripMarker(text);
}

/** Cache markers are the renderer's business: incoming blocks lose theirs. */
function stripMarker<T extends object>(param: T): T {
  return copyData(withoutMarker(param));
}

/**
 * A deep copy of JSON-shaped data (plain objects and arrays) that keeps key
 * order and shares the strings: they are immutable, and structuredClone would
 * copy an 800k-character tool result on every append. Anything else
 * (a Date, a typed array) goes through structuredClone. The copy is frozen.
 */
function copyData<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  // Frozen as it is built: the state freezes it anyway, and the deep freeze of the new block then stops at once.
  if (Array.isArray(value)) return Object.freeze(value.map(copyData)) as T;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return deepFreeze(structuredClone(value));
  // A spread copies the own properties in order (one builtin); then only the nested objects are copied in turn.
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key in out) {
    const v = out[key];
    if (v !== null && typeof v === 'object' && Object.hasOwn(out, key)) out[key] = copyData(v);
  }
  return Object.freeze(out) as T;
}

function renderSkills(skills: readonly Skill[]): string {
  const lines = skills.map((s) => `- ${s.name}: ${s.description}`);
  return `Skills available (load one by name when the task needs it):\n${lines.join('\n')}`;
}

function buildEnvelope(input: EnvelopeInput): Envelope {
  const seen = new Set<string>();
  if (!Array.isArray(input.instructions)) throw new TimelineError('envelope/instructions', 'expected an array of strings or text blocks');
  const tools: ToolBlock[] = (input.tools ?? []).map((tool, i) => {
    const t = tool as { name?: unknown; type?: unknown } | null;
    if (t === null || typeof t !== 'object' || (typeof t.name !== 'string' && typeof t.type !== 'string'))
      throw new TimelineError(`envelope/tools/${i}`, 'expected a tool definition (an object with a "name")');
    // Toolsets (computer/browser use) have a type but no name.
    const name = (tool as { name?: string }).name ?? String((tool as { type?: string }).type);
    const problem = toolSchemaProblem(t as Record<string, unknown>);
    if (problem) throw new TimelineError(`envelope/tools/${i}/input_schema`, problem);
    if (seen.has(name)) throw new TimelineError(paths.tool(name), 'duplicate tool name in the tool catalog');
    seen.add(name);
    const path = paths.tool(name);
    return { id: path, path, tool: stripMarker(tool) };
  });
  const instructions: Block[] = input.instructions.map((text, i) => {
    const t = text as { type?: unknown; text?: unknown } | null;
    if (typeof text !== 'string' && (t === null || typeof t !== 'object' || t.type !== 'text' || typeof t.text !== 'string'))
      throw new TimelineError(paths.instruction(i), 'expected a string or a text block');
    const param = textParam(text);
    if (param.text.trim().length === 0) {
      throw new TimelineError(
        paths.instruction(i),
        `${param.text.length === 0 ? 'empty' : 'whitespace-only'} instruction (the API rejects empty and whitespace-only text blocks)`,
      );
    }
    return { id: paths.instruction(i), path: paths.instruction(i), param };
  });
  const skills = [...(input.skills ?? [])];
  const envelope: Envelope = { instructions, tools, skills };
  if (skills.length === 0) return envelope;
  const path = paths.skills();
  return { ...envelope, skillCatalog: { id: path, path, param: { type: 'text', text: renderSkills(skills) } } };
}

/**
 * Creates the session state.
 *
 * @example
 * let state = createTimeline({ model: 'claude-sonnet-4-6', instructions: ['You are a coding agent.'], tools });
 * state = startTurn(state, 'Fix the failing test');
 */
export function createTimeline(input: CreateTimelineInput): TimelineState {
  return deepFreeze({
    model: input.model,
    envelope: buildEnvelope(input),
    turns: [],
    tail: [],
    hidden: {},
    summaries: [],
    deferred: [],
    pruneNotice: false,
  } satisfies TimelineState);
}

/** Replaces the envelope (the stable front changed: everything after it is re-written once). */
export function setEnvelope(state: TimelineState, input: EnvelopeInput & { readonly model?: string }): TimelineState {
  const envelope = reuseUnchanged(state.envelope, buildEnvelope(input));
  return stateWith(state, { envelope: deepFreeze(envelope), ...(input.model !== undefined ? { model: input.model } : {}) });
}

/**
 * Keeps the previous envelope's block objects where the new ones are the same
 * bytes, so an envelope edit shares what it did not change (and the render's
 * identity diff sees exactly where the envelope changed).
 */
function reuseUnchanged(old: Envelope, next: Envelope): Envelope {
  const same = <T extends { readonly path: string }>(a: T | undefined, b: T, bytes: (x: T) => unknown): T =>
    a && a.path === b.path && JSON.stringify(bytes(a)) === JSON.stringify(bytes(b)) ? a : b;
  const tools = next.tools.map((t, i) => same(old.tools[i], t, (x) => x.tool));
  const instructions = next.instructions.map((b, i) => same(old.instructions[i], b, (x) => x.param));
  const skillCatalog = next.skillCatalog && same(old.skillCatalog, next.skillCatalog, (x) => x.param);
  return { ...next, tools, instructions, ...(skillCatalog ? { skillCatalog } : {}) };
}

/**
 * Freezes a new object and everything under it that is not frozen yet (shared,
 * already-frozen parts stop the walk). Arrays are walked by index and objects
 * with for-in (no key list allocated: this runs on every append).
 */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  } else {
    const o = value as Record<string, unknown>;
    for (const key in o) {
      const v = o[key];
      if (v !== null && typeof v === 'object' && Object.hasOwn(o, key)) deepFreeze(v);
    }
  }
  return value;
}

/**
 * A rounds array with `round` at `at` (its length: appended; below: that round replaced), frozen, and every other
 * round the same object. What every built edit of a turn's rounds goes through (a short turn's appends, a long
 * turn's rounds when first read: {@link turnWithRound}).
 *
 * A state's arrays are frozen and never shared with a later state, so building a long open turn's rounds copies
 * them: O(rounds). What is cut here is the constant: growing a frozen array by one (`[...rounds, round]`: V8 clones
 * it, then grows the clone) costs ~3x an exact copy of a plain array (Node 20, 5,000 rounds: ~16 µs against ~5). So
 * the few chains being edited keep a plain copy of their newest rounds array, never handed out: an edit of that
 * array writes into the copy (a push, amortized) and hands out a frozen exact copy of it (`slice` of a plain array is
 * a memcpy). An edit of any other array (a branch from an older state, an imported state, a chain pushed out by four
 * others) copies as before and takes a slot. Short arrays (up to {@link NOTE_FROM}) are spread at once: as cheap, and
 * no slot held.
 */
export function roundsWith(rounds: readonly Round[], at: number, round: Round): readonly Round[] {
  const n = rounds.length;
  if (n < NOTE_FROM) {
    if (at === n) return Object.freeze([...rounds, round]);
    const out = [...rounds];
    out[at] = round;
    return Object.freeze(out);
  }
  return roundsApplied(rounds, [at], [round]);
}

/**
 * `rounds` with each `rounds2[k]` put at `ats[k]`, in order (an index at the length appends), through the chains'
 * plain copies (see {@link roundsWith}); frozen.
 */
function roundsApplied(rounds: readonly Round[], ats: readonly number[], rounds2: readonly Round[]): readonly Round[] {
  let i = spineOf(rounds);
  let items: Round[];
  if (i >= 0) items = spineItems[i]!;
  else {
    items = [...rounds];
    // The least recently edited chain gives up its slot.
    i = SPINES - 1;
  }
  for (let k = 0; k < ats.length; k++) items[ats[k]!] = rounds2[k]!;
  const next = Object.freeze(items.slice());
  for (let j = i; j > 0; j--) {
    spineTips[j] = spineTips[j - 1];
    spineItems[j] = spineItems[j - 1];
  }
  spineTips[0] = next;
  spineItems[0] = items;
  return next;
}

/** Chains whose rounds {@link roundsWith} keeps a plain copy of: the newest array handed out, and that copy (same items), most recent first. */
const SPINES = 4;
const spineTips: (readonly Round[] | undefined)[] = [undefined, undefined, undefined, undefined];
const spineItems: (Round[] | undefined)[] = [undefined, undefined, undefined, undefined];

function spineOf(rounds: readonly Round[]): number {
  for (let i = 0; i < SPINES; i++) if (spineTips[i] === rounds) return i;
  return -1;
}

/*
 * A long open turn's rounds, built when first read. A tool loop edits its open turn three times a request (the
 * response, its results, and on models that bind thinking the render's fold of the sent tail), and each edit made
 * a new frozen rounds array: three O(rounds) copies a request (5,000 rounds: 3 × 40 KB), of which only the last is
 * read (the render reads the state it renders; the states between are handed out and dropped). So an edit of a long
 * turn (over NOTE_FROM rounds) makes a turn whose `rounds` is a getter: it builds the array on first read, from the
 * array it was edited from and the rounds put since (a short chain of pending edits), once; every later read gets
 * the same frozen array. The turn is frozen like any other, `rounds` is an own enumerable property (JSON, spreads
 * and key order as before), and the appends read its length and last round from the pending edits without building.
 */

/** Edits of a long turn's rounds not built yet: `round` put at `at` of `base` (an array, or earlier pending edits). */
interface PendingRounds {
  /** The turn these are the rounds of (a copy of the turn made elsewhere does not read them: see pendingOf). */
  owner: Turn | undefined;
  /** What the edit was made on; undefined once built. */
  base: readonly Round[] | PendingRounds | undefined;
  readonly at: number;
  readonly round: Round;
  readonly length: number;
  /** Pending edits down to a built array, this one included. */
  readonly depth: number;
  built: readonly Round[] | undefined;
}

/** Where a turn made by {@link turnWithRound} keeps its pending rounds (a non-enumerable own property). */
const PENDING: unique symbol = Symbol('cachepoint.pendingRounds');

/** Pending edits at most this deep: a caller that appends without reading (an import) builds every so often. */
const PENDING_DEPTH = 8;

/** The `rounds` getter of a turn made by {@link turnWithRound} (one function for all: one hidden class). */
function readPendingRounds(this: Turn): readonly Round[] {
  const p = (this as unknown as { [PENDING]: PendingRounds })[PENDING];
  return p.built ?? buildPending(p);
}

const ROUNDS_GETTER: PropertyDescriptor = Object.freeze({ get: readPendingRounds, enumerable: true, configurable: false });

/** The pending rounds of `turn`, when it is a turn made by {@link turnWithRound} and they are not built yet. */
function pendingOf(turn: Turn): PendingRounds | undefined {
  const p = (turn as unknown as { [PENDING]?: PendingRounds })[PENDING];
  return p !== undefined && p.owner === turn && p.built === undefined ? p : undefined;
}

/** Builds pending rounds: one copy of the array they were edited from, with every pending edit put in order. */
function buildPending(p: PendingRounds): readonly Round[] {
  const chain: PendingRounds[] = [];
  let q = p;
  let root: readonly Round[];
  for (;;) {
    chain.push(q);
    const b = q.base!;
    if (Array.isArray(b)) {
      root = b;
      break;
    }
    const pb = b as PendingRounds;
    if (pb.built !== undefined) {
      root = pb.built;
      break;
    }
    q = pb;
  }
  const ats: number[] = [];
  const rounds: Round[] = [];
  let same = root.length;
  for (let k = chain.length - 1; k >= 0; k--) {
    const d = chain[k]!;
    ats.push(d.at);
    rounds.push(d.round);
    if (d.at < same) same = d.at;
  }
  const built = roundsApplied(root, ats, rounds);
  noteRounds(built, root, same);
  p.built = built;
  // The edits are in the array now: the chain behind it may go.
  p.base = undefined;
  return built;
}

/** How many rounds `turn` has (its pending edits' count when not built). */
export function roundCountOf(turn: Turn): number {
  return pendingOf(turn)?.length ?? turn.rounds.length;
}

/** Round `i` (0-based) of `turn`, read from its pending edits when not built. */
export function roundOf(turn: Turn, i: number): Round | undefined {
  let p = pendingOf(turn);
  if (p === undefined) return turn.rounds[i];
  if (i >= p.length) return undefined;
  for (;;) {
    if (p.built !== undefined) return p.built[i];
    if (p.at === i) return p.round;
    const b = p.base!;
    if (Array.isArray(b)) return (b as readonly Round[])[i];
    p = b as PendingRounds;
  }
}

/**
 * The turn with `round` at `at` of its rounds (its round count: appended; below: that round replaced), every other
 * round the same object; not frozen ({@link withLastTurn} freezes it, or the caller). A long turn's rounds are built
 * when first read (see PendingRounds); a short one's at once.
 */
export function turnWithRound(turn: Turn, at: number, round: Round): Turn {
  const p = pendingOf(turn);
  const n = p?.length ?? turn.rounds.length;
  if (n < NOTE_FROM) {
    const rounds = roundsWith(turn.rounds, at, round);
    noteRounds(rounds, turn.rounds, at);
    return turnWith(turn, rounds);
  }
  const depth = p === undefined ? 1 : p.depth + 1;
  const next: PendingRounds = { owner: undefined, base: p ?? turn.rounds, at, round, length: at === n ? n + 1 : n, depth, built: undefined };
  const t: Record<PropertyKey, unknown> = { index: turn.index, user: turn.user };
  Object.defineProperty(t, 'rounds', ROUNDS_GETTER);
  if (turn.at !== undefined) t.at = turn.at;
  Object.defineProperty(t, PENDING, { value: next });
  next.owner = t as unknown as Turn;
  // Deep enough: built now (a caller that edits without reading), so no chain grows without bound.
  if (depth >= PENDING_DEPTH) buildPending(next);
  return t as unknown as Turn;
}

/** A frozen copy of a frozen array with one more item (spread, not slice: slice of a frozen array takes V8's slow path). */
function frozenWith<T>(items: readonly T[], item: T): readonly T[] {
  return Object.freeze([...items, item]);
}

/**
 * The state with its last turn replaced: a copy of the spine only (state,
 * turns array, that turn), everything else shared. Done by hand rather than
 * with immer: immer's auto-freeze walks every own property of each copied
 * object, including the previous render's stream in \`lastRender\`, so an
 * append would cost in proportion to the whole history.
 */
function withLastTurn(state: TimelineState, turn: Turn): TimelineState {
  // The caller froze what it built (the new round and its blocks); the turn is new here, and its rounds array is
  // frozen as built (roundsWith, or a pending turn's getter: not read here).
  const turns = [...state.turns];
  turns[turns.length - 1] = Object.freeze(turn);
  noteTurns(turns, state.turns, turns.length - 1);
  return withTurns(state, Object.freeze(turns));
}

/*
 * The spine copies below are object literals, not spreads: a spread of a
 * frozen state, turn or round is a generic runtime copy (~0.1-0.4 µs each,
 * three per append, a quarter of an append's time), a literal of known keys
 * is an allocation. Keys in the order createTimeline / startTurn /
 * appendResponse give them (the render adds `lastRender` last); an optional
 * key is present only when set, as before.
 */

/** The state with other turns. */
function withTurns(state: TimelineState, turns: readonly Turn[]): TimelineState {
  return withSpine(state, turns, state.tail);
}

/** The state with other turns and tail (either may be the state's own). */
function withSpine(state: TimelineState, turns: readonly Turn[], tail: readonly Block[]): TimelineState {
  // A persistent hidden set (timeline/hidden.ts) goes on as it is: destructuring `hidden` would build its plain form.
  if (hasPersistentHidden(state)) return stateWith(state, tail === state.tail ? { turns } : turns === state.turns ? { tail } : { turns, tail });
  const { model, envelope, hidden, summaries, deferred, pruneNotice, lastRender } = state;
  return Object.freeze(
    lastRender === undefined
      ? { model, envelope, turns, tail, hidden, summaries, deferred, pruneNotice }
      : { model, envelope, turns, tail, hidden, summaries, deferred, pruneNotice, lastRender },
  );
}

/** The turn with other rounds (not frozen: {@link withLastTurn} freezes it). */
function turnWith(turn: Turn, rounds: readonly Round[]): Turn {
  const at = turn.at;
  return at === undefined ? { index: turn.index, user: turn.user, rounds } : { index: turn.index, user: turn.user, rounds, at };
}

/*
 * The last turn and round are read by index, not with `.at(-1)`: `at` on a
 * frozen array (every array of the state) is V8's generic path, about three
 * times an indexed read, and the appends read them several times each.
 */

/** The last round of a turn, or undefined (read without building a pending turn's rounds). */
function lastRoundOf(turn: Turn): Round | undefined {
  const n = roundCountOf(turn);
  return n > 0 ? roundOf(turn, n - 1) : undefined;
}

/** The last item of an array, or undefined. */
function lastOf<T>(items: readonly T[]): T | undefined {
  return items.length > 0 ? items[items.length - 1] : undefined;
}

const NO_IDS: readonly string[] = Object.freeze([]);

function openIds(state: TimelineState): readonly string[] {
  const turn = lastOf(state.turns);
  const round = turn && lastRoundOf(turn);
  return round ? round.open : NO_IDS;
}

function currentPath(state: TimelineState): string {
  const t = state.turns.length;
  const last = lastOf(state.turns);
  const r = last ? roundCountOf(last) : 0;
  return r > 0 ? `turns/${t}/rounds/${r}` : `turns/${t}`;
}

/**
 * Starts a new turn with the user's message.
 *
 * @throws {TimelineError} when the previous round still has unanswered tool_use blocks
 */
export function startTurn(state: TimelineState, content: string | readonly ContentBlockParam[], at?: number): TimelineState {
  const open = openIds(state);
  if (open.length > 0) {
    throw new TimelineError(
      currentPath(state),
      `a user turn started mid-round: tool_use ${open.join(', ')} ${open.length === 1 ? 'is' : 'are'} unanswered; append their tool results first`,
    );
  }
  const index = state.turns.length + 1;
  const given = typeof content === 'string' ? [{ type: 'text', text: content } as TextBlockParam] : content;
  checkBlocks(given, index, 0, 'user');
  // One pass, each block frozen as built (as setTail): a turn starts with every user message a loop sends.
  const user: Block[] = [];
  for (let i = 0; i < given.length; i++) {
    const b = given[i]!;
    if (isBlankText(b)) continue;
    const path = paths.user(index, user.length);
    if (b.type === 'tool_result') throw new TimelineError(path, 'a tool_result cannot start a turn; use appendToolResults');
    user.push(Object.freeze({ id: path, path, param: stripMarker(b) }));
  }
  if (user.length === 0) throw new TimelineError(`turns/${index}/user`, 'a user message needs at least one block with non-whitespace text or other content');
  const rounds: readonly Round[] = Object.freeze([]);
  const turn: Turn = Object.freeze(at === undefined ? { index, user: Object.freeze(user), rounds } : { index, user: Object.freeze(user), rounds, at });
  const turns = frozenWith(state.turns, turn);
  noteTurns(turns, state.turns, state.turns.length);
  const next = withTurns(state, turns);
  return carryIndex(state, next);
}

/** Converts a response content block (SDK `ContentBlock`) to the param the API accepts back. */
export function toParam(block: ContentBlock | ContentBlockParam): ContentBlockParam {
  switch (block.type) {
    case 'text': {
      const citations = 'citations' in block ? block.citations : undefined;
      return citations && citations.length > 0
        ? ({ type: 'text', text: block.text, citations: copyData(citations) } as ContentBlockParam)
        : { type: 'text', text: block.text };
    }
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_use':
      // Re-sent exactly as the model produced it: the copy keeps key order.
      return { type: 'tool_use', id: block.id, name: block.name, input: copyData(block.input) };
    default:
      return stripMarker(block as ContentBlockParam);
  }
}

/**
 * Appends one model response (a round) to the current turn.
 *
 * @param response an SDK `Message` or its content blocks
 * @throws {TimelineError} when no turn is open, the previous round is unanswered,
 *   the turn already ended, or a tool_use id repeats
 */
export function appendResponse(state: TimelineState, response: Message | readonly (ContentBlock | ContentBlockParam)[], at?: number): TimelineState {
  const built = buildResponse(state, response);
  const open = Object.freeze(built.ids);
  const round: Round = Object.freeze(
    at === undefined
      ? { index: built.index, response: built.response, results: Object.freeze([]), open }
      : { index: built.index, response: built.response, results: Object.freeze([]), open, at },
  );
  return commitRound(state, built.turn, round, built.known);
}

/**
 * {@link appendResponse} and then {@link appendToolResults} with the results that answer it, as one edit: the
 * same state, errors and side tables (tool_use index, rounds records) as the two appends, without the state in
 * between (one copy of the spine instead of two). For a caller that has both at once (`prepare` maps a response
 * and the tool results after it). Nothing is changed when it throws.
 *
 * @throws {TimelineError} as {@link appendResponse}, then as {@link appendToolResults}
 */
export function appendRound(
  state: TimelineState,
  response: Message | readonly (ContentBlock | ContentBlockParam)[],
  results: readonly ToolResultBlockParam[],
  injected: readonly (string | TextBlockParam)[] = [],
  at?: number,
  resultsAt?: number,
): TimelineState {
  const built = buildResponse(state, response);
  let answered: Round;
  try {
    // The response's round is never a state's here: answered at once, without the response-only round literal.
    answered = answerRound(built.turn, built.index, built.response, NO_BLOCKS, built.ids, at, results, injected, resultsAt);
  } catch (err) {
    // The response's ids leave the chain's index again, as when a response is refused.
    for (let i = 0; i < built.ids.length; i++) built.known.delete(built.ids[i]!);
    throw err;
  }
  return commitRound(state, built.turn, answered, built.known);
}

/** A response checked and built as the current turn's next round (its parts), not yet part of a state. */
interface BuiltResponse {
  readonly turn: Turn;
  /** The round's index in the turn. */
  readonly index: number;
  /** The round's response blocks, frozen. */
  readonly response: readonly Block[];
  /** Its tool_use ids, in order (not frozen: the caller freezes what it keeps). */
  readonly ids: string[];
  /** The chain's tool_use index, with the round's ids added (taken out again if the round is not committed). */
  readonly known: Set<string>;
}

const NO_BLOCKS: readonly Block[] = Object.freeze([]);

function buildResponse(state: TimelineState, response: Message | readonly (ContentBlock | ContentBlockParam)[]): BuiltResponse {
  const turn = lastOf(state.turns);
  if (!turn) throw new TimelineError('turns', 'no turn is open: call startTurn with the user message first');
  const last = lastRoundOf(turn);
  const index = roundCountOf(turn) + 1;
  if (last && last.open.length > 0) {
    throw new TimelineError(
      `turns/${turn.index}/rounds/${index}`,
      `a new round started while tool_use ${last.open.join(', ')} of round ${index - 1} is unanswered`,
    );
  }
  if (last && !hasToolUse(last.response)) {
    throw new TimelineError(`turns/${turn.index}/rounds/${index}`, `turn ${turn.index} ended with round ${last.index} (no tool_use); start a new turn first`);
  }
  const content = Array.isArray(response) ? response : (response as Message | null)?.content;
  checkBlocks(content, turn.index, index, 'response');
  // The API rejects whitespace-only text blocks in a request ("text content blocks must contain
  // non-whitespace text"); models sometimes emit one before a tool call. They carry nothing: drop them.
  // Each new id is added to the chain's index as it is met (one Set operation finds a repeat, within this
  // response or before it); a refused response takes its ids out again, so the index is as it was.
  const known = knownToolUseIds(state);
  const ids: string[] = [];
  const blocks: Block[] = [];
  try {
    for (let i = 0; i < content.length; i++) {
      const raw = content[i]!;
      if (isBlankText(raw)) continue;
      // Frozen as built: toParam copies nested data frozen (copyData), so only its top object is left; no deep walk.
      const param = Object.freeze(toParam(raw as ContentBlock));
      if (param.type === 'tool_use') {
        const id = param.id;
        const path = paths.call(turn.index, index, id);
        const size = known.size;
        known.add(id);
        if (known.size === size) throw new TimelineError(path, `duplicate tool_use id "${id}"`);
        ids.push(id);
        blocks.push(Object.freeze({ id, path, param }));
      } else {
        const path = paths.response(turn.index, index, i);
        blocks.push(Object.freeze({ id: path, path, param }));
      }
    }
    if (blocks.length === 0) throw new TimelineError(`turns/${turn.index}/rounds/${index}`, 'an assistant response needs at least one non-empty block');
  } catch (err) {
    for (let i = 0; i < ids.length; i++) known.delete(ids[i]!);
    throw err;
  }
  return { turn, index, response: Object.freeze(blocks), ids, known };
}

/** The state with `round` appended to its current turn, and the chain's tool_use index handed on to it. */
function commitRound(state: TimelineState, turn: Turn, round: Round, known: Set<string>): TimelineState {
  const next = withLastTurn(state, turnWithRound(turn, roundCountOf(turn), round));
  rememberIndex(state.turns, next.turns, { ids: known, size: known.size });
  return next;
}

function hasToolUse(blocks: readonly Block[]): boolean {
  for (let i = 0; i < blocks.length; i++) if (blocks[i]!.param.type === 'tool_use') return true;
  return false;
}

/**
 * A tool_result without the blank text parts of its content: the API refuses
 * empty and whitespace-only text blocks inside a tool_result as anywhere else,
 * so they are dropped, as top-level blank text is. A result left with no part
 * at all is sent without content (the field is optional). Frozen, as the copy it is given.
 */
function withoutBlankParts(result: ToolResultBlockParam): ToolResultBlockParam {
  const content = result.content;
  if (!Array.isArray(content)) return result;
  // Indexed loops: the content is our frozen copy (copyData), and `some` / `filter` on a frozen array are V8's
  // generic path (3-4x a plain array's; a loop is the same on both). This runs for every result with parts.
  let blank = false;
  for (let i = 0; i < content.length && !blank; i++) blank = isBlankText(content[i]!);
  if (!blank) return result;
  const kept: (typeof content)[number][] = [];
  for (let i = 0; i < content.length; i++) if (!isBlankText(content[i]!)) kept.push(content[i]!);
  if (kept.length > 0) return Object.freeze({ ...result, content: Object.freeze(kept) as typeof kept });
  const { content: _blank, ...rest } = result;
  return Object.freeze(rest);
}

/** Whether `value` looks like a whole message (a `content` array, or a string where one is taken), given where its content belongs. */
function isMessage(value: unknown, strings = true): boolean {
  const content = value !== null && typeof value === 'object' ? (value as { content?: unknown }).content : undefined;
  return (strings && typeof content === 'string') || Array.isArray(content);
}

/** Why `value` is not a block array; a whole message (`{ role, content }`, the SDK's response) says to pass its content when that would do. */
function notBlocks(value: unknown, what = 'content blocks', strings = true): string {
  if (isMessage(value, strings)) {
    return `expected an array of ${what}, got a message object: pass its \`content\` (e.g. \`message.content\`), not the message`;
  }
  return `expected an array of ${what}`;
}

/**
 * Blocks given by the caller are an array of objects with a string `type`, and a text block's `text` is a string:
 * anything else is a TimelineError naming where (never a TypeError from inside the edits). The path is given as
 * its parts and built only when one is thrown: this runs on every append, and building it each time
 * (`turns/3/rounds/2/response`) cost more than the checks.
 */
function checkBlocks(
  blocks: unknown,
  turn: number,
  round: number,
  kind: BlocksKind,
  outer = -1,
  deep?: string,
): asserts blocks is readonly { readonly type: string }[] {
  if (!Array.isArray(blocks)) throw new TimelineError(deep ?? blocksPath(turn, round, kind, outer), notBlocks(blocks));
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i] as { type?: unknown; text?: unknown } | null;
    if (b === null || typeof b !== 'object' || typeof b.type !== 'string') {
      throw new TimelineError(`${deep ?? blocksPath(turn, round, kind, outer)}/${i}`, 'expected a content block with a "type"');
    }
    if (b.type === 'text' && typeof b.text !== 'string') {
      throw new TimelineError(`${deep ?? blocksPath(turn, round, kind, outer)}/${i}`, 'a text block\'s "text" must be a string');
    }
    if (b.type === 'tool_result') {
      const c = (b as { content?: unknown }).content;
      if (c === undefined || typeof c === 'string') continue;
      // A result's parts by their parts too; a result nested in a result's parts (the API refuses it) by its path.
      if (outer < 0) checkBlocks(c, turn, round, kind, i);
      else checkBlocks(c, turn, round, kind, outer, `${deep ?? blocksPath(turn, round, kind, outer)}/${i}/content`);
    }
  }
}

/** Which caller-given blocks {@link checkBlocks} looks at. */
type BlocksKind = 'user' | 'response' | 'results' | 'tail';

/** The path {@link checkBlocks} names: the blocks' own, or (outer ≥ 0) the content of the tool_result at that index. */
function blocksPath(turn: number, round: number, kind: BlocksKind, outer: number): string {
  const base = kind === 'tail' ? 'tail' : kind === 'user' ? `turns/${turn}/user` : `turns/${turn}/rounds/${round}/${kind}`;
  return outer < 0 ? base : `${base}/${outer}/content`;
}

/** A text block with nothing but whitespace (the API refuses those in requests). */
function isBlankText(block: { readonly type: string }): boolean {
  return block.type === 'text' && (block as TextBlockParam).text.trim().length === 0;
}

/**
 * Every tool_use id of the state, indexed once per chain of appends instead of
 * rescanning the history on every round. The index is keyed by the `turns`
 * array (edits that do not touch turns, like render's bookkeeping, keep it) and
 * shared along a chain of appends: appending adds the new ids to the same Set
 * and records its size for the new `turns`. A Set only grows, so an entry whose
 * recorded size no longer matches was extended by another branch (an append to
 * an older state): that state rescans once.
 */
interface IdIndex {
  readonly ids: Set<string>;
  readonly size: number;
}
const toolUseIndex = new WeakMap<readonly Turn[], IdIndex>();

/**
 * The newest entries of the few chains being extended (conversations a
 * process interleaves) are held here, most recent first, not in the WeakMap:
 * an append that extends a chain replaces its entry (the state it extended is
 * behind its chain now; appending to it again is a branch, which rescans
 * once). An entry reaches the WeakMap only when a fifth chain pushes it out,
 * so interleaved conversations cost no WeakMap write per append (one slot
 * did: two conversations in turn wrote and looked up the WeakMap on every
 * append). The slots hold those chains' turn arrays until replaced.
 */
const SLOTS = 4;
const slotTurns: (readonly Turn[] | undefined)[] = [undefined, undefined, undefined, undefined];
const slotIndex: (IdIndex | undefined)[] = [undefined, undefined, undefined, undefined];

function slotOf(turns: readonly Turn[]): number {
  for (let i = 0; i < SLOTS; i++) if (slotTurns[i] === turns) return i;
  return -1;
}

function rememberIndex(from: readonly Turn[], turns: readonly Turn[], index: IdIndex): void {
  let i = slotOf(from);
  if (i < 0) i = slotOf(turns);
  if (i < 0) {
    // A chain not held: the least recently used one makes room (its entry goes to the WeakMap).
    i = SLOTS - 1;
    const out = slotTurns[i];
    if (out !== undefined) toolUseIndex.set(out, slotIndex[i]!);
  }
  for (let j = i; j > 0; j--) {
    slotTurns[j] = slotTurns[j - 1];
    slotIndex[j] = slotIndex[j - 1];
  }
  slotTurns[0] = turns;
  slotIndex[0] = index;
}

function indexOf(turns: readonly Turn[]): IdIndex | undefined {
  const i = slotOf(turns);
  return i >= 0 ? slotIndex[i] : toolUseIndex.get(turns);
}

/** Hands the index on to an edit that added no tool_use (a user message, tool results). */
function carryIndex(from: TimelineState, to: TimelineState): TimelineState {
  const hit = indexOf(from.turns);
  if (hit && hit.ids.size === hit.size) rememberIndex(from.turns, to.turns, hit);
  return to;
}

/**
 * Where a turns array, or a turn's rounds array, came from: the arrays edits copied it from, nearest first, and
 * how many leading items (the same objects) it shares with each. Appends record it, so the renderer finds the
 * turns (and a long open turn's rounds) kept since its previous render without comparing every one: a compare
 * reads both objects (cold, late in a session: ~30 µs a request for ~500 turns in projection.ts's stableStream,
 * ~15 µs in reuse.ts's walk slot).
 *
 * A record names those arrays by number (each recorded array's own, first in its record), never holds them: a record that held the array
 * before, whose own record held the one before it, kept every rounds array of the turn alive as long as the
 * newest one (an open turn of 5,000 rounds: ~10,000 arrays, O(rounds²) memory, and each request's copies
 * promoted by the collector instead of dying young). Arrays are frozen, so a record stays true.
 */
const origins = new WeakMap<readonly unknown[], readonly number[]>();
let originIdsSoFar = 0;
/** Arrays back a record reaches: as many edits as separate two renders of a long turn, with room to spare. */
const HOPS = 8;

/**
 * Arrays up to this long are not recorded: {@link sharedLeading} compares that many items one by one in less
 * time than one WeakMap write costs (~0.2-0.4 µs, on every append), so only a long tool loop's open turn, or a
 * session of many turns, keeps the records.
 */
const NOTE_FROM = 16;

/**
 * Records that `next` holds the same objects as `from` below index `same` (only for a long array: see NOTE_FROM).
 * A record is `[own number, id, shared, id, shared, …]`: the array's own number first (what later records name it
 * by), then `from`, then the arrays `from`'s record reaches (sharing at most what `from` shares). The number lives
 * in the record, not in a second WeakMap: one WeakMap write per append, not two (`from` gets a record of its own
 * number only when it had none, a short array's first long copy).
 */
function noteOrigin(next: readonly unknown[], from: readonly unknown[], same: number): void {
  if (next.length <= NOTE_FROM) return;
  let before = origins.get(from);
  if (before === undefined) origins.set(from, (before = [++originIdsSoFar]));
  const line = [++originIdsSoFar, before[0]!, same];
  for (let i = 1; i < before.length && line.length < 2 * HOPS + 1; i += 2) line.push(before[i]!, Math.min(same, before[i + 1]!));
  origins.set(next, line);
}

/**
 * How many leading items `a` and `b` share (the same objects), at most `limit`, counted from `from` (the caller
 * knows nothing of the items before it, as a compare starting there): through the edits' records when `a` was
 * derived from `b` by a few edits, else by comparing them one by one.
 */
function sharedLeading(a: readonly unknown[], b: readonly unknown[], limit: number, from: number): number {
  if (a === b) return Math.max(from, limit);
  // Only arrays longer than NOTE_FROM have records: a shorter one is compared at once.
  let r = from;
  const line = a.length > NOTE_FROM ? origins.get(a) : undefined;
  const id = line && origins.get(b)?.[0];
  if (id !== undefined)
    for (let i = 1; i < line!.length; i += 2)
      if (line![i] === id) {
        // The record is a lower bound (a later edit may have put an item back): compared on from there, as the loop would.
        r = Math.max(r, Math.min(limit, line![i + 1]!));
        break;
      }
  while (r < limit && a[r] === b[r]) r++;
  return r;
}

/** Records that rounds array `next` holds the same rounds as `from` below index `same` (see {@link origins}). */
export function noteRounds(next: readonly Round[], from: readonly Round[], same: number): void {
  noteOrigin(next, from, same);
}

/**
 * How many leading rounds `a` and `b` share (the same objects), at most `limit`: through the edits' records when
 * `a` was derived from `b` by a few appends, else by comparing them one by one.
 */
export function sharedRounds(a: readonly Round[], b: readonly Round[], limit: number): number {
  return sharedLeading(a, b, limit, 0);
}

/** Records that turns array `next` holds the same turns as `from` below index `same` (see {@link origins}). */
export function noteTurns(next: readonly Turn[], from: readonly Turn[], same: number): void {
  noteOrigin(next, from, same);
}

/**
 * The first index at or after `from` where turns arrays `a` and `b` differ, at most `limit` (the leading turns they
 * share, when `from` is 0): through the edits' records when `a` was derived from `b` by a few edits, else compared.
 */
export function sharedTurns(a: readonly Turn[], b: readonly Turn[], limit: number, from = 0): number {
  return sharedLeading(a, b, limit, from);
}

/**
 * Hands the tool_use index of `from` on to `to`, a state derived from it by an edit that added no tool_use and
 * removed none (the render's fold of the sent tail on models that bind thinking: render/bind.ts). Without it the
 * next append to `to` rescans every round of the session.
 */
export function shareToolUseIndex(from: TimelineState, to: TimelineState): TimelineState {
  return from.turns === to.turns ? to : carryIndex(from, to);
}

function knownToolUseIds(state: TimelineState): Set<string> {
  const hit = indexOf(state.turns);
  if (hit && hit.ids.size === hit.size) return hit.ids;
  // Only the current turn can collide in practice, but ids must be unique in the whole request.
  const ids = new Set<string>();
  for (const turn of state.turns) for (const round of turn.rounds) for (const b of round.response) if (b.param.type === 'tool_use') ids.add(b.param.id);
  rememberIndex(state.turns, state.turns, { ids, size: ids.size });
  return ids;
}

/**
 * Appends tool results (and optional text the runtime injects, e.g. a format
 * error) to the current round. Results may arrive in several batches, in any
 * order; tool_result blocks always render before injected text.
 *
 * @throws {TimelineError} for a result that answers no open tool_use, or answers one twice
 */
export function appendToolResults(
  state: TimelineState,
  results: readonly ToolResultBlockParam[],
  injected: readonly (string | TextBlockParam)[] = [],
  at?: number,
): TimelineState {
  const turn = lastOf(state.turns);
  const round = turn && lastRoundOf(turn);
  if (!turn || !round) throw new TimelineError('turns', 'no round to answer: append the model response first');
  const answeredRound = answerRound(turn, round.index, round.response, round.results, round.open, round.at, results, injected, at);
  const next = withLastTurn(state, turnWithRound(turn, roundCountOf(turn) - 1, answeredRound));
  return carryIndex(state, next);
}

/**
 * The last round of `turn` (given by its parts: its index, response, results so far, open ids and stamp) with these
 * results and injected text added, frozen; checked as {@link appendToolResults} says.
 */
function answerRound(
  turn: Turn,
  roundIndex: number,
  response: readonly Block[],
  before: readonly Block[],
  wasOpen: readonly string[],
  roundAt: number | undefined,
  results: readonly ToolResultBlockParam[],
  injected: readonly (string | TextBlockParam)[],
  at: number | undefined,
): Round {
  if (!Array.isArray(results)) throw new TimelineError(`turns/${turn.index}/rounds/${roundIndex}/results`, notBlocks(results, 'tool_result blocks', false));
  checkBlocks(results, turn.index, roundIndex, 'results');
  // Plain arrays, not Sets: a round has a few open calls and results, and this runs on every append. An id is
  // open when the round's open list has it and this batch has not answered it yet (checked just before).
  const added: Block[] = [];
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    const id = r.tool_use_id;
    const path = paths.result(turn.index, roundIndex, id);
    if ((r as { type?: string }).type !== 'tool_result') throw new TimelineError(path, 'expected a tool_result block');
    if (hasId(before, id) || hasId(added, id)) throw new TimelineError(path, `tool_use "${id}" is already answered`);
    if (!wasOpen.includes(id)) {
      const open = wasOpen.filter((o) => !hasId(added, o));
      throw new TimelineError(path, `tool_result for unknown tool_use "${id}" (open: ${open.join(', ') || 'none'})`);
    }
    added.push({ id, path, param: withoutBlankParts(stripMarker(r)) });
  }
  const open: string[] = [];
  for (let i = 0; i < wasOpen.length; i++) if (!hasId(added, wasOpen[i]!)) open.push(wasOpen[i]!);
  let textCount = 0;
  for (let i = 0; i < before.length; i++) if (before[i]!.param.type !== 'tool_result') textCount++;
  const texts: Block[] = [];
  for (let i = 0; i < injected.length; i++) {
    const param = textParam(injected[i]!);
    if (isBlankText(param)) continue;
    const path = paths.injected(turn.index, roundIndex, textCount + texts.length);
    texts.push({ id: path, path, param });
  }
  if (added.length === 0 && texts.length === 0) throw new TimelineError(`turns/${turn.index}/rounds/${roundIndex}`, 'nothing to append');
  // Results before any injected text, new text last (loops, not slices: slice of a frozen array is V8's slow path).
  const merged: Block[] = [];
  let k = 0;
  while (k < before.length && before[k]!.param.type === 'tool_result') merged.push(before[k++]!);
  // Each result's param is frozen (stripMarker's copy; withoutBlankParts freezes what it makes): only the block is new.
  for (let i = 0; i < added.length; i++) merged.push(Object.freeze(added[i]!));
  while (k < before.length) merged.push(before[k++]!);
  for (let i = 0; i < texts.length; i++) merged.push(deepFreeze(texts[i]!));
  // The round's keys in appendResponse's order, `at` last (the round's own, else this append's).
  const results2 = Object.freeze(merged);
  // All answered (the usual batch): the shared empty list, one freeze less per round.
  const open2 = open.length === 0 ? NO_IDS : Object.freeze(open);
  const stamp = roundAt ?? at;
  const answeredRound: Round =
    stamp === undefined
      ? { index: roundIndex, response, results: results2, open: open2 }
      : { index: roundIndex, response, results: results2, open: open2, at: stamp };
  return Object.freeze(answeredRound);
}

function hasId(blocks: readonly Block[], id: string): boolean {
  for (let i = 0; i < blocks.length; i++) if (blocks[i]!.id === id) return true;
  return false;
}

/** Sets the volatile tail of the next request (replaces the previous one). */
export function setTail(state: TimelineState, content: string | readonly ContentBlockParam[]): TimelineState {
  const given = typeof content === 'string' ? [{ type: 'text', text: content } as TextBlockParam] : content;
  // A function is the AI SDK middleware's form (a tail computed per call); here the tail is the value itself.
  if (!Array.isArray(given)) {
    const kind = given === null ? 'null' : typeof given;
    const got =
      kind === 'function'
        ? 'a function (pass its result: tail: liveView(), not tail: liveView)'
        : kind === 'object'
          ? isMessage(given)
            ? 'a message object: pass its `content` (e.g. `message.content`), not the message'
            : 'an object'
          : kind === 'null'
            ? 'null'
            : `a ${kind}`;
    throw new TimelineError('tail', `expected a string or an array of content blocks, got ${got}`);
  }
  checkBlocks(given, 0, 0, 'tail');
  // One pass, each block frozen as built (stripMarker's copy is frozen already) and the state as a literal: a loop
  // with a volatile tail sets a new one on every request (filter + map + a deep freeze + the generic state copy
  // cost about twice as much). A block equal to the one the tail held at its place is that block again: no copy,
  // and the render's per-block memos (its tokens, its stream block) still hold for it. A tail usually keeps most of
  // its blocks (instructions, a workspace listing) and changes one (the clock, the budget).
  const kept = state.tail;
  const tail: Block[] = [];
  for (let i = 0; i < given.length; i++) {
    const b = given[i]!;
    if (isBlankText(b)) continue;
    const path = paths.tail(tail.length);
    if (b.type === 'tool_result' || b.type === 'tool_use') throw new TimelineError(path, `a ${b.type} cannot be part of the tail`);
    const was = tail.length < kept.length ? kept[tail.length]! : undefined;
    tail.push(was !== undefined && sameAsKept(was.param, b) ? was : Object.freeze({ id: path, path, param: stripMarker(b) }));
  }
  return withSpine(state, state.turns, Object.freeze(tail));
}

/**
 * Whether a given block is the kept one's param again: the same JSON once its marker is stripped (what
 * {@link stripMarker} would copy). A text block whose text differs is told at once (the usual changed tail block).
 */
function sameAsKept(param: ContentBlockParam, given: { readonly type: string }): boolean {
  if (param.type === 'text' && given.type === 'text' && param.text !== (given as TextBlockParam).text) return false;
  return sameData(param, withoutMarker(given));
}
