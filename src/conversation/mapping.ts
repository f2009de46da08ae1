/**
 * The caller's `messages` array ⇄ the timeline. Messages are mapped
 * incrementally: a conversation remembers a digest per message it already
 * holds, so a request that only appended costs only the new messages. When
 * the array does not extend what is stored (history edited or truncated), the
 * timeline is cut back to the last message both agree on and re-extended.
 */
import { base64url, sha1Bytes } from '../internal/hash.js';
import { castDraft, produce } from 'immer';
import type { ContentBlockParam, TextBlockParam, ToolResultBlockParam } from '../providers/anthropic-types.js';
import { InvalidParamsError, TimelineError } from '../errors.js';
import { contentBlockIssue } from '../internal/block-rules.js';
import type { ProviderId } from '../models/caching.js';
import { appendResponse, appendRound, appendToolResults, startTurn } from '../timeline/edit.js';
import { findBlock, turnBlocks } from '../timeline/paths.js';
import type { Block, DeferredHide, HiddenRecord, TimelineState } from '../timeline/types.js';
import type { ConsumedMessage, ConversationRecord, EnvelopeDigest, MessageMark, SentEnvelope, SentIndex, SentMessage } from './types.js';
import { sameData } from '../internal/same-data.js';

// TYPES

/** A message as the Messages API takes it (structural: any SDK version's `MessageParam` fits). */
export interface MessageLike {
  /** `system` messages (OpenAI-style loops; SDK 1.x types allow them) are taken only at the start: appended to `system`. */
  readonly role: 'user' | 'assistant' | 'system';
  readonly content: string | readonly object[];
}

// DIGESTS

/** JSON without cache markers (the renderer places its own). Native stringify unless a marker is there to strip. */
export function unmarked(value: unknown): string {
  const json = JSON.stringify(value);
  return json?.includes('"cache_control"') ? JSON.stringify(value, (k, v: unknown) => (k === 'cache_control' ? undefined : v)) : json;
}

/** A short stable hash of a string. */
export function digestOf(text: string): string {
  return base64url(sha1Bytes(text));
}

function contentDigest(role: string, blocks: readonly object[]): string {
  return digestOf(`${role}\u0000${unmarked(blocks)}`);
}

