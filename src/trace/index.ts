export { TraceParseError } from './errors.js';
export { formatTrace, toWire } from './format.js';
export { parseTrace, readTrace, TraceLineParser } from './reader.js';
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
export { FIXTURE_SPECS } from './fixtures.js';
export type { FixtureSpec } from './fixtures.js';
export { generateTrace, TRACE_PROFILES } from './generate.js';
export type { GenerateOptions, TraceProfile } from './generate.js';
export { Rng } from './rng.js';
export { requestToTrace } from './convert.js';
export type { ConvertOptions, LoggedRequest } from './convert.js';
