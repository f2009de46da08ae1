/**
 * The drop-in door: `prepare(params, { conversationId })` takes the Messages
 * API params an existing loop already builds for each request and returns the
 * same request with cachepoint's cache points, the volatile tail last, and the
 * sticky prune/hide/compact decisions applied. The loop keeps its own plain
 * `messages` array; the timeline lives in a conversation store.
 */
import type { ContentBlockParam, TextBlockParam, Tool, ToolUnion } from '../providers/anthropic-types.js';
import { ConversationConflictError, ConversationStateError, HideRefusedError, InvalidOptionError, InvalidParamsError, PathNotFoundError } from '../errors.js';
import { hideBlock, recall } from '../render/hide-block.js';
import { paths } from '../timeline/paths.js';
import { canonicalModelId, diagnosticsUnavailable, resolveProfile, unsendableModelId, type ModelProfile } from '../models/profiles.js';
import type { ProviderId } from '../models/caching.js';
import { promptCost, usageTokens, type ReportedUsage } from '../models/pricing.js';
import { anthropicHeaders, toAnthropic, type RequestExtras } from '../providers/anthropic.js';
import { defaultTokenCache, resolveRenderOptions, type ResolvedRenderOptions } from '../render/options.js';
import { toolSchemaProblem } from '../internal/blocks.js';
import { contentBlockIssue, refuseBlocks } from '../internal/block-rules.js';
import { isManualThinking, refuseManualThinking, thinkingToDisable } from '../internal/loop-thinking.js';
import { optionKeys, refuseUnknownKeys } from '../internal/option-keys.js';
import { render, renderAsync, renderResolved, thinkingLostOf } from '../render/render.js';
import { streamLength } from '../render/projection.js';
import type { CachePoint, Decision, MissCause, Rendered, RenderOptions, RenderPlan, SegmentTokens } from '../render/types.js';
import { formatRequests, pendingOf, requestRecord, totalsOf, type RequestRecord, type SessionTotals } from '../session/stats.js';
import { Calibration, type CalibrationSnapshot } from '../tokens/calibration.js';
import { BlockTokenCache } from '../tokens/counter.js';
import { createTimeline, setEnvelope, setTail } from '../timeline/edit.js';
import type { TimelineState } from '../timeline/types.js';
import {
  addToIndex,
  applyMessages,
  consumedDigest,
  consumedOf,
  DEFAULT_VERIFY_RECENT,
  envelopeDigest,
  envelopeOf,
  firstMismatchIndexed,
  newSentIndex,
  OPENAI_HINT,
  openAIChat,
  sameMessage,
  keepUnchanged,
  messageDigest,
  truncateTo,
  unmarked,
  type MessageLike,
} from './mapping.js';
import { shadowLive, shadowOfCut, takeBack, withShadowLedger, withViewDetached } from './cut-shadow.js';
import { MemoryConversationStore } from './memory-store.js';
import { rehydrate } from './state.js';
import { keepCopy, sourceOf, withLedgerHint, type LocalStateReason } from './local-copy.js';
import { leaveOutUnvouched, type Unvouched } from './unvouched.js';
import { describe } from '../trace/validate.js';
import type { ConsumedMessage, ConversationRecord, ConversationStore, CutShadow, EnvelopeDigest, MessageMark, SentEnvelope, SentIndex } from './types.js';

// TYPES

/**
 * What `prepare` reads of the params: the fields that make the prompt. Any
 * other field (`max_tokens`, `thinking`, `tool_choice`, `stream`, `metadata`,
 * …) is passed through untouched. Structural, so any SDK version's
 * `MessageCreateParams` fits.
 */
export interface PrepareParams {
  readonly model: string;
  /** A string or text blocks; each block becomes one instruction block of the envelope. */
  readonly system?: string | readonly TextBlockParam[];
  // Not ToolUnion: its server tool `type` is any, which would widen an inline literal (TypeScript 5.x); `object` takes every SDK tool.
  readonly tools?: readonly (Tool | InlineObject | object)[];
  /** The whole conversation so far, oldest first, ending with a user message. */
  readonly messages: readonly InlineMessage[];
  // Pass-through fields whose SDK types are literal unions: named here only so an
  // inline literal keeps its literals (see InlineValue); any value is accepted.
  readonly thinking?: InlineValue;
  readonly tool_choice?: InlineValue;
  readonly output_config?: InlineValue;
  readonly container?: InlineValue;
  readonly diagnostics?: InlineValue;
  readonly metadata?: InlineValue;
  readonly service_tier?: InlineValue;
  readonly speed?: InlineValue;
  readonly stream?: InlineValue;
}

/**
 * Any value, as the contextual type of a field `prepare` passes through. TypeScript
 * widens the string literals of an inline object literal (`{ type: 'enabled' }`
 * becomes `{ type: string }`) unless the expected type at that position holds string
 * literals; `P` is inferred from the literal, so without this `prepare`'s inline params
 * came back as types the SDK's `create` (literal unions everywhere) refuses. The `''`
 * member keeps every string literal; `object` keeps SDK interfaces (which do not
 * assign to an index signature) assignable.
 */
type InlineValue = '' | (string & {}) | number | boolean | null | undefined | object | readonly InlineValue[] | InlineObject;

/** An object of {@link InlineValue}s: keeps the string literals of an inline block, tool or config. */
interface InlineObject {
  readonly [key: string]: InlineValue;
}

/** A message of `prepare`'s params: any SDK version's `MessageParam`, or an inline literal whose block kinds stay literal. */
type InlineMessage = InlineChatMessage | InlineSystemMessage;

interface InlineChatMessage extends MessageLike {
  readonly role: 'user' | 'assistant';
  readonly content: string | readonly (object | InlineObject)[];
}

/**
 * A system-role message: `MessageParam`'s (SDK 1.x), or the beta's `BetaSystemMessageParam` (SDK 1.16), whose
 * content is optional and which may say `clear_at` / `output_config`; only leading plain-text ones are taken.
 */
interface InlineSystemMessage {
  readonly role: 'system';
  readonly content?: string | readonly (object | InlineObject)[] | undefined;
  readonly clear_at?: InlineValue;
  readonly output_config?: InlineValue;
}

/** The element type of an array type (`never` for `undefined`). */
type ItemOf<A> = A extends readonly (infer T)[] ? T : never;

/**
 * The params `prepare` returns: yours, with the prompt fields rendered. The
 * messages and tools keep the types you passed (your SDK version's
 * `MessageParam` and `ToolUnion` when you typed them so; a leading `system`
 * message moves to `system`), so the params go to that SDK's
 * `client.messages.create` as they are, whichever version it is.
 */
export type PreparedParams<P extends PrepareParams> = Omit<P, 'system' | 'tools' | 'messages'> & {
  system?: TextBlockParam[];
  tools?: ItemOf<P['tools']>[];
  messages: Exclude<ItemOf<P['messages']>, { readonly role: 'system' }>[];
};

/** Options of {@link prepare}. */
export interface PrepareOptions {
  /** Your key for the agent session (chat id, task id, …). */
  readonly conversationId: string;
  /** Where the conversation's state lives. Default: one in-memory store per process ({@link defaultConversationStore}). */
  readonly store?: ConversationStore;
  /**
   * The volatile end of this request (live view, budget, clock, workspace
   * state): rendered after the last cache point, never cached, never kept.
   * Keep it out of `messages`: content inside `messages` is history.
   */
  readonly tail?: string | readonly ContentBlockParam[];
  /** Render options (policy, TTLs, thresholds, summarizer, profiles, …), as for `render`. */
  readonly render?: Omit<RenderOptions, 'now' | 'tokenFactor'>;
  /** Render time in ms (default Date.now()). */
  readonly now?: number;
  /**
   * Ask the API for its cache diagnostics (adds `diagnostics: { previous_message_id }`
   * to the params); pass each response to {@link recordUsage} so its miss reason is
   * recorded next to the plan's predicted cause. The Claude API only: refused (`InvalidParamsError`)
   * with a Bedrock or Vertex model id. Default false.
   */
  readonly diagnostics?: boolean;
  /**
   * When the store fails (I/O, Redis down): `'fallback'` (default) renders from the
   * messages alone, without stored decisions, and says so in `plan.resync`;
   * `'throw'` throws the store's error.
   */
  readonly onStoreError?: 'fallback' | 'throw';
  /**
   * Blocks the agent asked to hide (what `Session.hide` does), applied after this
   * request's messages are mapped: a block path (`turns/3/rounds/2/results/toolu_01`)
   * or `{ toolUseId }` for that call's result, with an optional note. Sticky: the
   * hide is saved with the conversation, so pass it once (passing it again is a
   * no-op). Read the payload back with {@link recallFromConversation}. A hide
   * outside the editable zone throws `HideRefusedError` (nothing is saved)
   * unless `defer: true`, which applies it at the next prune, as in `Session`.
   */
  readonly hide?: readonly HideRequest[];
  /**
   * How many of the newest re-sent messages are checked in full: the message
   * object, its content array, its role and every block, by identity (a new
   * object is compared by content). Messages older than that are recognised by
   * the message object alone, so a request's cost does not grow with the
   * length of the history. Default 64.
   *
   * The contract this gives: to edit a message older than the last
   * `verifyRecent`, **replace the message object** (the usual immutable update,
   * `messages[i] = { ...messages[i], content: edited }`); a replaced content
   * array, a replaced block or a push onto the content of a message that old,
   * on the same message object, is not seen (the stored conversation keeps the
   * message as it was first sent). `Infinity` checks every message as in the
   * window (each request then reads the whole history). An in-place change of a
   * block object (`block.text = …`) is never seen, at any age: replace the
   * block. A conversation loaded from a store another process wrote has no
   * objects to compare by identity: its first request here compares every
   * message by content.
   */
  readonly verifyRecent?: number;
}

