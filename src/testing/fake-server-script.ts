/**
 * Scripted assistant responses for the fake Messages API server: what the
 * "model" answers, one entry per request, in order. Entries are content blocks
 * as a model produces them (fields the API adds, such as a tool_use's
 * `caller`, are filled in), a partial message, a function
 * of the request, or an API error to answer instead.
 */
import type { ContentBlock, MessageCreateParamsBase, StopReason } from '../providers/anthropic-types.js';

// TYPES

/** A content block of a scripted response (minimal fields; `tool_use.id` is generated when absent). */
export type ScriptedBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id?: string; readonly name: string; readonly input: unknown }
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature?: string }
  | { readonly type: 'redacted_thinking'; readonly data: string }
  | ContentBlock;

/** A scripted response with more than content. */
export interface ScriptedMessage {
  readonly content: readonly ScriptedBlock[];
  /** Defaults to `tool_use` when the content has a tool_use block, else `end_turn`. */
  readonly stop_reason?: StopReason;
  readonly stop_sequence?: string | null;
  /** Overrides the estimate from the content's token count. */
  readonly output_tokens?: number;
  /** Overrides the echo of the request's model. */
  readonly model?: string;
}

/** Answer this request with an API error instead of a message (e.g. a 529 `overloaded_error`). */
export interface ScriptedError {
  readonly error: { readonly status: number; readonly type: string; readonly message: string };
}

/** One scripted answer. */
export type ScriptedResponse = readonly ScriptedBlock[] | ScriptedMessage | ScriptedError;

/** A scripted answer, or a function that computes it from the request (its index counts model responses, from 0). */
export type ScriptEntry = ScriptedResponse | ((request: MessageCreateParamsBase, index: number) => ScriptedResponse);

// IMPLEMENTATION

/** Whether a scripted answer is an error. */
export function isScriptedError(r: ScriptedResponse): r is ScriptedError {
  return !Array.isArray(r) && 'error' in r;
}

/** The response fields of a scripted answer: SDK-shaped content and the stop reason. */
export function materialize(
  r: ScriptedMessage | readonly ScriptedBlock[],
  nextToolId: () => string,
): { content: ContentBlock[]; stop_reason: StopReason; stop_sequence: string | null; output_tokens?: number; model?: string } {
  const m: ScriptedMessage = Array.isArray(r) ? { content: r as readonly ScriptedBlock[] } : (r as ScriptedMessage);
  const content = m.content.map((b) => toContentBlock(b, nextToolId));
  const stop_reason = m.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return {
    content,
    stop_reason,
    stop_sequence: m.stop_sequence ?? null,
    ...(m.output_tokens === undefined ? {} : { output_tokens: m.output_tokens }),
    ...(m.model === undefined ? {} : { model: m.model }),
  };
}

function toContentBlock(b: ScriptedBlock, nextToolId: () => string): ContentBlock {
  switch (b.type) {
    case 'text':
      // No `citations` on uncited text: the SDK's type says `| null`, but @ai-sdk/anthropic 2.x and 3.x, used against
      // the real API, refuse null there (their response schema takes an array or no field), so the API omits it.
      return { ...b, type: 'text', text: b.text } as ContentBlock;
    case 'tool_use':
      return { caller: { type: 'direct' }, ...b, id: b.id ?? nextToolId(), type: 'tool_use' } as ContentBlock;
    case 'thinking':
      return { signature: 'fake-signature', ...b, type: 'thinking' } as ContentBlock;
    default:
      return b as ContentBlock;
  }
}

/** A response block never carries a cache marker; a trace's block param may. */
function unmarked(block: unknown): ScriptedBlock {
  if (block === null || typeof block !== 'object' || !('cache_control' in block)) return block as ScriptedBlock;
  const { cache_control: _marker, ...rest } = block as Record<string, unknown>;
  return rest as unknown as ScriptedBlock;
}

/**
 * Builds a script from the assistant events of a trace (shared/TRACE-FORMAT.md):
 * every `{ type: 'assistant', content }` event becomes one response, in order;
 * other events are skipped. Accepts already-parsed events (e.g. `parseTrace`
 * from the trace reader). Cache markers in the recorded blocks are dropped.
 *
 * @example
 * const server = await startFakeServer({ script: fromTrace(events) });
 */
export function fromTrace(events: Iterable<unknown>): ScriptedResponse[] {
  const out: ScriptedResponse[] = [];
  for (const event of events) {
    if (event === null || typeof event !== 'object') continue;
    const e = event as { type?: unknown; content?: unknown };
    if (e.type !== 'assistant') continue;
    if (typeof e.content === 'string') out.push([{ type: 'text', text: e.content }]);
    else if (Array.isArray(e.content)) out.push(e.content.map(unmarked));
  }
  return out;
}
