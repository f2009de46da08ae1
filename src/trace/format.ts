import type { TraceEvent } from './types.js';

/** The JSON object one event is written as, with keys in the format's order. */
export function toWire(event: TraceEvent): Record<string, unknown> {
  switch (event.type) {
    case 'envelope':
      return {
        type: event.type,
        ...(event.model === undefined ? {} : { model: event.model }),
        instructions: event.instructions,
        tools: event.tools,
        ...(event.skills === undefined ? {} : { skills: event.skills }),
      };
    case 'user':
    case 'assistant':
    case 'tool_results':
      return { type: event.type, at: event.atIso, content: event.content };
    case 'tail':
      return { type: event.type, ...(event.atIso === undefined ? {} : { at: event.atIso }), content: event.content };
    case 'hide':
      return {
        type: event.type,
        ...(event.atIso === undefined ? {} : { at: event.atIso }),
        ...(event.tool_use_id === undefined ? {} : { tool_use_id: event.tool_use_id }),
        ...(event.path === undefined ? {} : { path: event.path }),
        ...(event.note === undefined ? {} : { note: event.note }),
      };
  }
}

/**
 * Serializes events as a JSONL trace: one compact JSON object per line, a
 * final newline. `at` is written from `atIso`, so a parsed trace round-trips
 * byte for byte when it was written compactly with the format's key order.
 *
 * @example
 * writeFileSync('session.jsonl', formatTrace(generateTrace({ profile: 'coding', seed: 7 })));
 */
export function formatTrace(events: Iterable<TraceEvent>): string {
  let out = '';
  for (const e of events) out += `${JSON.stringify(toWire(e))}\n`;
  return out;
}