/** A block to hide: its path, or the tool_use id whose result to hide. */
export type HideRequest =
  | string
  | {
      readonly path?: string;
      /** The id of a tool call: its result is hidden (the path is looked up, newest turn first). */
      readonly toolUseId?: string;
      /** A few words for the note the model sees (why it was hidden). */
      readonly note?: string;
      /** Outside the editable zone: apply at the next prune instead of throwing. */
      readonly defer?: boolean;
      /** Apply even when the cost gate says the re-write does not pay back yet. */
      readonly force?: boolean;
    };

/** What became of one {@link HideRequest}. */
export interface HideOutcome {
  readonly path: string;
  /** `hide` (applied now), or `defer` (at the next prune or cold window, with why). */
  readonly decision: Decision;
}

/** Why `prepare` rebuilt (part of) the timeline instead of extending it. */
export type ResyncReason =
  /** A message already mapped differs from the stored one (history edited). */
  | 'history_edited'
  /** Fewer messages than stored (history truncated, or a retry dropped the last response). */
  | 'history_truncated'
  /** The model, system prompt or tool catalog changed: the API's own miss causes. */
  | Exclude<MissCause, 'messages_changed'>
  /** The store could not be read: rendered from the messages alone, without stored decisions. */
  | 'store_unavailable'
  /**
   * The store has no state for this conversation while the messages carry history (a record expired, evicted or
   * deleted; a new process with the in-memory store): rendered from the messages alone, without stored decisions
   * (with what this process sent last as a cache hint, when it did: local-copy.ts).
   */
  | 'no_stored_state';

/** How a resync happened. */
export interface Resync {
  readonly reason: ResyncReason;
  /** Index of the first message that did not match the stored ones (for history resyncs). */
  readonly at?: number;
  /** One sentence for logs. */
  readonly detail: string;
}

/** What `prepare` did: the render's plan plus where the conversation stands. */
export interface PreparePlan extends RenderPlan {
  readonly conversationId: string;
  /**
   * The revision saved for this request (the store's optimistic version: 1 for a new conversation, then +1 a
   * request), or `null` when nothing was saved: the store failed at load (`resync.reason === 'store_unavailable'`:
   * which revision it holds is unknown) or at save (`unsaved`). The next request that reaches the store goes on from
   * the revision it holds.
   */
  readonly revision: number | null;
  /** Turn and round this request is for. */
  readonly turn: number;
  readonly round: number;
  /** Messages mapped onto the timeline by this call (0 for a retry of the same request). */
  readonly appended: number;
  /** Set when the messages did not simply extend the stored conversation. */
  readonly resync?: Resync;
  /** Set when the new state could not be saved (the request is still valid). */
  readonly unsaved?: string;
  /**
   * Set when the request was rendered from this process's copy of the conversation (the state it rendered last)
   * instead of the store's: the store failed at load (`store_unavailable`: nothing saved), or it held an older state
   * because the save after an earlier request of this process failed (`unsaved`: saved over the store's revision).
   * The sticky decisions are kept, as with the store up. Never when another worker saved the conversation since.
   */
  readonly localState?: { readonly reason: LocalStateReason; readonly detail: string };
  readonly cachePoints: readonly CachePoint[];
  readonly decisions: readonly Decision[];
  readonly tokens: SegmentTokens;
  /** What became of `options.hide`, in order (absent when none was passed). */
  readonly hides?: readonly HideOutcome[];
  /**
   * Manual extended thinking (`thinking.type: "enabled"`) whose open tool loop's assistant turn does not start with a
   * thinking block and holds none (e.g. a compaction summarized the loop's first rounds): the request is sent with
   * `thinking: { type: 'disabled' }`, the API's own remedy, and this says why. Absent otherwise.
   */
  readonly thinkingDisabled?: string;
  /**
   * Tokens of the prefill (a trailing assistant message), absent without one. It
   * is sent after the tail, so the API bills it as uncached input: it is counted
   * in `usage.input_tokens`, `cost` and `tokens.total` (`rendered.plan` leaves it out).
   */
  readonly prefillTokens?: number;
}

/** The result of {@link prepare}. */
export interface Prepared<P extends PrepareParams> {
  /** Pass these to `client.messages.create` (or `.stream`). */
  readonly params: PreparedParams<P>;
  /**
   * HTTP headers the request needs besides the params (`anthropic-beta` for a 1M-window
   * profile, else none): `client.messages.create(params, { headers })`.
   */
  readonly headers: Readonly<Record<string, string>>;
  readonly plan: PreparePlan;
  /** The full render (stream, cache points, state) for inspection and snapshots. */
  readonly rendered: Rendered;
}

/** Where a conversation is: its id and store (default store when omitted). */
export interface ConversationRef {
  readonly conversationId: string;
  readonly store?: ConversationStore;
  /** Clock (ms) for the record's timestamps. Default Date.now(). */
  readonly now?: number;
}

/** Cache figures of a conversation, as `Session.stats()` gives them for a session. */
export interface ConversationStats {
  readonly requests: readonly RequestRecord[];
  readonly totals: SessionTotals;
  /** Local token estimate × this ≈ the provider's count. */
  readonly calibration: number;
  /** The latest render still waiting for its usage. */
  readonly pendingUsage: boolean;
}

// IMPLEMENTATION

type Writable<T> = { -readonly [K in keyof T]: T[K] };

let defaultStore: MemoryConversationStore | undefined;

/** The process-wide in-memory store `prepare` uses when no `store` is given. */
export function defaultConversationStore(): MemoryConversationStore {
  return (defaultStore ??= new MemoryConversationStore());
}

/** The keys of {@link PrepareOptions}: any other is a typo, refused (a misspelled `tail` would silently drop the tail). */
const PREPARE_OPTION_KEYS = optionKeys<PrepareOptions>({
  conversationId: true,
  store: true,
  tail: true,
  render: true,
  now: true,
  diagnostics: true,
  onStoreError: true,
  hide: true,
  verifyRecent: true,
});
const REF_KEYS = optionKeys<ConversationRef>({ conversationId: true, store: true, now: true });

/** The last model id found sendable: a loop sends the same one on every request (the check is a regex). */
let sendableModel: string | undefined;

/** What a `messages` that is not an array is, and the fix for the usual two (one message, the user's text). */
function notMessages(value: unknown): string {
  if (typeof value === 'string') return "a string: send [{ role: 'user', content: '…' }]";
  if (value !== null && typeof value === 'object' && 'role' in value) return 'one message object: send [{ role, content }]';
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
}

function validate(params: PrepareParams, options: PrepareOptions): void {
  if (typeof options?.conversationId !== 'string' || options.conversationId.length === 0) {
    throw new InvalidParamsError('options.conversationId', 'a non-empty string is required');
  }
  refuseUnknownKeys(options, PREPARE_OPTION_KEYS);
  checkStore(options.store, 'options.store');
  if (params === null || typeof params !== 'object') throw new InvalidParamsError('params', 'expected the Messages API params object');
  if (typeof params.model !== 'string' || params.model.length === 0) throw new InvalidParamsError('model', 'a model id is required');
  if (params.model !== sendableModel) {
    const unsendable = unsendableModelId(params.model);
    if (unsendable) throw new InvalidParamsError('model', unsendable);
    sendableModel = params.model;
  }
  if (!Array.isArray(params.messages)) throw new InvalidParamsError('messages', `expected an array of messages, got ${notMessages(params.messages)}`);
  if (params.messages.length === 0) throw new InvalidParamsError('messages', 'at least one message is required');
  if (params.system !== undefined && typeof params.system !== 'string' && !Array.isArray(params.system)) {
    throw new InvalidParamsError('system', 'expected a string or an array of text blocks');
  }
  if (params.tools !== undefined && !Array.isArray(params.tools)) throw new InvalidParamsError('tools', 'expected an array of tool definitions');
  // Checked by value, not truthiness: `diagnostics: 'yes'` would ask the API for diagnostics, `onStoreError: 'ignore'` fall back.
  const d = options.diagnostics;
  if (d !== undefined && typeof d !== 'boolean') throw new InvalidParamsError('options.diagnostics', `expected true or false, got ${JSON.stringify(d)}`);
  const unavailable = d === true ? diagnosticsUnavailable(params.model) : undefined;
  if (unavailable) throw new InvalidParamsError('options.diagnostics', unavailable);
  const e = options.onStoreError;
  if (e !== undefined && e !== 'fallback' && e !== 'throw') {
    throw new InvalidParamsError('options.onStoreError', `expected 'fallback' or 'throw', got ${JSON.stringify(e)}`);
  }
  const k = options.verifyRecent;
  if (k !== undefined && !(typeof k === 'number' && k >= 0 && (Number.isInteger(k) || k === Number.POSITIVE_INFINITY))) {
    throw new InvalidParamsError('options.verifyRecent', 'expected a whole number of messages ≥ 0, or Infinity (check every message)');
  }
  if (options.hide !== undefined) {
    if (!Array.isArray(options.hide)) throw new InvalidParamsError('options.hide', 'expected an array of block paths or { toolUseId } objects');
    options.hide.forEach((h: unknown, i) => {
      const o = h as { path?: unknown; toolUseId?: unknown; note?: unknown };
      const ok =
        (typeof h === 'string' && h.length > 0) ||
        (h !== null &&
          typeof h === 'object' &&
          (typeof o.path === 'string') !== (typeof o.toolUseId === 'string') &&
          (o.note === undefined || typeof o.note === 'string'));
      if (!ok)
        throw new InvalidParamsError(
          `options.hide[${i}]`,
          'expected a block path, or an object with exactly one of `path` and `toolUseId` (and an optional string `note`)',
        );
    });
  }
}

/**
 * The system blocks and tools, one by one: checked only when the envelope is built from them (the first request,
 * or one whose system or tools differ from those sent before). Re-sent ones equal what was checked when they were
 * first sent (by identity, or structurally), and the request is rendered from the stored copy: reading every tool
 * object of the caller again cost a cache miss per tool on every request.
 */