function blocksOfContent(content: MessageLike['content']): readonly object[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

interface Seen {
  readonly content: MessageLike['content'];
  readonly blocks: readonly object[] | undefined;
  readonly digest: string;
}

// Message objects already hashed in this process (for loops that send new message objects each time).
const seen = new WeakMap<object, Seen>();

/** The digest of one message: role and content blocks (a string content is one text block), markers stripped. */
export function messageDigest(message: MessageLike): string {
  const hit = seen.get(message);
  const content = message.content;
  if (hit && hit.content === content) {
    if (typeof content === 'string') return hit.digest;
    const blocks = hit.blocks!;
    if (blocks.length === content.length && blocks.every((b, i) => b === content[i])) return hit.digest;
  }
  const digest = contentDigest(message.role, blocksOfContent(content));
  seen.set(message, { content, blocks: typeof content === 'string' ? undefined : [...content], digest });
  return digest;
}

/**
 * The message as it was sent, kept in process (never exported): a loop re-sends
 * the same message objects, so recognising them by identity (the message, its
 * content and every block) costs no hashing at all. Edit a message by replacing
 * it (or its content), not in place: an in-place edit of a block is not seen.
 */
export function sentOf(message: MessageLike): SentMessage {
  const content = message.content;
  return typeof content === 'string' ? { message, role: message.role, content } : { message, role: message.role, content, blocks: [...content] };
}

/** A record's consumed messages: how many, and the (possibly longer, shared) array holding them first. */
export function consumedOf(record: Pick<ConversationRecord, 'consumed' | 'consumedCount'>): {
  readonly list: readonly ConsumedMessage[];
  readonly count: number;
} {
  return { list: record.consumed, count: record.consumedCount ?? record.consumed.length };
}

const lazyDigests = new WeakMap<ConsumedMessage, string>();

/** A consumed message's digest: stored (imported records), or computed once from what was sent. */
export function consumedDigest(c: ConsumedMessage): string {
  if (c.digest !== undefined) return c.digest;
  let d = lazyDigests.get(c);
  if (d === undefined) {
    const sent = c.sent!;
    d = contentDigest(sent.role, sent.blocks ?? blocksOfContent(sent.content));
    lazyDigests.set(c, d);
  }
  return d;
}

/** Whether a message is the one consumed at its index: by identity first, by digest otherwise. */
export function sameMessage(message: MessageLike, c: ConsumedMessage): boolean {
  const sent = c.sent;
  if (sent && sent.message === message && sent.content === message.content && sent.role === message.role) {
    const blocks = sent.blocks;
    if (!blocks) return true;
    const content = message.content as readonly object[];
    if (blocks.length === content.length) {
      let same = true;
      for (let i = 0; i < blocks.length; i++) {
        if (blocks[i] !== content[i]) {
          same = false;
          break;
        }
      }
      if (same) return true;
    }
  }
  return sameByContent(message, c);
}

// Envelope digests, memoized per array / string: a loop passes the same `tools` and `system` every time.
const arrayDigests = new WeakMap<object, { items: readonly unknown[]; digest: string }>();
const stringDigests = new Map<string, string>();
const jsonDigests = new Map<string, string>();

function digestValue(value: unknown): string {
  if (value === undefined) return '-';
  if (typeof value === 'string') {
    let d = stringDigests.get(value);
    if (d === undefined) {
      d = digestOf(JSON.stringify([{ type: 'text', text: value }]));
      if (stringDigests.size > 256) stringDigests.clear();
      stringDigests.set(value, d);
    }
    return d;
  }
  const arr = value as readonly unknown[];
  const hit = arrayDigests.get(arr);
  if (hit && hit.items.length === arr.length && hit.items.every((x, i) => x === arr[i])) return hit.digest;
  // A new array with the same content (a loop that rebuilds its params) hashes nothing: the JSON text is the key.
  const json = unmarked(arr);
  let digest = jsonDigests.get(json);
  if (digest === undefined) {
    digest = digestOf(json);
    if (jsonDigests.size > 256) jsonDigests.clear();
    jsonDigests.set(json, digest);
  }
  arrayDigests.set(arr, { items: [...arr], digest });
  return digest;
}

/** Digests of the model, system and tools a request was rendered from. */
export function envelopeDigest(params: { readonly model: string; readonly system?: unknown; readonly tools?: readonly unknown[] }): EnvelopeDigest {
  return { model: params.model, system: digestValue(params.system), tools: digestValue(params.tools ?? []) };
}

const lazyEnvelopes = new WeakMap<SentEnvelope, EnvelopeDigest>();

/**
 * A record's envelope digest: stored (imported records, or computed when the
 * envelope changed), or computed once from what was sent. In process a record
 * keeps what it sent, so the hash (SHA-1 of ~20 kB of tools, in plain JS) is
 * paid only when the state is exported or the envelope changes.
 */
export function envelopeOf(record: ConversationRecord): EnvelopeDigest {
  if (record.envelope) return record.envelope;
  const sent = record.sentEnvelope;
  if (!sent) throw new TypeError(`conversation "${record.id}": a record needs \`envelope\` or \`sentEnvelope\``);
  let d = lazyEnvelopes.get(sent);
  if (d === undefined) lazyEnvelopes.set(sent, (d = envelopeDigest(sent)));
  return d;
}

/** An index of `messages[0..n)` (fresh arrays). */
export function newSentIndex(messages: readonly MessageLike[], n: number): SentIndex {
  const idx: SentIndex = { messages: [], contents: [], roles: [], starts: [0], blocks: [] };
  addToIndex(idx, messages, 0, n);
  return idx;
}

/** Appends `messages[from..to)` to the index. */
export function addToIndex(idx: SentIndex, messages: readonly MessageLike[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const m = messages[i]!;
    const content = m.content;
    idx.messages.push(m);
    idx.contents.push(content);
    idx.roles.push(m.role);
    if (typeof content !== 'string') for (let j = 0; j < content.length; j++) idx.blocks.push(content[j]!);
    idx.starts.push(idx.blocks.length);
  }
}

/**
 * How many of the newest re-sent messages `prepare` checks in full by default
 * (`PrepareOptions.verifyRecent`): older ones are recognised by the message
 * object's identity alone.
 */
export const DEFAULT_VERIFY_RECENT = 64;

/**
 * Index of the first message that differs from the consumed ones (the shorter
 * length when one extends the other). The last `verifyRecent` of the compared
 * messages are checked in full against the index: the message object, its
 * content, role and every block by identity. Older ones by the message object
 * alone (one read of each side per message, however long the history: a
 * replaced content array or block, or a push onto the content, of a message
 * that old is not seen; a replaced message object is). Where identity misses,
 * the message is compared by content digest. `identical` says whether every
 * message up to there was recognised by identity (otherwise the index should
 * be rebuilt from this request's objects). `count`: the consumed messages of
 * this record (the array may be shared with later records, see
 * `ConversationRecord.consumedCount`).
 */
export function firstMismatchIndexed(
  messages: readonly MessageLike[],
  consumed: readonly ConsumedMessage[],
  idx: SentIndex,
  verifyRecent = DEFAULT_VERIFY_RECENT,
  count = consumed.length,
): { at: number; identical: boolean } {
  const n = Math.min(messages.length, count);
  const { messages: ms, contents, roles, starts, blocks } = idx;
  let identical = true;
  // Older than the window: the message object only (`verifyRecent` Infinity: none).
  const old = verifyRecent >= n ? 0 : n - verifyRecent;
  // Object.is, not !==: V8 compiles `a !== b` on values it has only seen be objects with a map check of both sides,
  // a read of every message object, scattered among the payloads and cold here (a render ran since): the scan cost
  // ~6 ns per message, the one part of prepare that grew with the session (×2.6 at 5,000 requests vs 50).
  // Object.is compares the references without reading the objects (~2.5 ns). Same answer for messages (objects);
  // a miss is located one by one below.
  let i0 = 0;
  while (i0 < old && Object.is(messages[i0], ms[i0])) i0++;
  for (let i = i0; i < old; i++) {
    const m = messages[i]!;
    if (m === ms[i]) continue;
    identical = false;
    if (!sameByContent(m, consumed[i]!)) return { at: i, identical };
  }
  // In the window the message object is read (its content and role), its blocks are not: compared by reference
  // (Object.is, as above), each block object stays untouched (cold: nothing else reads the caller's old blocks).
  for (let i = old; i < n; i++) {
    const m = messages[i]!;
    let same = Object.is(m, ms[i]);
    if (same) {
      const content = m.content;
      same = Object.is(content, contents[i]) && m.role === roles[i];
      if (same && typeof content !== 'string') {
        const s = starts[i]!;
        if (content.length !== starts[i + 1]! - s) same = false;
        else
          for (let j = 0; j < content.length; j++)
            if (!Object.is(content[j], blocks[s + j])) {
              same = false;
              break;
            }
      }
    }
    if (same) continue;
    identical = false;
    if (!sameByContent(m, consumed[i]!)) return { at: i, identical };
  }
  return { at: n, identical };
}

/**
 * A message that identity did not recognise (a new object: a loop that parses
 * JSON, the AI SDK, which builds its prompt afresh for every call): the same
 * as the consumed one by content. In process, first compared with what was
 * sent, value by value (the strings are usually the very ones sent, so each
 * compare is a pointer check): a cheap exact yes, never hashing the history;
 * anything it cannot vouch for is compared by digest. Not a message object: a
 * mismatch, refused with a typed error where it is mapped.
 */
function sameByContent(m: MessageLike, c: ConsumedMessage): boolean {
  if (m === null || typeof m !== 'object') return false;
  const sent = c.sent;
  if (sent !== undefined && sameAsSent(m, sent)) return true;
  return messageDigest(m) === consumedDigest(c);
}

/** Whether a message has the role and content blocks of one sent before, as their digests would compare (markers aside). */
function sameAsSent(m: MessageLike, sent: SentMessage): boolean {
  if (m.role !== sent.role) return false;
  const content = m.content;
  const was = sent.blocks ?? sent.content;
  if (typeof content === 'string' || typeof was === 'string') return content === was;
  if (!Array.isArray(content) || content.length !== was.length) return false;
  for (let i = 0; i < was.length; i++) if (!sameUnmarked(content[i], was[i])) return false;
  return true;
}

/**
 * Sound for the digest: true only when both values have the same JSON without
 * `cache_control` keys (see {@link sameData}: plain data, keys in order,
 * markers skipped); false for anything it cannot vouch for, and the caller
 * then compares digests.
 */
function sameUnmarked(a: unknown, b: unknown): boolean {
  return sameData(a, b, 'cache_control');
}

// MAPPING

/** Where the timeline stands now. */
export function markOf(state: TimelineState): MessageMark {
  const turns = state.turns;
  const turn = turns.length > 0 ? turns[turns.length - 1] : undefined;
  const rounds = turn?.rounds.length ?? 0;
  return { turns: turns.length, rounds, results: rounds > 0 ? turn!.rounds[rounds - 1]!.results.length : 0 };
}

function lastRound(state: TimelineState) {
  const turns = state.turns;
  const turn = turns.length > 0 ? turns[turns.length - 1]! : undefined;
  return turn && turn.rounds.length > 0 ? turn.rounds[turn.rounds.length - 1] : undefined;
}

function blocksOf(message: MessageLike): ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as ContentBlockParam[]);
}

