/** The drop-in door: `prepare`, conversation stores, state export/import. */
export {
  conversationStats,
  defaultConversationStore,
  formatConversationStats,
  prepare,
  recallFromConversation,
  recordUsage,
} from './prepare.js';
export type {
  ConversationRef,
  ConversationStats,
  HideOutcome,
  HideRequest,
  Prepared,
  PreparedParams,
  PrepareOptions,
  PrepareParams,
  PreparePlan,
  ResponseOrUsage,
  Resync,
  ResyncReason,
} from './prepare.js';
export { MemoryConversationStore } from './memory-store.js';
export type { MemoryConversationStoreOptions } from './memory-store.js';
export { exportState, importState, STATE_FORMAT, STATE_VERSION } from './state.js';
export type { ExportedConversation } from './state.js';
export type { MessageLike } from './mapping.js';
export type {
  ConsumedMessage,
  ConversationRecord,
  ConversationStore,
  CutShadow,
  EnvelopeDigest,
  ImportedRender,
  MessageMark,
  SentEnvelope,
  SentIndex,
  ShadowEntry,
} from './types.js';