function validateEnvelope(params: PrepareParams): void {
  if (Array.isArray(params.system)) {
    const system = params.system;
    for (let i = 0; i < system.length; i++) {
      const b = system[i];
      if (b?.type !== 'text' || typeof b.text !== 'string') throw new InvalidParamsError(`system[${i}]`, 'expected a text block');
    }
  }
  if (params.tools) {
    const tools = params.tools as readonly unknown[];
    for (let i = 0; i < tools.length; i++) {
      const t = tools[i] as { name?: unknown } | null;
      if (t === null || typeof t !== 'object' || typeof t.name !== 'string' || t.name.length === 0)
        throw new InvalidParamsError(`tools[${i}]`, 'expected a tool definition with a non-empty "name"');
      const problem = toolSchemaProblem(t as Record<string, unknown>);
      if (problem) throw new InvalidParamsError(`tools[${i}].input_schema`, problem);
    }
  }
}

/** The params without their leading system-role messages: every message has its content (checked as it is mapped). */
type SplitParams = Omit<PrepareParams, 'messages'> & { readonly messages: readonly MessageLike[] };

/**
 * What `prepare` renders from the caller's params: the system prompt (with any
 * leading system-role messages appended to it), the conversation (what the
 * timeline holds), and a prefill (a trailing assistant message: sent after the
 * tail, never cached, never kept).
 */
interface Split {
  readonly params: SplitParams;
  /** Index in the caller's `messages` of the conversation's first message (= leading system-role messages). */
  readonly offset: number;
  /** The trailing assistant message: a prefill (text), or a paused turn ({@link isPausedTurn}). */
  readonly prefill?: ContentBlockParam[];
}

/** Text blocks of a system-role message (a string, or text parts as OpenAI-style loops send them). */
function systemTexts(m: MessageLike, i: number): TextBlockParam[] {
  const where = `messages[${i}]`;
  // The beta's system messages (SDK 1.16 BetaSystemMessageParam) may say more than text: moved into `system`, a
  // message cleared at the next user message would stay for good, and a per-message output_config would be lost.
  const beta = m as { clear_at?: unknown; output_config?: unknown };
  if (beta.clear_at !== undefined && beta.clear_at !== null && beta.clear_at !== 'never') {
    throw new InvalidParamsError(
      `${where}.clear_at`,
      `${JSON.stringify(beta.clear_at)}: a leading system-role message is taken into \`system\`, which is never cleared; send a message cleared at the next user message as user text instead`,
    );
  }
  if (beta.output_config !== undefined && beta.output_config !== null) {
    throw new InvalidParamsError(
      `${where}.output_config`,
      'a leading system-role message is taken into `system`, which has no per-message output_config; set output_config on the request',
    );
  }
  const content = m.content as unknown;
  const parts =
    typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? (content as { type?: unknown; text?: unknown }[]) : [];
  if (typeof content !== 'string' && !Array.isArray(content)) throw new InvalidParamsError(`${where}.content`, 'expected a string or an array of text blocks');
  return parts.flatMap((p, k) => {
    if (p?.type !== 'text' || typeof p.text !== 'string') throw new InvalidParamsError(`${where}.content[${k}]`, 'a system-role message may hold only text');
    return p.text.trim().length > 0 ? [{ type: 'text' as const, text: p.text }] : [];
  });
}

/**
 * Claude 4.6 and later models answer a prefill with a 400 ("This model does not
 * support assistant message prefill"); the migration guide points to structured
 * outputs (`output_config.format`) or system prompt instructions instead.
 */
function prefillUnsupported(modelId: string): boolean {
  const m = /^claude-[a-z]+-(\d+)(?:-(\d{1,2}))?(?!\d)/.exec(modelId);
  if (!m) return false; // older naming (claude-3-7-sonnet) or a custom id: prefill is the API's default
  const major = Number(m[1]);
  const minor = Number(m[2] ?? 0);
  return major > 4 || (major === 4 && minor >= 6);
}

/**
 * Arrays of messages already scanned with no two assistant messages in a row: how many, and the last of them. The
 * same array seen again with that message still at that place is scanned from there on (an array edited in place
 * further back is seen by recognition, which re-maps from the edit). Without it each request read every message's
 * role: ~3 µs per 1,000 messages, the one step of prepare left linear in the history besides recognition's reads.
 */
const runFree = new WeakMap<readonly MessageLike[], { length: number; last: MessageLike | undefined }>();

/**
 * Consecutive assistant messages as one, as the API takes them: the Messages API reference on `messages` says
 * "Consecutive `user` or `assistant` turns in your request will be combined into a single turn" (the
 * `MessageCreateParams.messages` doc comment of @anthropic-ai/sdk 1.14, generated from the API's reference; read
 * 2026-12-01, also found via `search`). The merged form is what is mapped, stored and sent: a loop that writes a
 * response's text and its tool_use as two messages maps onto one round, and the next request merges the same run
 * the same way (no resync). Consecutive user messages are already mapped as the API takes them. The same array is
 * returned when nothing is merged (the hot path allocates nothing). Message positions in errors after a merged run
 * count the merged messages.
 */
function mergeAssistantRuns(messages: readonly MessageLike[]): readonly MessageLike[] {
  const n = messages.length;
  let k = 1;
  // A loop that pushes onto one array: only what was pushed since is looked at (the scan read every message).
  const seen = runFree.get(messages);
  if (seen && seen.length <= n && messages[seen.length - 1] === seen.last) k = seen.length;
  while (k < n && !(messages[k]?.role === 'assistant' && messages[k - 1]?.role === 'assistant')) k++;
  if (k >= n) {
    // The entry is updated in place: a WeakMap write on every request cost more than the rest of this scan.
    if (seen) {
      seen.length = n;
      seen.last = messages[n - 1];
    } else if (n > 0) runFree.set(messages, { length: n, last: messages[n - 1] });
    return messages;
  }
  const out: MessageLike[] = messages.slice(0, k - 1);
  for (let i = k - 1; i < messages.length; i++) {
    const m = messages[i]!;
    const prev = out.at(-1);
    if (m?.role === 'assistant' && prev?.role === 'assistant') {
      const blocks = (c: unknown): readonly object[] | undefined =>
        typeof c === 'string' ? (c.length > 0 ? [{ type: 'text', text: c }] : []) : Array.isArray(c) ? (c as object[]) : undefined;
      const a = blocks(prev.content);
      const b = blocks(m.content);
      // Content the API would refuse is left as it is, to be refused where it is mapped.
      if (a !== undefined && b !== undefined) {
        out[out.length - 1] = { role: 'assistant', content: [...a, ...b] };
        continue;
      }
    }
    out.push(m);
  }
  return out;
}

/**
 * A trailing assistant message that is a paused turn (stop_reason `pause_turn`), not a prefill: it holds a server
 * tool's blocks (server_tool_use, a *_tool_result, ...) and no client tool_use. The API docs ("Handling stop
 * reasons", platform.claude.com/docs/en/build-with-claude/handling-stop-reasons; the SDK's `stop_reason` doc:
 * "pause_turn: we paused a long-running turn. You may provide the response back as-is in a subsequent request to
 * let the model continue", quoted in anthropics/anthropic-sdk-python#1648; read via `search` 2026-12-01) say to send
 * it back as the last message. It is mapped (kept, cached) like any response, and sent last.
 */
function isPausedTurn(blocks: readonly { type?: unknown }[]): boolean {
  return blocks.some((b) => b?.type !== 'text') && !blocks.some((b) => b?.type === 'tool_use');
}

function split(params: PrepareParams): Split {
  // A beta system message's content may be absent (its type says so): systemTexts refuses it, naming the message.
  const messages = mergeAssistantRuns(params.messages as readonly MessageLike[]);
  let lead = 0;
  while (lead < messages.length && messages[lead]?.role === 'system') lead++;
  let end = messages.length;
  let prefill: ContentBlockParam[] | undefined;
  const last = messages[end - 1];
  if (end > lead && last?.role === 'assistant' && Array.isArray(last.content) && isPausedTurn(last.content as { type?: unknown }[])) {
    // Sent last like a prefill (after the tail, unmarked: the caller's markers are dropped), and not kept: the next
    // request holds it again, with the rest of the turn merged into it (mergeAssistantRuns), as a plain append.
    const blocks = last.content as Record<string, unknown>[];
    blocks.forEach((b, k) => {
      const issue = b !== null && typeof b === 'object' ? contentBlockIssue(b as never) : (['', 'expected a content block'] as const);
      if (issue) throw new InvalidParamsError(`messages[${end - 1}].content[${k}]${issue[0]}`, issue[1]);
    });
    prefill = blocks.map(
      (b) => ('cache_control' in b ? Object.fromEntries(Object.entries(b).filter(([key]) => key !== 'cache_control')) : b) as unknown as ContentBlockParam,
    );
    end--;
  } else if (end > lead && last?.role === 'assistant') {
    const i = end - 1;
    const where = `messages[${i}]`;
    const content = last.content as unknown;
    const blocks = (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : undefined) as
      | { type?: unknown; text?: unknown }[]
      | undefined;
    if (openAIChat(last as MessageLike)) throw new InvalidParamsError(`${where}.tool_calls`, `not a Messages API field${OPENAI_HINT}`);
    if (!blocks) throw new InvalidParamsError(`${where}.content`, 'expected a string or an array of content blocks');
    blocks.forEach((b, k) => {
      if (b?.type !== 'text' || typeof b.text !== 'string') {
        throw new InvalidParamsError(
          `${where}.content[${k}]`,
          "a trailing assistant message is sent as a prefill, which holds only text; if this is the model's response, append the tool results or the next user message after it",
        );
      }
    });
    // An empty prefill is left out (nothing to continue from), so nothing below can refuse it.
    const texts = blocks.map((b) => ({ type: 'text' as const, text: b.text as string })).filter((b) => b.text.length > 0);
    if (texts.length > 0) {
      const fix = 'use structured outputs (output_config.format) or an instruction in `system` instead';
      if (prefillUnsupported(canonicalModelId(params.model))) {
        throw new InvalidParamsError(
          where,
          `the request ends with an assistant message (a prefill), which ${params.model} refuses (Claude 4.6 and later): ${fix}`,
        );
      }
      const thinking = (params as { thinking?: { type?: string } }).thinking;
      if (thinking && thinking.type !== 'disabled') {
        throw new InvalidParamsError(
          where,
          `a prefill (trailing assistant message) is not available with extended thinking (thinking.type "${thinking.type}"): ${fix}`,
        );
      }
      if (/\s$/.test(texts.at(-1)!.text)) throw new InvalidParamsError(where, 'a prefill cannot end with whitespace (the API refuses it): trim it');
      if (texts.some((b) => b.text.trim().length === 0)) throw new InvalidParamsError(where, 'a prefill text block must contain non-whitespace text');
    }
    prefill = texts.length > 0 ? texts : undefined;
    end--;
  }
  // A system-role message after the start is refused where it is mapped (applyMessage, same words); a message
  // already mapped was recognised as the one sent (role included), so it cannot be one.
  if (end === lead) throw new InvalidParamsError('messages', 'at least one user message is required (besides system-role messages and a prefill)');
  if (messages[end - 1]?.role === 'assistant') {
    throw new InvalidParamsError(
      `messages[${end - 1}]`,
      'two assistant messages at the end: a prefill must follow a user message (merge the response and the prefill into one message)',
    );
  }
  if (lead === 0 && end === messages.length) return { params: messages === params.messages ? (params as SplitParams) : { ...params, messages }, offset: 0 };
  let system = params.system;
  if (lead > 0) {
    const base: TextBlockParam[] = typeof system === 'string' ? (system.trim().length > 0 ? [{ type: 'text', text: system }] : []) : [...(system ?? [])];
    const extra = messages.slice(0, lead).flatMap((m, i) => systemTexts(m, i));
    system = [...base, ...extra];
  }
  return {
    params: { ...params, ...(system !== undefined ? { system } : {}), messages: messages.slice(lead, end) },
    offset: lead,
    ...(prefill ? { prefill } : {}),
  };
}