/**
 * What is wrong with a block's own fields that the edits would trip over (a TypeError deep inside) or the API
 * refuse: `[field suffix, message]`, or undefined. Only the fields cachepoint reads; other types pass as they are.
 */
function blockIssue(b: ContentBlockParam, api: ProviderId): readonly [string, string] | undefined {
  const o = b as unknown as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return typeof o.text === 'string' ? undefined : ['.text', 'expected a string'];
    case 'tool_use':
      if (typeof o.id !== 'string' || o.id.length === 0) return ['.id', 'expected a non-empty string'];
      if (typeof o.name !== 'string') return ['.name', 'expected a string'];
      return o.input !== null && typeof o.input === 'object' && !Array.isArray(o.input) ? contentBlockIssue(o, api) : ['.input', 'expected an object'];
    case 'tool_result': {
      if (typeof o.tool_use_id !== 'string') return ['.tool_use_id', 'expected a string'];
      const c = o.content;
      if (c === undefined || typeof c === 'string') return undefined;
      if (!Array.isArray(c)) return ['.content', 'expected a string or an array of content blocks'];
      for (let j = 0; j < c.length; j++) {
        const x = c[j] as { type?: unknown; text?: unknown } | null;
        if (x === null || typeof x !== 'object' || typeof x.type !== 'string') return [`.content[${j}]`, 'expected a content block with a "type"'];
        if (x.type === 'text' && typeof x.text !== 'string') return [`.content[${j}].text`, 'expected a string'];
        const part = contentBlockIssue(x as Record<string, unknown>, api);
        if (part) return [`.content[${j}]${part[0]}`, part[1]];
      }
      return undefined;
    }
    default:
      // The API's own rules on the other blocks (internal/block-rules.ts): a thinking block's signature, an image's source, …
      return contentBlockIssue(o, api);
  }
}

