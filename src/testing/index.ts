/** `cachepoint/testing`: helpers for testing code that renders prompts, and an offline Messages API. */
export { formatRendered, isRendered, payloadLine } from './snapshot.js';
export type { FormatOptions } from './snapshot.js';
export { renderSerializer } from './vitest-serializer.js';
export { assertPrefixStable, stablePrefix, PrefixStabilityError } from './stability.js';
export { startFakeServer } from './fake-server.js';
export type { FakeMessagesServer, FakeServerOptions, RecordedError, RecordedRequest } from './fake-server.js';
export type { LoopThinking, LoopThinkingRule } from './fake-server-loop.js';
export { fromTrace } from './fake-server-script.js';
export type { ScriptedBlock, ScriptedError, ScriptedMessage, ScriptedResponse, ScriptEntry } from './fake-server-script.js';
export { noCacheUsageModel } from './fake-server-usage.js';
export type { UsageModel, UsageOutcome, UsageRejection, UsageReport } from './fake-server-usage.js';
export { validateRequest } from './fake-server-validate.js';
export type { RequestIssue, ValidatedEndpoint } from './fake-server-validate.js';