/**
 * The messages end with tool results that answer only some of the previous assistant message's tool_use blocks (a
 * loop that pushed the results it had). Mapped, that is a round still open, and the request would go out with a
 * tool_use and no tool_result: the API answers 400 "`tool_use` ids were found without `tool_result` blocks
 * immediately after: … Each `tool_use` block must have a corresponding `tool_result` block in the next message"
 * (its wording in anthropics/claude-code#1237, 2025-05-22, and Kilo-Org/kilocode#5163, 2026-01-17).
 */
function refuseUnanswered(state: TimelineState, last: number): void {
  // Indexed reads, not `.at(-1)`: the state's arrays are frozen, and `at` on a frozen array is V8's generic path.
  const turns = state.turns;
  const rounds = turns.length > 0 ? turns[turns.length - 1]!.rounds : undefined;
  const open = rounds !== undefined && rounds.length > 0 ? rounds[rounds.length - 1]!.open : undefined;
  if (open === undefined || open.length === 0) return;
  throw new InvalidParamsError(
    `messages[${last}]`,
    `tool_use ${open.join(', ')} of the previous assistant message ${open.length === 1 ? 'has' : 'have'} no tool_result (the API requires a tool_result for every tool_use, in the user message right after it)`,
  );
}

/** The result path of a tool call (newest turn first). */
function resultPath(state: TimelineState, toolUseId: string): string | undefined {
  for (let t = state.turns.length - 1; t >= 0; t--) {
    const turn = state.turns[t]!;
    for (const round of turn.rounds) if (round.results.some((b) => b.id === toolUseId)) return paths.result(turn.index, round.index, toolUseId);
  }
  return undefined;
}

/** Applies the agent's hides to the state (as `Session.hide` would, at render time). */
function applyHides(
  state: TimelineState,
  hides: readonly HideRequest[],
  renderOptions: PrepareOptions['render'],
  now: number,
): { state: TimelineState; outcomes: HideOutcome[] } {
  const outcomes: HideOutcome[] = [];
  let s = state;
  for (const h of hides) {
    const req = typeof h === 'string' ? { path: h } : h;
    const path = req.path ?? resultPath(s, req.toolUseId!);
    if (path === undefined) throw new HideRefusedError(`tool_use ${req.toolUseId}`, 'unknown_path', 'no tool result with this tool_use id in the conversation');
    const { note, defer, force } = req as Exclude<HideRequest, string>;
    const r = hideBlock(s, path, {
      ...renderOptions,
      now,
      ...(note !== undefined ? { note } : {}),
      ...(defer !== undefined ? { defer } : {}),
      ...(force !== undefined ? { force } : {}),
    });
    s = r.state;
    outcomes.push({ path, decision: r.decision });
  }
  return { state: s, outcomes };
}

function instructionsOf(system: PrepareParams['system']): (string | TextBlockParam)[] {
  if (system === undefined) return [];
  if (typeof system === 'string') return system.trim().length > 0 ? [system] : [];
  return system.filter((b) => b.text.trim().length > 0);
}

const unmarkedJson = unmarked;

/**
 * Structural equality of JSON-shaped values. Key order is not compared: a
 * reordered but otherwise equal object keeps the bytes already sent, which is
 * the same request to the API and keeps the cache. No allocation (for-in, not
 * Object.keys) and no call per leaf: this runs over system and tools on every
 * request of a loop that rebuilds them.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return sameNode(a, b);
}

/** Two values equal by identity, or both objects with equal content (primitives compared inline: no call per leaf). */
function sameValue(x: unknown, y: unknown): boolean {
  return x === y || (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null && sameNode(x, y));
}

function sameNode(a: object, b: object): boolean {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  // for-in without hasOwn: JSON-shaped params inherit nothing enumerable, and both sides are walked the same way.
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    n++;
    if (!sameValue(x[k], y[k])) return false;
  }
  for (const _ in y) n--;
  return n === 0;
}

/**
 * Whether this request's model, system and tools are the ones the previous
 * request sent (by identity, or structurally for a loop that rebuilds them):
 * no JSON text, no hashing. False when they differ or were not kept (an
 * imported record): then the digests decide.
 */
function unchangedEnvelope(record: ConversationRecord | undefined, params: PrepareParams): boolean {
  const sent = record?.sentEnvelope;
  if (!sent || sent.model !== params.model) return false;
  const system = params.system;
  const tools = params.tools ?? [];
  // The same objects (a loop that keeps them): identity answers, as in sameJson, without a walk.
  if ((system === sent.system || sameItems(system, sent.system)) && sameItems(tools, sent.tools)) return true;
  // Rebuilt: walked against the flat form of what was sent; anything else (another key order) by sameJson.
  let flat = flats.get(sent);
  if (flat === undefined) flats.set(sent, (flat = { system: flatten(sent.system, []), tools: flatten(sent.tools, []) }));
  return (inFlat(system, flat.system) || sameJson(system, sent.system)) && (inFlat(tools, flat.tools) || sameJson(tools, sent.tools));
}

/** Two arrays of the same items by identity (a loop that keeps its tool objects; the sent list is a copy). */
function sameItems(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/*
 * A loop that rebuilds its system and tools for every request sends ~20 kB of new objects each time, compared with
 * the sent ones in full (a change anywhere is a change). sameJson reads both sides by key (a keyed lookup into the
 * sent object per value, a second pass over its keys per object); the flat form of the sent side lays out what that
 * compare reads in the order a walk meets it, so the new objects are walked once (for-in, each key compared by
 * pointer: property names are internalized) against a list read in order. Objects and arrays keep the sent object
 * and where they end: one re-sent as the same object is skipped, as sameJson skips it. It says yes only where
 * sameJson would (same keys in the same order, the same values by ===); a no is left to sameJson, which also takes
 * another key order. Made once per sent envelope (the conversation keeps it while the envelope does not change).
 */
const OBJECT = Symbol('object');
const ARRAY = Symbol('array');
const END = Symbol('end');
const flats = new WeakMap<SentEnvelope, { readonly system: unknown[]; readonly tools: unknown[] }>();

/** Appends the flat form of `v` to `out`: a primitive; or OBJECT, the object, its end, its keys and values, END; or ARRAY, the array, its end, its length, its items. */
function flatten(v: unknown, out: unknown[]): unknown[] {
  if (v === null || typeof v !== 'object') {
    out.push(v);
    return out;
  }
  const at = out.length;
  if (Array.isArray(v)) {
    out.push(ARRAY, v, 0, v.length);
    for (let i = 0; i < v.length; i++) flatten(v[i], out);
  } else {
    out.push(OBJECT, v, 0);
    // for-in without hasOwn, as sameNode walks.
    const o = v as Record<string, unknown>;
    for (const k in o) {
      out.push(k);
      flatten(o[k], out);
    }
    out.push(END);
  }
  out[at + 2] = out.length;
  return out;
}

/** Read position of {@link matchFlat} in the flat form (module state: the compare is synchronous and not re-entered). */
let flatAt = 0;

/** Whether `v` is the value {@link flatten} laid out in `flat` (read in full, to its end). */
function inFlat(v: unknown, flat: readonly unknown[]): boolean {
  flatAt = 0;
  if (v === null || typeof v !== 'object') return flat.length === 1 && v === flat[0];
  return matchFlat(v, flat) && flatAt === flat.length;
}

/** Whether object `v` is laid out at the read position (its primitives compared inline: no call per leaf, half the values). */
function matchFlat(v: object, flat: readonly unknown[]): boolean {
  const tag = flat[flatAt];
  if ((tag === OBJECT || tag === ARRAY) && v === flat[flatAt + 1]) {
    flatAt = flat[flatAt + 2] as number;
    return true;
  }
  if (Array.isArray(v)) {
    if (tag !== ARRAY || flat[flatAt + 3] !== v.length) return false;
    flatAt += 4;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x === null || typeof x !== 'object') {
        if (x !== flat[flatAt++]) return false;
      } else if (!matchFlat(x, flat)) return false;
    }
    return true;
  }
  if (tag !== OBJECT) return false;
  flatAt += 3;
  const o = v as Record<string, unknown>;
  for (const k in o) {
    if (flat[flatAt++] !== k) return false;
    const x = o[k];
    if (x === null || typeof x !== 'object') {
      if (x !== flat[flatAt++]) return false;
    } else if (!matchFlat(x, flat)) return false;
  }
  return flat[flatAt++] === END;
}