/** An OpenAI Chat Completions message (a tool message, an assistant's `tool_calls`, a developer message). */
export function openAIChat(message: MessageLike): boolean {
  const role = message.role as string;
  return role === 'tool' || role === 'developer' || role === 'function' || 'tool_calls' in message;
}

export const OPENAI_HINT =
  ': this is an OpenAI Chat Completions message. prepare takes Anthropic Messages params; an OpenAI loop gets cache points from cachepoint/ai-sdk (the middleware, with @ai-sdk/openai) or from toOpenAIChat / toOpenAIResponses (docs/providers.md)';

/** A message's content as checked by {@link parseMessage}: its blocks, and in a user message its tool results apart. */
interface Parsed {
  readonly blocks: ContentBlockParam[];
  /** How many tool_result blocks a user message holds. */
  readonly count: number;
  /** A user message's other blocks (undefined when there are none). */
  readonly others: ContentBlockParam[] | undefined;
}

/**
 * The checks of a message on its own (not of where it goes): its role, content and blocks.
 *
 * @throws {InvalidParamsError} naming `messages[pos]`
 */
function parseMessage(message: MessageLike, pos: number, api: ProviderId): Parsed {
  // The field name of an error, built only when one is thrown (this runs for every new message).
  if (message === null || typeof message !== 'object') throw new InvalidParamsError(`messages[${pos}]`, 'expected a message object');
  if (message.role === 'system') {
    throw new InvalidParamsError(
      `messages[${pos}].role`,
      'a system-role message after the conversation started: only system messages at the start of messages are taken (appended to `system`); put this text in `system`, or send it as user text',
    );
  }
  if (message.role !== 'user' && message.role !== 'assistant') {
    const role = JSON.stringify(message.role);
    throw new InvalidParamsError(`messages[${pos}].role`, `expected "user" or "assistant", got ${role}${openAIChat(message) ? OPENAI_HINT : ''}`);
  }
  if (openAIChat(message)) throw new InvalidParamsError(`messages[${pos}].tool_calls`, `not a Messages API field${OPENAI_HINT}`);
  if (typeof message.content !== 'string' && !Array.isArray(message.content))
    throw new InvalidParamsError(`messages[${pos}].content`, 'expected a string or an array of content blocks');
  const blocks = blocksOf(message);
  // One pass: validate each block and, in a user message, split tool results from the rest (this runs for every
  // new message). No copies for the common cases: an assistant message is not split, and a user message of tool
  // results only is its own list of results.
  const user = message.role === 'user';
  let count = 0;
  let others: ContentBlockParam[] | undefined;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (b === null || typeof b !== 'object' || typeof (b as { type?: unknown }).type !== 'string') {
      throw new InvalidParamsError(`messages[${pos}].content[${i}]`, 'expected a content block with a "type"');
    }
    const issue = blockIssue(b, api);
    if (issue) throw new InvalidParamsError(`messages[${pos}].content[${i}]${issue[0]}`, issue[1]);
    if (!user) continue;
    if (b.type === 'tool_result') count++;
    else (others ??= []).push(b);
  }
  return { blocks, count, others };
}

