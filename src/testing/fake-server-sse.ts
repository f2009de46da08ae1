/**
 * Server-sent events for a streamed response, in the real API's order:
 * `message_start` (with the input usage) → `ping` → per block
 * `content_block_start` / `content_block_delta`… / `content_block_stop` →
 * `message_delta` (stop reason, final usage) → `message_stop`. Text, tool
 * input and thinking are split into several deltas so that clients really
 * exercise their accumulation (the SDK's `MessageStream` rebuilds the message
 * from them).
 */
import type { ContentBlock, Message, RawMessageStreamEvent } from '../providers/anthropic-types.js';

/** One SSE frame: the `event:` name and the JSON `data:`. */
export interface SseFrame {
  readonly event: string;
  readonly data: unknown;
}

/** Splits a string into about `parts` pieces (at least one, never empty pieces except for ''). */
function chunks(text: string, parts = 3): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function blockFrames(block: ContentBlock, index: number): SseFrame[] {
  const frame = (data: RawMessageStreamEvent): SseFrame => ({ event: data.type, data });
  const stop = frame({ type: 'content_block_stop', index });
  switch (block.type) {
    case 'text':
      return [
        frame({ type: 'content_block_start', index, content_block: { ...block, text: '' } }),
        ...chunks(block.text).map((text) => frame({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })),
        stop,
      ];
    case 'tool_use':
      return [
        frame({ type: 'content_block_start', index, content_block: { ...block, input: {} } }),
        ...chunks(JSON.stringify(block.input ?? {})).map((partial_json) =>
          frame({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }),
        ),
        stop,
      ];
    case 'thinking':
      return [
        frame({ type: 'content_block_start', index, content_block: { ...block, thinking: '', signature: '' } }),
        ...chunks(block.thinking).map((thinking) => frame({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } })),
        frame({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }),
        stop,
      ];
    default:
      // redacted_thinking and server-tool blocks arrive whole in their start event.
      return [frame({ type: 'content_block_start', index, content_block: block } as RawMessageStreamEvent), stop];
  }
}

/** The frames of a complete message, streamed. */
export function messageFrames(message: Message): SseFrame[] {
  const { usage } = message;
  const start: Message = {
    ...message,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    stop_details: null,
    // The real API reports a token or so of output at the start; the final count comes in message_delta.
    usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens) },
  };
  return [
    { event: 'message_start', data: { type: 'message_start', message: start } },
    { event: 'ping', data: { type: 'ping' } },
    ...message.content.flatMap((block, i) => blockFrames(block, i)),
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence, stop_details: null, container: null },
        usage: {
          output_tokens: usage.output_tokens,
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          output_tokens_details: null,
          server_tool_use: null,
        },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

/** Serializes one frame in the SSE wire format. */
export function formatFrame(frame: SseFrame): string {
  return `event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
}