/**
 * The empty timelines the last new conversations started from, the most recently used first, each with the flat form of a private
 * JSON copy of the envelope it was built from. A process serving one agent starts every conversation from the same
 * model, system prompt and tools, and building that envelope (every tool copied and frozen, its schema checked:
 * createTimeline) cost ~15-30 µs for coding's 21 kB on each conversation's first request, more when cold. A
 * state is immutable, and states already share their parts (each request's state the previous one's envelope), so
 * a conversation whose envelope is one of these starts from that state. Compared by content in full, never by the
 * caller's objects (a loop may change a tool object in place between two conversations): the same keys in the same
 * order and the same values (inFlat against our copy: no identity can match), so a hit is an envelope
 * createTimeline builds into the same bytes. Another key order is a miss (built afresh, its own bytes kept).
 */
const initials: { readonly model: string; readonly system: readonly unknown[]; readonly tools: readonly unknown[]; readonly state: TimelineState }[] = [];
/** Envelopes kept in {@link initials} (a process serving a few agents in turn). */
const INITIALS = 4;

/** The empty timeline a new conversation with this envelope starts from, when an earlier one was built from the same. */
function knownInitial(params: PrepareParams): TimelineState | undefined {
  for (let i = 0; i < initials.length; i++) {
    const e = initials[i]!;
    if (e.model === params.model && inFlat(params.system, e.system) && inFlat(params.tools ?? [], e.tools)) {
      // Newest used first: a busy envelope stays while a few others come and go.
      if (i > 0) initials.unshift(...initials.splice(i, 1));
      return e.state;
    }
  }
  return undefined;
}

/** A new conversation's empty timeline, built, and kept for the next new conversation with the same envelope. */
function initialState(params: PrepareParams): TimelineState {
  const state = createTimeline(envelopeInput(params));
  let copy: { system?: unknown; tools?: unknown };
  try {
    copy = JSON.parse(JSON.stringify({ system: params.system, tools: params.tools ?? [] })) as typeof copy;
  } catch {
    return state; // not JSON (a cycle, a BigInt): not kept
  }
  initials.unshift({ model: params.model, system: flatten(copy.system, []), tools: flatten(copy.tools, []), state });
  if (initials.length > INITIALS) initials.length = INITIALS;
  return state;
}

/** What the envelope was built from, for {@link unchangedEnvelope} (arrays copied: an in-place push is a change). */
function sentEnvelopeOf(params: PrepareParams): SentEnvelope {
  const system = params.system;
  return { model: params.model, system: Array.isArray(system) ? [...system] : system, tools: [...(params.tools ?? [])] };
}

function envelopeInput(params: PrepareParams) {
  // An inline tool literal is typed loosely (InlineObject); the API validates tool definitions.
  return { model: params.model, instructions: instructionsOf(params.system), tools: (params.tools ?? []) as readonly ToolUnion[] };
}

/** Index of the first message that differs from the stored ones (= the shorter length when one extends the other). */
function firstMismatch(messages: readonly MessageLike[], consumed: readonly ConsumedMessage[], count: number): number {
  const n = Math.min(messages.length, count);
  for (let i = 0; i < n; i++) if (!sameMessage(messages[i]!, consumed[i]!)) return i;
  return n;
}

interface Built {
  state: TimelineState;
  consumed: ConsumedMessage[];
  /** The consumed messages' objects (see SentIndex). */
  index: SentIndex;
  appended: number;
  resync?: Resync;
  /** A cut of the stored history (fewer messages than stored): what its shadow is made from once this request rendered. */
  cut?: { before: TimelineState; mark: MessageMark; count: number; previous: CutShadow | undefined };
  /** The shadow of an earlier cut, kept: this request neither cut nor appended past it. */
  shadow?: CutShadow;
  /** The shadow this request appended past: the paths it took back (their entries rejoin the ledger). */
  reappended?: { shadow: CutShadow; kept: ReadonlySet<string> };
  /** Where the thinking starts whose prefix the stored state cannot vouch for (unvouched.ts), if anywhere. */
  unvouched?: Unvouched;
  /** The message a cut removed at its position, kept until the conversation is extended (ConversationRecord.cutMessage). */
  cutMessage?: { at: number; digest: string };
}

/** Extends (or resynchronises) the stored timeline with the incoming params. */
function build(
  record: ConversationRecord | undefined,
  params: SplitParams,
  digest: EnvelopeDigest | undefined,
  now: number,
  offset: number,
  verifyRecent: number,
  initial: TimelineState | undefined,
  api: ProviderId,
): Built {
  const messages = params.messages;
  if (!record) {
    const consumed: ConsumedMessage[] = [];
    const state = applyMessages(initial ?? initialState(params), messages, 0, consumed, now, -1, now, offset, api);
    const fresh: Built = { state, consumed, index: newSentIndex(messages, messages.length), appended: messages.length };
    // No stored state: which tails, hides or compactions the requests before sent is unknown, so is every
    // response's prefix (a conversation that starts here has no response yet).
    if (messages.some((m) => m.role === 'assistant')) fresh.unvouched = { turn: 1, round: 1, changedAt: paths.user(1, 0) };
    return fresh;
  }
  let state = record.state;
  let resync: Resync | undefined;
  // `digest` is set only when the envelope was not recognised as the one sent before: compare the digests.
  const old = digest ? envelopeOf(record) : undefined;
  if (old && digest && (old.model !== digest.model || old.system !== digest.system || old.tools !== digest.tools)) {
    state = setEnvelope(state, envelopeInput(params));
    const reason: ResyncReason = old.model !== digest.model ? 'model_changed' : old.tools !== digest.tools ? 'tools_changed' : 'system_changed';
    const what =
      reason === 'model_changed'
        ? `model ${old.model} → ${digest.model}`
        : reason === 'tools_changed'
          ? 'the tool catalog changed'
          : 'the system prompt changed';
    resync = { reason, detail: `${what}: envelope replaced, timeline and decisions kept` };
  }
  // This record's consumed messages: the first `count` of an array shared along the chain of records.
  const { list: consumedBefore, count } = consumedOf(record);
  // The index is usable when it covers the consumed messages (an imported record has none: digests decide).
  const before = record.sentIndex && record.sentIndex.messages.length >= count ? record.sentIndex : undefined;
  const found = before
    ? firstMismatchIndexed(messages, consumedBefore, before, verifyRecent, count)
    : { at: firstMismatch(messages, consumedBefore, count), identical: false };
  const d = found.at;
  let consumed: ConsumedMessage[];
  const uncut = state;
  // The shadow of the latest cut, while the conversation was not extended past it and its entries may still be warm.
  const shadow = shadowLive(record.cut, now) && record.cut.count === count ? record.cut : undefined;
  let cut: Built['cut'];
  if (d < count) {
    state = withViewDetached(uncut, truncateTo(state, consumedBefore[d]!.mark), consumedBefore[d]!.mark);
    consumed = consumedBefore.slice(0, d);
    const truncated = d === messages.length;
    if (truncated) cut = { before: uncut, mark: consumedBefore[d]!.mark, count: d, previous: shadow };
    resync = {
      reason: truncated ? 'history_truncated' : 'history_edited',
      at: d + offset,
      detail: truncated
        ? `${count - d} stored message(s) from messages[${d + offset}] are no longer sent: timeline cut back to them`
        : `messages[${d + offset}] differs from the stored conversation: timeline cut back there and rebuilt from the messages`,
    };
  } else if (consumedBefore.length === count) {
    // Nothing appended past this record's messages: extend the shared array in place (no copy of the history's list).
    consumed = consumedBefore as ConsumedMessage[];
  } else {
    consumed = consumedBefore.slice(0, count);
  }
  // The response right after the previous request is stamped with the time it was recorded (no closure: this runs per request).
  const from = consumed.length;
  state = applyMessages(state, messages, from, consumed, now, count, record.respondedAt ?? now, offset, api);
  if (d < count) state = keepUnchanged(uncut, state, consumedBefore[d]!.mark);
  let reappended: Built['reappended'];
  if (d === count && shadow && messages.length > count) {
    const back = takeBack(state, shadow);
    state = back.state;
    reappended = { shadow, kept: back.kept };
  }
  // Extend the index in place when this request re-sent exactly its objects and nothing extended it meanwhile;
  // otherwise index this request's objects (the next request re-sends these).
  let index: SentIndex;
  if (before && found.identical && from === count && before.messages.length === from) {
    index = before;
    addToIndex(index, messages, from, messages.length);
  } else index = newSentIndex(messages, messages.length);
  const built: Built = { state, consumed, index, appended: messages.length - d };
  if (d < count && d === messages.length) built.cutMessage = { at: d + offset, digest: consumedDigest(consumedBefore[d]!) };
  else if (d === count && messages.length === count && record.cutMessage) built.cutMessage = record.cutMessage;
  if (d === count) {
    // One response answers the request the stored state rendered last (its prefix is known: render/bind.ts checks
    // it); any other appended response answers a request this state never saw (a store back with an older record
    // after requests it missed, a failed save), under a prefix it cannot know.
    const last = record.state.lastRender;
    for (let i = from; last && i < messages.length; i++) {
      if (messages[i]!.role !== 'assistant') continue;
      const { turns, rounds } = consumed[i]!.mark;
      // The response that stood here before a cut back is the request before the cut's, not the cut request's.
      const wasCut = record.cutMessage?.at === i + offset && messageDigest(messages[i]!) === record.cutMessage.digest;
      if (turns === last.turn && rounds + 1 === last.round && !wasCut) continue;
      built.unvouched = { turn: turns, round: rounds + 1, changedAt: paths.response(turns, rounds + 1, 0) };
      break;
    }
  }
  if (resync) built.resync = resync;
  if (cut) built.cut = cut;
  else if (reappended) built.reappended = reappended;
  else if (d === count && shadow) built.shadow = shadow;
  return built;
}

