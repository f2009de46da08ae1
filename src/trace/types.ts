/**
 * Session trace events (format v1, see docs/trace-format.md). A trace is one
 * agent session as it happened, one event per JSON line. The shapes follow the
 * Anthropic Messages API params so that real logs convert with little work;
 * the SDK is used for types only.
 */
import type {
  ContentBlockParam,
  RedactedThinkingBlockParam,
  TextBlockParam,
  ThinkingBlockParam,
  ToolResultBlockParam,
  ToolUnion,
  ToolUseBlockParam,
} from '../providers/anthropic-types.js';

/** The `type` tags of the format, in the order the doc lists them. */
export const TRACE_EVENT_TYPES = ['envelope', 'user', 'assistant', 'tool_results', 'tail', 'hide'] as const;

/** One of {@link TRACE_EVENT_TYPES}. */
export type TraceEventType = (typeof TRACE_EVENT_TYPES)[number];

/** Where an event came from: its 1-based physical line in the file (blank lines count). */
interface EventBase {
  readonly line: number;
}

/** A time stamp: `at` in epoch milliseconds, `atIso` exactly as written in the trace. */
interface Timed {
  /** Epoch milliseconds, parsed from {@link Timed.atIso}. */
  readonly at: number;
  /** The original ISO-8601 string, kept so that `replay` can echo it byte for byte. */
  readonly atIso: string;
}

/** One entry of the skill catalog. */
export interface TraceSkill {
  readonly name: string;
  readonly description: string;
}

/** The stable front: runtime instructions first, then agent/domain ones; tools; skills. */
export interface EnvelopeEvent extends EventBase {
  readonly type: 'envelope';
  /** Runtime instructions first, then agent/domain instructions. Becomes `system`. */
  readonly instructions: readonly string[];
  /** Anthropic tool definitions, in the order they are sent. */
  readonly tools: readonly ToolUnion[];
  readonly skills?: readonly TraceSkill[];
  /** The API model id (e.g. `claude-sonnet-4-6`). */
  readonly model?: string;
}

/** A new turn starts with a user message. */
export interface UserEvent extends EventBase, Timed {
  readonly type: 'user';
  readonly content: string | readonly ContentBlockParam[];
}

/** A block a model response may contain. */
export type AssistantBlock = TextBlockParam | ThinkingBlockParam | RedactedThinkingBlockParam | ToolUseBlockParam;

/** One model response = one round. The request for it was sent at the `at` of the event before it. */
export interface AssistantEvent extends EventBase, Timed {
  readonly type: 'assistant';
  readonly content: readonly AssistantBlock[];
}

/** A tool result as the trace records it: the API block plus how long the tool ran. */
export type TraceToolResult = ToolResultBlockParam & {
  /** Wall time of the tool run in milliseconds (not sent to the model). */
  readonly duration_ms?: number;
};

/** The results of the preceding assistant's tool_use blocks (any order), then optional runtime text. */
export interface ToolResultsEvent extends EventBase, Timed {
  readonly type: 'tool_results';
  /** `tool_result` blocks first, then any `text` blocks the runtime injects. */
  readonly content: readonly (TraceToolResult | TextBlockParam)[];
}

/** The volatile tail to render with the next request; replaces the previous tail. */
export interface TailEvent extends EventBase, Partial<Timed> {
  readonly type: 'tail';
  readonly content: readonly ContentBlockParam[];
}

/** The agent hides a block, named by the tool_use id of its result or by its logical path. */
export interface HideEvent extends EventBase, Partial<Timed> {
  readonly type: 'hide';
  readonly tool_use_id?: string;
  readonly path?: string;
  readonly note?: string;
}

/** Every event of a session trace, discriminated by `type`. */
export type TraceEvent = EnvelopeEvent | UserEvent | AssistantEvent | ToolResultsEvent | TailEvent | HideEvent;

/** Why a trace was rejected: one code per rule of the format (see docs/trace-format.md). */
export type TraceRule =
  | 'empty_trace'
  | 'invalid_json'
  | 'not_an_object'
  | 'unknown_type'
  | 'invalid_field'
  | 'invalid_time'
  | 'time_went_backwards'
  | 'first_not_envelope'
  | 'expected_user'
  | 'unexpected_event'
  | 'duplicate_tool_use'
  | 'unanswered_tool_use'
  | 'unknown_tool_use'
  | 'duplicate_tool_result'
  | 'unknown_hide_target'
  /** The line passed the format's rules but the engine refused the event (replay only; `cause` holds its error). */
  | 'engine_rejected'
  /** A value nested deeper than the reader accepts (see MAX_NESTING). */
  | 'too_deep';
