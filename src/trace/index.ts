/** The session trace format (docs/trace-format.md): types, reader and validation, writer, and the converter from logged requests. */
export { TraceParseError } from './errors.js';
export { formatTrace, toWire } from './format.js';
export { parseTrace, TraceLineParser } from './parse.js';
export { parseIsoTime } from './validate.js';
export { TRACE_EVENT_TYPES } from './types.js';
export type {
  AssistantBlock,
  AssistantEvent,
  EnvelopeEvent,
  HideEvent,
  TailEvent,
  ToolResultsEvent,
  TraceEvent,
  TraceEventType,
  TraceRule,
  TraceSkill,
  TraceToolResult,
  UserEvent,
} from './types.js';
export { requestToTrace } from './convert.js';
export type { ConvertOptions, LoggedRequest } from './convert.js';