/**
 * Whether the stored tail already is this one: then its blocks are kept (and
 * their token counts, memoized per block, are not computed again).
 */
function sameTail(state: TimelineState, tail: PrepareOptions['tail']): boolean {
  const kept = state.tail;
  if (tail === undefined) return kept.length === 0;
  if (typeof tail === 'string') return kept.length === 1 && kept[0]!.param.type === 'text' && (kept[0]!.param as TextBlockParam).text === tail;
  if (!Array.isArray(tail) || kept.length !== tail.length) return false;
  for (let i = 0; i < tail.length; i++) {
    const b = tail[i]! as { type?: unknown; text?: unknown } | null;
    if (b === null || typeof b !== 'object') return false; // setTail names it
    const k = kept[i]!.param as { type?: unknown; text?: unknown };
    // A plain text block (the common tail) compares by its text; anything else by its marker-less JSON.
    if (b.type === 'text' && k.type === 'text' && ownKeys(b) === 2 && ownKeys(k) === 2) {
      if (b.text !== k.text) return false;
    } else if (unmarkedJson(b) !== unmarkedJson(k)) return false;
  }
  return true;
}

/** How many own enumerable keys an object has, without the key list `Object.keys` allocates (the tail is compared on every request). */
function ownKeys(o: object): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k)) n++;
  return n;
}

// Profiles by model id (no overrides): resolveProfile copies the whole table on every call.
const profiles = new Map<string, ModelProfile>();

function profileOf(model: string, overrides: RenderOptions['profiles']): ModelProfile {
  if (overrides) return resolveProfile(model, overrides);
  let p = profiles.get(model);
  if (!p) {
    p = resolveProfile(model);
    if (profiles.size > 64) profiles.clear();
    profiles.set(model, p);
  }
  return p;
}

// Calibration factors per stored snapshot (immutable: a new one is saved with every recorded usage).
const factors = new WeakMap<CalibrationSnapshot, Map<string, number>>();

function tokenFactor(snapshot: CalibrationSnapshot | undefined, model: string): number {
  if (!snapshot) return 1; // never observed: Calibration's factor is 1
  let byModel = factors.get(snapshot);
  if (!byModel) factors.set(snapshot, (byModel = new Map()));
  let f = byModel.get(model);
  if (f === undefined) byModel.set(model, (f = new Calibration({}, snapshot).factor(model)));
  return f;
}

/**
 * The render's options: the caller's, with this request's clock and token
 * factor. Built by assignment, not `{ ...options, now, tokenFactor }`: V8 makes
 * that spread-and-extend an object the render's option checks read about three
 * times slower (~5 µs per request measured, when the caller passes any option).
 */
function renderOptionsOf(options: NonNullable<PrepareOptions['render']>, now: number, factor: number): RenderOptions {
  const ro: Record<string, unknown> = { now, tokenFactor: factor };
  for (const k in options) {
    if (k !== 'now' && k !== 'tokenFactor' && Object.hasOwn(options, k)) ro[k] = (options as Record<string, unknown>)[k];
  }
  return ro as RenderOptions;
}

/** The render options resolved last, and the caller's option entries they were resolved from (see resolvedOptions). */
let lastResolved: { readonly entries: readonly unknown[]; readonly options: ResolvedRenderOptions } | undefined;

/**
 * This request's resolved render options: the caller's, validated and filled in by `resolveRenderOptions` as
 * `render` does, but once for the values a loop passes on every request. The same own keys with the same values
 * (by identity, in the same order) as the options resolved last give that resolution again with this request's
 * clock and token factor (checked as the render checks them). Only options whose values are primitives, functions
 * or a BlockTokenCache are kept: a nested object (`prune`, `ttl`, a profile) can be changed in place, and is
 * resolved every time. Validating the options on every request cost ~0.35 µs, the render's profile look-up as much.
 */
function resolvedOptions(options: NonNullable<PrepareOptions['render']>, now: number, factor: number): ResolvedRenderOptions {
  const last = lastResolved;
  if (last !== undefined && Number.isFinite(now) && Number.isFinite(factor) && factor > 0 && sameEntries(options, last.entries)) {
    return withClock(last.options, now, factor);
  }
  const resolved = resolveRenderOptions(renderOptionsOf(options, now, factor));
  const entries = keptEntries(options);
  lastResolved = entries ? { entries, options: resolved } : undefined;
  return resolved;
}

/**
 * Resolved options with another clock and token factor: a literal of the known keys, in resolveRenderOptions'
 * order. `{ ...o, now, tokenFactor }` of the frozen resolution is a generic runtime copy (~0.7 µs a request on
 * Node 20, the literal ~0.15 µs). `satisfies` keeps the list whole: a key added to ResolvedRenderOptions and not
 * copied here is a type error.
 */
function withClock(o: ResolvedRenderOptions, now: number, tokenFactor: number): ResolvedRenderOptions {
  return Object.freeze({
    profile: o.profile,
    profiles: o.profiles,
    now,
    policy: o.policy,
    preTailOffset: o.preTailOffset,
    ttl: o.ttl,
    adaptiveTtl: o.adaptiveTtl,
    prune: o.prune,
    pruneOnCompaction: o.pruneOnCompaction,
    compact: o.compact,
    tokens: o.tokens,
    expectedRemaining: o.expectedRemaining,
    tokenFactor,
    summarizer: o.summarizer,
    summarizerTimeoutMs: o.summarizerTimeoutMs,
  } satisfies Required<ResolvedRenderOptions>);
}

/** `[key, value, …]` of the options' own keys, or undefined when a value is an object other than a BlockTokenCache. */
function keptEntries(options: object): unknown[] | undefined {
  const entries: unknown[] = [];
  const o = options as Record<string, unknown>;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    const v = o[k];
    if (v !== null && typeof v === 'object' && !(v instanceof BlockTokenCache)) return undefined;
    entries.push(k, v);
  }
  return entries;
}

/** Whether the options' own keys and values are `entries`, in order. */
function sameEntries(options: object, entries: readonly unknown[]): boolean {
  const o = options as Record<string, unknown>;
  let i = 0;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    if (entries[i] !== k || entries[i + 1] !== o[k]) return false;
    i += 2;
  }
  return i === entries.length;
}

function extrasOf(params: PrepareParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // The prompt fields by comparison, not a Set lookup (this runs on every request, once per key of the params).
  for (const k in params) {
    if (k !== 'model' && k !== 'system' && k !== 'tools' && k !== 'messages' && Object.hasOwn(params, k))
      out[k] = (params as unknown as Record<string, unknown>)[k];
  }
  return out;
}

/** The optional keys of a type. */
type OptionalKey<T> = { [K in keyof T]-?: Partial<Pick<T, K>> extends Pick<T, K> ? K : never }[keyof T];

/** The optional keys of {@link RenderPlan} that {@link planOf} copies when set. */
type CopiedPlanKey = 'firstChangePath' | 'read' | 'thinkingLost' | 'belowMinimum';

/**
 * The plan `prepare` returns: the render's plan and where the conversation stands. One object literal of the
 * known keys, the render's optional ones added when set: `Object.assign({}, plan)` and nine assignments took
 * about 0.2–0.4 µs per request (a generic copy into an object that then grows), the literal ~0.03 µs. The
 * parameter's type lists the optional keys copied: an optional key added to RenderPlan and not copied here
 * makes the call a type error (the literal's required keys are checked by its own type).
 */
function planOf(
  p: RenderPlan & Record<Exclude<OptionalKey<RenderPlan>, CopiedPlanKey>, never>,
  conversationId: string,
  revision: number | null,
  at: Pick<Rendered, 'turn' | 'round' | 'cachePoints' | 'decisions'>,
  appended: number,
  tokens: SegmentTokens,
): Writable<PreparePlan> {
  const plan: Writable<PreparePlan> = {
    warm: p.warm,
    firstChange: p.firstChange,
    cause: p.cause,
    writes: p.writes,
    usage: p.usage,
    cost: p.cost,
    bust: p.bust,
    conversationId,
    revision,
    turn: at.turn,
    round: at.round,
    appended,
    cachePoints: at.cachePoints,
    decisions: at.decisions,
    tokens,
  };
  if (p.firstChangePath !== undefined) plan.firstChangePath = p.firstChangePath;
  if (p.read !== undefined) plan.read = p.read;
  if (p.thinkingLost !== undefined) plan.thinkingLost = p.thinkingLost;
  if (p.belowMinimum !== undefined) plan.belowMinimum = p.belowMinimum;
  return plan;
}

/** This process's random part of every incarnation it gives (one `randomUUID` per process, made on first use). */
let incarnationBase: string | undefined;
let incarnations = 0;

/**
 * A new conversation's incarnation (ConversationRecord.incarnation): unique among every process's conversations,
 * which is all the stores' compare-and-set needs. A random part per process and a counter: `randomUUID` for every
 * new conversation cost ~13 µs there (the first request of each), a counter ~0.1 µs.
 */
function newIncarnation(): string {
  incarnationBase ??= globalThis.crypto.randomUUID();
  return `${incarnationBase}.${(++incarnations).toString(36)}`;
}

/** What {@link PreparePlan.localState} says. */
function localStateOf(reason: LocalStateReason, storeDown: string | undefined, stored: ConversationRecord | undefined): NonNullable<PreparePlan['localState']> {
  const detail =
    reason === 'store_unavailable'
      ? `the conversation store failed (${storeDown}): rendered from this process's copy of the conversation (the state it rendered last), its decisions kept; nothing saved`
      : `the store held ${stored ? `revision ${stored.revision}` : 'no state'}, older than this process's copy (a save failed): rendered from the copy, its decisions kept`;
  return { reason, detail };
}