/** A user message's tool results and the text after them (only text may follow tool results). */
function resultsOf(parsed: Parsed, pos: number): { results: ToolResultBlockParam[]; injected: TextBlockParam[] } {
  const { blocks, others } = parsed;
  const odd = others?.find((b) => b.type !== 'text');
  if (odd) {
    throw new InvalidParamsError(
      `messages[${pos}].content`,
      `a "${odd.type}" block next to tool results: put it inside the tool_result's content (only text may follow tool results here)`,
    );
  }
  const results = others ? (blocks.filter((b) => b.type === 'tool_result') as ToolResultBlockParam[]) : (blocks as ToolResultBlockParam[]);
  return { results, injected: (others ?? []) as TextBlockParam[] };
}

/**
 * Maps one message onto the timeline: a user message with tool results answers
 * the open round (its text is injected after them); any other user message
 * starts a turn; an assistant message is a round's response.
 *
 * @throws {InvalidParamsError} for a message the API would refuse in that place
 */
export function applyMessage(
  state: TimelineState,
  message: MessageLike,
  index: number,
  at: number | undefined,
  offset = 0,
  api: ProviderId = 'anthropic',
): TimelineState {
  const pos = index + offset;
  const parsed = parseMessage(message, pos, api);
  const { blocks, count } = parsed;
  try {
    if (message.role === 'assistant') {
      if (index === 0) throw new InvalidParamsError(`messages[${pos}]`, 'the first message must be a user message');
      return appendResponse(state, blocks, at);
    }
    if (count === 0) {
      const round = lastRound(state);
      if (index > 0 && round !== undefined && round.open.length > 0) {
        const open = round.open;
        throw new InvalidParamsError(
          `messages[${pos}]`,
          `tool_use ${open.join(', ')} of the previous assistant message ${open.length === 1 ? 'has' : 'have'} no tool_result (the API requires them right after it)`,
        );
      }
      return startTurn(state, blocks, at);
    }
    if (lastRound(state) === undefined) {
      // Nothing to answer (the timeline's own error names its turns, not the caller's messages).
      const k = blocks.findIndex((b) => b.type === 'tool_result');
      throw new InvalidParamsError(
        `messages[${pos}].content[${k}]`,
        `tool_result ${JSON.stringify((blocks[k] as ToolResultBlockParam).tool_use_id)} answers no tool_use: no assistant message with tool_use blocks comes before it (the API requires each tool_result right after its tool_use)`,
      );
    }
    const { results, injected } = resultsOf(parsed, pos);
    return appendToolResults(state, results, injected, at);
  } catch (err) {
    if (err instanceof TimelineError) throw new InvalidParamsError(`messages[${pos}]`, err.message, { cause: err });
    throw err;
  }
}

