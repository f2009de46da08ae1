/** Payload store for recall: stores, the state recorder and the recall tool. */
export { PayloadStoreError, UnsafePathError } from './errors.js';
export { MemoryPayloadStore } from './memory.js';
export { assertSafePath, comparePaths } from './paths.js';
export { forgottenPaths, recordState, type RecordResult } from './record.js';
export { handleRecall, payloadAsContent, recallTool, recallToolResult, type RecallInput, type RecallResult, type RecallSources } from './recall-tool.js';
export { payloadText, rank } from './search.js';
export type { PayloadStore, PutMeta, PutStatus, SearchHit, SearchOptions, StoredPayload, StoreReason } from './types.js';