function isStoreFailure(err: unknown): boolean {
  return !(err instanceof ConversationConflictError) && !(err instanceof ConversationStateError) && !(err instanceof InvalidParamsError);
}

/**
 * Renders an existing loop's request for maximum prompt-cache reuse.
 *
 * Pass the params you would send to `client.messages.create` (the whole
 * `messages` array, as a plain loop keeps it) and a conversation id; send the
 * returned `params` instead. Messages are mapped onto the stored timeline
 * incrementally; when they do not extend it (history edited or truncated, a
 * changed system prompt, tools or model) the timeline is resynchronised from
 * them and `plan.resync` says why. The request is always valid for the API.
 *
 * @throws {InvalidParamsError} for params the API would refuse (naming the field)
 * @throws {UnknownModelError} for a model id without a profile (pass `render.profiles` or `render.profile`)
 * @throws {ConversationConflictError} when another worker saved the conversation meanwhile: call again
 * @throws {ConversationStateError} when the stored state is from a newer version or corrupt
 *
 * @example
 * const { params, plan } = await prepare(
 *   { model: 'claude-sonnet-4-6', max_tokens: 4096, system, tools, messages },
 *   { conversationId: 'task-42', tail: liveView() },
 * );
 * const message = await client.messages.create(params);
 * await recordUsage(message, { conversationId: 'task-42' });
 */
export async function prepare<P extends PrepareParams>(params: P, options: PrepareOptions): Promise<Prepared<P>> {
  validate(params, options);
  const id = options.conversationId;
  const store = options.store ?? defaultConversationStore();
  const now = options.now ?? Date.now();
  const renderOptions = options.render ?? {};
  const profile: ModelProfile = renderOptions.profile ?? profileOf(params.model, renderOptions.profiles);

  let record: ConversationRecord | undefined;
  let storeDown: string | undefined;
  try {
    // The in-memory store answers synchronously: no promise round trip on the hot path.
    record = store instanceof MemoryConversationStore ? store.loadSync(id) : await store.load(id);
  } catch (err) {
    if (options.onStoreError === 'throw' || !isStoreFailure(err)) throw err;
    storeDown = err instanceof Error ? err.message : String(err);
  }
  const ctxTokens = renderOptions.tokens;
  if (record?.imported) record = rehydrate(record, profile, ctxTokens);
  // The store's answer; the state rendered from may be this process's newer copy (local-copy.ts).
  const stored = record;
  const source = store instanceof MemoryConversationStore ? undefined : sourceOf(store, id, stored, storeDown !== undefined);
  if (source) record = source.record;

  const { params: input, offset, prefill } = split(params);
  // Manual extended thinking: an open tool loop's assistant turn must start with its thinking (the API's 400); a turn
  // that holds none is sent with thinking disabled (the API's remedy), one that holds some elsewhere is refused here.
  const thinking = (params as { thinking?: unknown }).thinking;
  // Only manual thinking is checked against the model: canonicalModelId (six regular expressions) cost ~0.8 µs a request.
  if (isManualThinking(thinking)) refuseManualThinking(thinking, canonicalModelId(params.model));
  let thinkingDisabled = thinkingToDisable(thinking, input.messages, offset);
  // An envelope sent before keeps its record's digest (computed only when exported); the first request's is
  // computed only when needed too (export, or the next request's envelope differs); a changed one now.
  const recognised = record !== undefined && unchangedEnvelope(record, input);
  // A new conversation whose envelope an earlier one started from: checked when that one was built.
  const initial = record === undefined ? knownInitial(input) : undefined;
  if (!recognised && initial === undefined) validateEnvelope(params);
  const unchanged = record === undefined || recognised;
  const digest = unchanged ? undefined : envelopeDigest(input);
  // The API the request goes to: prepareConverse's documents (csv, docx, …) are Bedrock's to take, not the Messages API's.
  const api = profile.provider ?? 'anthropic';
  const built = build(record, input, digest, now, offset, options.verifyRecent ?? DEFAULT_VERIFY_RECENT, initial, api);
  let state = built.state;
  // The store holds nothing but this process sent the previous request: what it sent is a cache hint (local-copy.ts).
  const hint = record === undefined ? source?.hint : undefined;
  if (hint) {
    // These messages cut back what this process sent before (a loop that regenerates after the record was lost): the
    // response that stood at the cut answered an earlier request, not this one (as a cut of a stored history says).
    const { list, count } = consumedOf(hint.record);
    const n = input.messages.length;
    if (count > n && firstMismatch(input.messages, list, n) === n) built.cutMessage = { at: n + offset, digest: consumedDigest(list[n]!) };
  }
  refuseUnanswered(state, offset + input.messages.length - 1);
  // Models that bind thinking: the thinking whose prefix the stored state cannot vouch for is left out (sticky).
  let unvouched: Decision[] | undefined;
  if (profile.bindsThinking && built.unvouched) {
    ({ state, decisions: unvouched } = leaveOutUnvouched(state, built.unvouched, profile, ctxTokens ?? defaultTokenCache()));
  }
  // The hint is matched to the stream this request sends, after that leave-out: the copy's requests may have left the
  // same thinking out (a cut earlier on), and then their entries past it are read.
  const unhinted = state;
  if (hint) state = withLedgerHint(state, hint, profile, ctxTokens, now);
  const hinted = state !== unhinted;
  // Appended past a cut again: the entries the provider still holds there rejoin the ledger (cut-shadow.ts), as far
  // as the stream is the one it cached (after the thinking left out above, as the request before the cut left it out).
  if (built.reappended) state = withShadowLedger(state, built.reappended.shadow, built.reappended.kept, profile, ctxTokens, now);
  let hides: HideOutcome[] | undefined;
  if (options.hide && options.hide.length > 0) ({ state, outcomes: hides } = applyHides(state, options.hide, renderOptions, now));
  if (!sameTail(state, options.tail)) {
    refuseBlocks(options.tail, 'tail', api);
    state = setTail(state, options.tail ?? []);
  }
  // Without a stored state (the store down, a new process, an evicted record) the provider's cache may be warm (the
  // previous request was seconds ago, elsewhere): nothing is pruned then. A prune while warm re-writes everything
  // after it, and with no state to keep the decision the next request would do it again.
  const unknownStanding = record === undefined && built.appended > 1;
  const given = unknownStanding ? { ...renderOptions, prune: { ...renderOptions.prune, enabled: false } } : renderOptions;
  const factor = tokenFactor(record?.calibration, params.model);
  // Without a summarizer nothing can be awaited: render directly (renderAsync would plan the compaction twice), from
  // the options resolved for the values this loop passes and the profile found above (the render's own lookup of it
  // copied the whole profile table), which is the state's model's.
  const rendered = renderOptions.summarizer
    ? await renderAsync(state, renderOptionsOf(given, now, factor))
    : state.model === params.model
      ? renderResolved(state, resolvedOptions(given, now, factor), profile)
      : render(state, renderOptionsOf(given, now, factor));

  const extras = extrasOf(params);
  if (options.diagnostics) extras['diagnostics'] = { previous_message_id: record?.lastMessageId ?? null };
  let out = toAnthropic(rendered, extras as RequestExtras) as unknown as PreparedParams<P>;
  // The prefill goes last, after the tail: volatile, never marked, never kept.
  if (prefill) out = { ...out, messages: [...out.messages, { role: 'assistant', content: prefill } as PreparedParams<P>['messages'][number]] };
  // The rendered request keeps that thinking too, or (a compaction took the loop's first rounds) goes without
  // thinking: a request the API would refuse is an error here, not a 400 there.
  thinkingDisabled ??= thinkingToDisable(thinking, out.messages, offset, true);
  if (thinkingDisabled) out = { ...out, thinking: { type: 'disabled' } } as PreparedParams<P>;

  // The prefill is input the API bills (after the last marker: uncached, in input_tokens), so the plan's usage,
  // cost and token total, and what recordUsage calibrates against, include it.
  // (What pendingOf reads, not a copy of `rendered`: its stream is built only when read.)
  let priced: Pick<Rendered, 'turn' | 'round' | 'at' | 'model' | 'tokens' | 'plan' | 'profile'> = rendered;
  let prefillTokens = 0;
  if (prefill) {
    const counter = renderOptions.tokens ?? defaultTokenCache();
    for (const b of prefill) prefillTokens += counter.tokens(b);
    const usage = { ...rendered.plan.usage, input_tokens: rendered.plan.usage.input_tokens + prefillTokens };
    const cost = promptCost(rendered.profile.prices, usageTokens(usage));
    priced = {
      turn: rendered.turn,
      round: rendered.round,
      at: rendered.at,
      model: rendered.model,
      profile: rendered.profile,
      tokens: { ...rendered.tokens, total: rendered.tokens.total + prefillTokens },
      plan: { ...rendered.plan, usage, cost },
    };
  }

  const resync: Resync | undefined =
    storeDown && !source?.local
      ? {
          reason: 'store_unavailable',
          detail: `the conversation store failed (${storeDown}): rendered from the messages alone, without stored decisions; nothing saved`,
        }
      : // No record, and the messages hold a response (build sets `unvouched` then): history the store does not have.
        record === undefined && built.unvouched
        ? {
            reason: 'no_stored_state',
            detail: `the store has no state for this conversation (expired, evicted or deleted, or kept by another process) while the messages carry history: rendered from the messages alone, without stored decisions${hinted ? " (this process's ledger of what it sent last kept as a cache hint)" : ''}`,
          }
        : built.resync;
  const revision = (stored?.revision ?? 0) + 1;
  let unsaved: string | undefined;
  {
    // Built by assignment: conditional spreads in one literal are slow runtime copies (this runs on every request).
    const next: Writable<ConversationRecord> = {
      id,
      revision,
      state: rendered.state,
      consumed: built.consumed,
      consumedCount: built.consumed.length,
      sentIndex: built.index,
      sentEnvelope: unchanged && record?.sentEnvelope ? record.sentEnvelope : sentEnvelopeOf(input),
      prices: profile.prices,
      pending: pendingOf(
        priced,
        options.diagnostics
          ? { previousHadTail: record?.lastHadTail === true, diagnostics: { previousMessageId: record?.lastMessageId ?? null } }
          : { previousHadTail: record?.lastHadTail === true },
      ),
      requests: record?.requests ?? [],
      updatedAt: now,
    };
    // A new conversation gets its incarnation here (the stores' compare-and-set checks it: types.ts).
    if (record?.incarnation) next.incarnation = record.incarnation;
    else if (!record) next.incarnation = newIncarnation();
    if (digest) next.envelope = digest;
    else if (record?.envelope) next.envelope = record.envelope;
    // A tail or a prefill: the next request's messages differ from this one's (the API's diagnostics see a change).
    if (rendered.tailStart < streamLength(rendered) || prefill) next.lastHadTail = true;
    if (record?.calibration) next.calibration = record.calibration;
    const cut = built.cut ? shadowOfCut(built.cut.before, rendered.state, built.cut.mark, built.cut.count, now, built.cut.previous) : built.shadow;
    if (cut) next.cut = cut;
    if (built.cutMessage) next.cutMessage = built.cutMessage;
    if (record?.lastMessageId) next.lastMessageId = record.lastMessageId;
    if (storeDown) {
      // Nothing saved: which revision the store holds is unknown.
      if (source?.local) unsaved = `the conversation store failed at load (${storeDown}): nothing saved; this process keeps the state`;
    } else
      try {
        if (store instanceof MemoryConversationStore) store.saveSync(next, stored?.revision ?? null);
        else await store.save(next, stored?.revision ?? null);
      } catch (err) {
        if (options.onStoreError === 'throw' || !isStoreFailure(err)) throw err;
        unsaved = source
          ? `the conversation store failed to save (${err instanceof Error ? err.message : String(err)}); this process keeps the state for the next request`
          : `the conversation store failed to save (${err instanceof Error ? err.message : String(err)}); the next request resynchronises`;
      }
    if (source) keepCopy(store, id, next, !storeDown && !unsaved, source);
  }
  const plan = planOf(priced.plan, id, storeDown || unsaved ? null : revision, rendered, built.appended, priced.tokens);
  if (unvouched && unvouched.length > 0) {
    plan.decisions = [...unvouched, ...rendered.decisions];
    plan.thinkingLost = thinkingLostOf(plan.decisions, profile)!;
  }
  if (resync) plan.resync = resync;
  if (unsaved) plan.unsaved = unsaved;
  if (source?.local) plan.localState = localStateOf(source.local, storeDown, stored);
  if (prefill) plan.prefillTokens = prefillTokens;
  if (hides) plan.hides = hides;
  if (thinkingDisabled) plan.thinkingDisabled = thinkingDisabled;
  return { params: out, headers: anthropicHeaders(rendered, out), plan, rendered };
}

