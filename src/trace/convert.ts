/**
 * Converting a logged Messages API request into a trace. A request body holds
 * the whole conversation so far (`system`, `tools`, `messages`), so the last
 * request of a session is enough to rebuild the session's events; only times
 * are missing, and the caller supplies them or gets evenly spaced synthetic
 * ones. The result is checked by the trace reader before it is returned.
 */
import type { ToolUnion } from '../providers/anthropic-types.js';
import { InvalidOptionError } from '../errors.js';
import { withoutMarker } from '../internal/blocks.js';
import { formatTrace } from './format.js';
import { parseTrace } from './parse.js';
import type { TraceEvent, TraceSkill } from './types.js';

/** The parts of a Messages API request body the converter reads. */
export interface LoggedRequest {
  readonly model?: string;
  readonly system?: string | readonly { readonly type: 'text'; readonly text: string }[];
  readonly tools?: readonly ToolUnion[];
  readonly messages: readonly { readonly role: string; readonly content: string | readonly unknown[] }[];
}

export interface ConvertOptions {
  /**
   * One ISO-8601 time per message (when the user sent it, the response
   * completed, or the last tool result arrived). Default: `start` plus
   * `stepMs` per message.
   */
  readonly times?: readonly string[];
  /** Time of the first message when `times` is not given (default `2026-01-01T00:00:00.000Z`). */
  readonly start?: string;
  /** Spacing of synthetic times in milliseconds (default 5000). */
  readonly stepMs?: number;
  /** The skill catalog, which a request body does not carry separately. */
  readonly skills?: readonly TraceSkill[];
  /** Name used in error messages of the final check. */
  readonly file?: string;
}

type Block = Record<string, unknown>;

// cache_control markers are the engine's to place: a logged request carries the
// old placement, which replay must not inherit.
const strip = (block: unknown): unknown => withoutMarker(block);

/**
 * Rebuilds a trace from the last logged request of a session: the envelope from
 * `system`/`tools`/`model`, then one event per message (`user` messages that
 * answer tool calls become `tool_results`). Blocks are kept byte for byte except
 * `cache_control`, which is removed.
 *
 * @throws {InvalidOptionError} when `times` does not have one entry per message
 * @throws {TraceParseError} when the conversation breaks a rule of the format (e.g. an unanswered tool_use)
 *
 * @example
 * const body = JSON.parse(readFileSync('last-request.json', 'utf8'));
 * writeFileSync('session.jsonl', formatTrace(requestToTrace(body, { times })));
 */
export function requestToTrace(request: LoggedRequest, options: ConvertOptions = {}): TraceEvent[] {
  const messages = request.messages.filter((m) => m.role !== 'system');
  const { times } = options;
  if (times !== undefined && times.length !== messages.length)
    throw new InvalidOptionError('times', `needs one time per message: ${messages.length} messages, ${times.length} times`);
  const start = Date.parse(options.start ?? '2026-01-01T00:00:00.000Z');
  if (Number.isNaN(start)) throw new InvalidOptionError('start', `must be an ISO-8601 time, got "${options.start}"`);
  const step = options.stepMs ?? 5000;
  const at = (i: number) => times?.[i] ?? new Date(start + i * step).toISOString();

  const system = request.system === undefined ? [] : typeof request.system === 'string' ? [request.system] : request.system.map((b) => b.text);
  const lines: unknown[] = [
    {
      type: 'envelope',
      ...(request.model === undefined ? {} : { model: request.model }),
      instructions: system,
      tools: (request.tools ?? []).map(strip),
      ...(options.skills === undefined ? {} : { skills: options.skills }),
    },
  ];
  messages.forEach((m, i) => {
    const content = typeof m.content === 'string' ? m.content : m.content.map(strip);
    if (m.role === 'assistant') {
      lines.push({ type: 'assistant', at: at(i), content: typeof content === 'string' ? [{ type: 'text', text: content }] : content });
      return;
    }
    const isResults = Array.isArray(content) && content.length > 0 && (content[0] as Block).type === 'tool_result';
    lines.push({ type: isResults ? 'tool_results' : 'user', at: at(i), content });
  });
  // Serialize and re-read: the reader's rules are the definition of a valid trace.
  const text = lines.map((l) => JSON.stringify(l)).join('\n');
  const events = parseTrace(text, options.file);
  return parseTrace(formatTrace(events), options.file);
}