/**
 * An assistant message and the user message of tool results after it, mapped as one edit ({@link appendRound}:
 * the state the two {@link applyMessage} calls give, without the one in between). Undefined when the pair is not
 * that, or anything in it is refused: the caller then maps them one by one, which throws the error for the right
 * message (this only ever takes the path where both succeed).
 */
function applyRound(
  state: TimelineState,
  response: MessageLike,
  answer: MessageLike,
  index: number,
  at: number | undefined,
  answerAt: number | undefined,
  offset: number,
  api: ProviderId,
): TimelineState | undefined {
  if (index === 0 || response?.role !== 'assistant' || answer?.role !== 'user' || typeof answer.content === 'string') return undefined;
  try {
    const a = parseMessage(response, index + offset, api);
    const b = parseMessage(answer, index + 1 + offset, api);
    if (b.count === 0) return undefined;
    const { results, injected } = resultsOf(b, index + 1 + offset);
    return appendRound(state, a.blocks, results, injected, at, answerAt);
  } catch {
    return undefined;
  }
}

/**
 * Maps messages `from..` onto the state, recording a mark per message. Every
 * message is stamped `now`, except an assistant message at `respondedIndex`
 * (the response to the previous request), stamped `respondedAt`. A response
 * followed by its tool results is mapped as one edit (see {@link applyRound}). `api` is the API the request goes
 * to: the Messages API's rules on a document's or image's bytes hold for 'anthropic' only (internal/block-rules.ts).
 */
export function applyMessages(
  state: TimelineState,
  messages: readonly MessageLike[],
  from: number,
  consumed: ConsumedMessage[],
  now: number,
  respondedIndex = -1,
  respondedAt = now,
  offset = 0,
  api: ProviderId = 'anthropic',
): TimelineState {
  let s = state;
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    const mark = markOf(s);
    const at = i === respondedIndex && m?.role === 'assistant' ? respondedAt : now;
    if (i + 1 < messages.length) {
      const next = messages[i + 1]!;
      const both = applyRound(s, m, next, i, at, now, offset, api);
      if (both !== undefined) {
        s = both;
        consumed.push({ mark, sent: sentOf(m) });
        // Where the timeline stood between the two: the response's round open, no result yet.
        consumed.push({ mark: { turns: mark.turns, rounds: mark.rounds + 1, results: 0 }, sent: sentOf(next) });
        i++;
        continue;
      }
    }
    s = applyMessage(s, m, i, at, offset, api);
    consumed.push({ mark, sent: sentOf(m) });
  }
  return s;
}

/**
 * Cuts the timeline back to a mark (what it was before a message was mapped),
 * keeping every object before it (so the cache ledger still recognises the
 * blocks the provider holds), and drops the decisions that pointed past it.
 */
export function truncateTo(state: TimelineState, mark: MessageMark): TimelineState {
  const cut = produce(state, (draft) => {
    draft.turns.length = mark.turns;
    const turn = draft.turns.at(-1);
    if (!turn) return;
    turn.rounds.length = mark.rounds;
    const round = turn.rounds.at(-1);
    if (!round) return;
    if (round.results.length > mark.results) {
      round.results.length = mark.results;
      const answered = new Set(round.results.map((b) => b.id));
      round.open = castDraft(round.response.filter((b) => b.param.type === 'tool_use' && !answered.has(b.id)).map((b) => b.id));
    }
  });
  if (cut === state) return state;
  const exists = (path: string) => findBlock(cut, path) !== undefined;
  const lastTurn = cut.turns.at(-1);
  const summaries = cut.summaries.filter((s) => {
    if (s.toTurn > cut.turns.length) return false;
    if (s.toTurn === lastTurn?.index && s.throughRound !== undefined) return s.throughRound <= lastTurn.rounds.length;
    // A summary that covered a whole turn needs that turn to have ended (a later turn exists).
    return s.toTurn < cut.turns.length || s.throughRound !== undefined;
  });
  const hasNotice = cut.pruneNotice && cut.turns.some((t) => t.user.some(isNotice) || t.rounds.some((r) => r.results.some(isNotice)));
  const current = currentThinking(cut);
  return produce(cut, (draft) => {
    if (draft.pruneNotice && !hasNotice) draft.pruneNotice = false;
    for (const path of Object.keys(draft.hidden)) if ((path.startsWith('turns/') && !exists(path)) || current.has(path)) delete draft.hidden[path];
    if (summaries.length !== cut.summaries.length) draft.summaries = castDraft([...summaries]);
    draft.deferred = draft.deferred.filter((d) => !d.path.startsWith('turns/') || exists(d.path));
  });
}