/** A response (SDK `Message` of any version) or just its usage. */
export type ResponseOrUsage = { readonly usage: ReportedUsage; readonly id?: string } | ReportedUsage;

/**
 * Feeds a response's usage back to its conversation, so stats, calibration and
 * the API's cache diagnostics work as in `Session`. Pass the whole `Message`
 * (its id is needed for diagnostics) or its `usage`. Retries by itself when a
 * concurrent `prepare` saved meanwhile. A store that is down (I/O, Redis
 * unreachable) loses this response's figures, never the loop: it resolves
 * false, as `prepare` falls back then (a stored state that is damaged or
 * newer is still a `ConversationStateError`).
 *
 * @returns false when there was no prepared request waiting for usage, or the store failed
 * @throws InvalidParamsError when `response` is neither a response nor its usage (no token count in `input_tokens`)
 */
export async function recordUsage(response: ResponseOrUsage, ref: ConversationRef): Promise<boolean> {
  checkRef(ref);
  checkUsage(response);
  try {
    return await recordUsageOrThrow(response, ref);
  } catch (err) {
    if (isStoreFailure(err)) return false;
    throw err;
  }
}

/**
 * What is given must be a response or its usage: anything else (a stream object, `message.content`, an event's
 * partial usage in a JavaScript loop) would be saved as a request with no figures, and break the stats of that
 * conversation in every process that shares the store.
 */
function checkUsage(response: unknown): void {
  const wrapped = typeof response === 'object' && response !== null && 'usage' in response;
  const usage: unknown = wrapped ? (response as { usage: unknown }).usage : response;
  if (typeof usage !== 'object' || usage === null) {
    throw new InvalidParamsError('usage', `expected the response message or its usage, got ${describe(usage)}`);
  }
  const count = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  const fields = usage as Record<string, unknown>;
  if (!count(fields['input_tokens'])) {
    throw new InvalidParamsError(
      'usage.input_tokens',
      `expected a token count, got ${describe(fields['input_tokens'])}: pass the response message (or its usage), not ${wrapped ? 'a partial usage' : 'this object'}`,
    );
  }
  for (const field of ['cache_read_input_tokens', 'cache_creation_input_tokens', 'output_tokens']) {
    const v = fields[field];
    if (v !== undefined && v !== null && !count(v)) throw new InvalidParamsError(`usage.${field}`, `expected a token count, got ${describe(v)}`);
  }
}

/** {@link recordUsage}, throwing the store's failures (the AI SDK middleware turns them into its warning). @internal */
export async function recordUsageOrThrow(response: ResponseOrUsage, ref: ConversationRef): Promise<boolean> {
  checkRef(ref);
  const store = ref.store ?? defaultConversationStore();
  const usage: ReportedUsage = 'usage' in response ? response.usage : response;
  const messageId = 'usage' in response && typeof response.id === 'string' ? response.id : undefined;
  for (let attempt = 0; ; attempt++) {
    const record = await store.load(ref.conversationId);
    if (!record?.pending) return false;
    const now = ref.now ?? Date.now();
    const prices = resolvePrices(record);
    const calibration = new Calibration({}, record.calibration);
    calibration.observe(record.pending.model, record.pending.localTokens, usage);
    const { pending: _done, ...rest } = record;
    const next: ConversationRecord = {
      ...rest,
      revision: record.revision + 1,
      requests: [...record.requests, requestRecord(record.requests.length, record.pending, usage, prices, response)],
      calibration: calibration.snapshot(),
      ...(messageId ? { lastMessageId: messageId } : {}),
      respondedAt: now,
      updatedAt: now,
    };
    try {
      await store.save(next, record.revision);
      return true;
    } catch (err) {
      if (!(err instanceof ConversationConflictError) || attempt >= 4) throw err;
    }
  }
}

function resolvePrices(record: ConversationRecord) {
  return record.pending?.prices ?? record.prices;
}

/**
 * A store given is a store: an object that is not (a Redis client, a Promise of a store, `{}`) would otherwise fail
 * on every call and be taken for a store that is down, silently (prepare falls back, recordUsage resolves false).
 */
function checkStore(store: unknown, field: string): void {
  if (store === undefined || store === null) return; // not given: the default store
  const problem = conversationStoreProblem(store);
  if (problem) throw new InvalidParamsError(field, problem);
}

/**
 * What is wrong with a value given as a conversation store, or undefined: it needs load() and save() (a Promise of
 * a store, the usual slip, gets a hint). Each door throws it as its own error (prepare's params, the AI SDK options).
 */
export function conversationStoreProblem(store: unknown): string | undefined {
  const s = store as { load?: unknown; save?: unknown; then?: unknown } | null;
  if (s !== null && typeof s === 'object' && typeof s.load === 'function' && typeof s.save === 'function') return undefined;
  const hint = typeof s?.then === 'function' ? ' (a Promise: await createRedisConversationStore(…) first)' : '';
  return `expected a conversation store with load() and save()${hint}`;
}

/** A conversation reference names its conversation and has no other key than store and now. */
function checkRef(ref: ConversationRef): void {
  refuseUnknownKeys(ref, REF_KEYS);
  checkStore(ref?.store, 'store');
  if (typeof ref?.conversationId !== 'string' || ref.conversationId.length === 0) {
    throw new InvalidOptionError('conversationId', 'a non-empty string is required (the conversation prepare saved)', { value: ref?.conversationId });
  }
}

/** Cache figures of a conversation (what `Session.stats()` gives for a session). */
export async function conversationStats(ref: ConversationRef): Promise<ConversationStats | undefined> {
  checkRef(ref);
  const store = ref.store ?? defaultConversationStore();
  const record = await store.load(ref.conversationId);
  if (!record) return undefined;
  const calibration = new Calibration({}, record.calibration);
  return {
    requests: record.requests,
    totals: totalsOf(record.requests, resolvePrices(record)),
    calibration: calibration.factor(record.state.model),
    pendingUsage: record.pending !== undefined,
  };
}

/**
 * The original payload at a block path of a conversation, byte-identical, even
 * after it was hidden, pruned or compacted (what `Session.recall` gives); a
 * `turns/N` path gives that turn's index. Serve it from your recall tool.
 *
 * @throws {PathNotFoundError} when nothing exists at that path (or the conversation is unknown)
 */
export async function recallFromConversation(path: string, ref: ConversationRef): Promise<ContentBlockParam> {
  checkRef(ref);
  const store = ref.store ?? defaultConversationStore();
  const record = await store.load(ref.conversationId);
  if (!record) throw new PathNotFoundError(path, `no conversation "${ref.conversationId}" in the store`);
  return recall(record.state, path);
}

/** A printable table of {@link conversationStats}. */
export async function formatConversationStats(ref: ConversationRef): Promise<string> {
  const s = await conversationStats(ref);
  if (!s) return `conversation "${ref.conversationId}": nothing recorded`;
  return formatRequests(s.requests, s.totals);
}
