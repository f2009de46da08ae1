export { formatImported, TraceBuilder, estimatedEnvelope, fillerText } from './common.js';
export type { EnvelopeEstimate } from './common.js';
export { DEFAULT_ENVELOPE_TOKENS } from './claude-code.js';
export { ImportError } from './errors.js';
export { importLog, IMPORT_FORMATS } from './formats.js';
export type { ImportedTrace, ImportFormat, ImportResult, SourceLine, WireEvent } from './types.js';