/**
 * After a cut-back ({@link truncateTo} at `mark`) and the re-append of the messages from there: the re-appended
 * blocks that are the stored ones again (the same path, id and bytes, from the cut up to the first block that
 * differs) take back their stored objects and their hide decisions. Their bytes, notes included, are then the ones
 * the provider cached, and the cache ledger (identity-keyed) still recognises its entries up to the first block
 * that really changed, so the next request reads them instead of re-writing (or missing) them.
 */
export function keepUnchanged(before: TimelineState, after: TimelineState, mark: MessageMark): TimelineState {
  const from = Math.max(0, mark.turns - 1);
  const olds = before.turns.slice(from).flatMap((t) => [...turnBlocks(t)]);
  const news = after.turns.slice(from).flatMap((t) => [...turnBlocks(t)]);
  const kept = new Map<string, Block>();
  const hides: Record<string, HiddenRecord> = {};
  for (let i = 0; i < news.length && i < olds.length; i++) {
    const o = olds[i]!;
    const n = news[i]!;
    const hidden = before.hidden[o.path];
    // A kept block whose hide the cut undid (current thinking, sent again): the bytes differ from here on.
    if (o === n) {
      if (after.hidden[o.path] !== hidden) break;
      continue;
    }
    if (o.path !== n.path || o.id !== n.id || after.hidden[n.path] !== undefined) break;
    // The cut un-hides the current thinking (it must go back unchanged): not the stored bytes.
    if (hidden && (o.param.type === 'thinking' || o.param.type === 'redacted_thinking')) break;
    if (JSON.stringify(o.param) !== JSON.stringify(n.param)) break;
    kept.set(n.path, o);
    if (hidden) hides[o.path] = hidden;
  }
  if (kept.size === 0) return after;
  const deferred = before.deferred.filter((d) => kept.has(d.path) && !after.deferred.some((x) => x.path === d.path));
  return produce(after, (draft) => {
    const swap = (list: Block[]) => {
      for (let i = 0; i < list.length; i++) {
        const old = kept.get(list[i]!.path);
        if (old) list[i] = castDraft(old);
      }
    };
    for (const t of draft.turns.slice(from)) {
      swap(t.user as Block[]);
      for (const r of t.rounds) {
        swap(r.response as Block[]);
        swap(r.results as Block[]);
      }
    }
    for (const [path, h] of Object.entries(hides)) draft.hidden[path] = castDraft(h);
    if (deferred.length > 0) draft.deferred.push(...castDraft(deferred as DeferredHide[]));
  });
}

/**
 * The thinking blocks a cut-back timeline must send unchanged again: its last turn's (the current tool-use loop)
 * and, while that turn has no round yet, the newest round's before it (the latest assistant message).
 * Economy may have left them out (render/prune-rule.ts) while their turn was an earlier one.
 */
export function currentThinking(state: TimelineState): Set<string> {
  const paths = new Set<string>();
  const last = state.turns.at(-1);
  if (!last) return paths;
  let rounds = last.rounds;
  for (let t = state.turns.length - 1; rounds.length === 0 && t >= 1; t--) rounds = state.turns[t - 1]!.rounds.slice(-1);
  for (const round of rounds) for (const b of round.response) if (b.param.type === 'thinking' || b.param.type === 'redacted_thinking') paths.add(b.path);
  return paths;
}

function isNotice(b: { readonly path: string }): boolean {
  return b.path === 'notices/prune';
}
