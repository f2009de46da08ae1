/**
 * cachepoint: render LLM agent prompts for maximum prompt-cache reuse, and cache
 * tool results without ever serving a stale one.
 *
 * Public API: explicit named exports only. Test helpers live in
 * `cachepoint/testing`, the Redis store in `cachepoint/redis`.
 */

// Errors
export {
  CachepointError,
  ContextOverflowError,
  ConversationConflictError,
  ConversationStateError,
  ConversationStoreError,
  HideRefusedError,
  InvalidOptionError,
  InvalidParamsError,
  PathNotFoundError,
  TimelineError,
  TtlOrderError,
  ProviderMappingError,
  UnknownModelError,
} from './errors.js';
export type { ErrorCode } from './errors.js';

// Models
export {
  apiModelId,
  canonicalModelId,
  CONTEXT_1M_BETA,
  customProfile,
  DEFAULT_MODEL,
  LONG_CONTEXT_BETA_MODELS,
  longContextProfile,
  MODEL_PROFILES,
  resolveProfile,
} from './models/profiles.js';
export { priceTokens, priceUsage, promptCost, usageTokens } from './models/pricing.js';
export type { PromptTokens, PromptUsage, ReportedUsage, UsageCost } from './models/pricing.js';
export type { LongContextPrices, ModelPrices, ModelProfile } from './models/profiles.js';

// Tokens
export { BlockTokenCache, blockText, charCounter, tiktokenCounter } from './tokens/counter.js';
export type { TokenCounter } from './tokens/counter.js';

// Timeline state
export {
  appendResponse,
  appendToolResults,
  createTimeline,
  setEnvelope,
  setTail,
  startTurn,
  toParam,
} from './timeline/edit.js';
export type { CreateTimelineInput, EnvelopeInput } from './timeline/edit.js';
export { findBlock, parseTimelinePath, paths } from './timeline/paths.js';
export type {
  Block,
  BlockPath,
  DeferredHide,
  Envelope,
  HiddenRecord,
  HideReason,
  LastRender,
  Round,
  Segment,
  Skill,
  Summary,
  TimelineState,
  ToolBlock,
  Turn,
} from './timeline/types.js';

// Rendering
export { render } from './render/render.js';
export { PASSES } from './render/pipeline.js';
export type { Pass, PassContext, PassName, RenderWork } from './render/context.js';
export { defaultTokenCache } from './render/context.js';
export type { MissCause, PlannedUsage, RenderPlan } from './render/types.js';
export { resolveRenderOptions, RENDER_OPTION_KEYS } from './render/options.js';
export type { RenderPolicy, ResolvedRenderOptions } from './render/options.js';
export { editableZoneStart, hideBlock, recall } from './render/hide-block.js';
export type { HideOptions, HideResult } from './render/hide-block.js';
export { positions, prefixTokens } from './render/projection.js';
export { resolveTtls } from './render/options.js';
export type {
  CachePoint,
  CachePointLabel,
  CacheTtl,
  CompactOptions,
  Decision,
  GatePrice,
  PruneOptions,
  Rendered,
  RenderOptions,
  SegmentTokens,
  StreamBlock,
  StreamKind,
  StreamRole,
} from './render/types.js';

// The Messages API shapes cachepoint takes and gives (its own: no @anthropic-ai/sdk needed; the SDK's assign both ways)
export type {
  AnthropicRequestParams,
  CacheControlEphemeral,
  ContainerUploadBlockParam,
  ContentBlock,
  ContentBlockParam,
  CountTokensClient,
  DocumentBlockParam,
  ImageBlockParam,
  Message,
  MessageCountTokensParams,
  MessageCreateParamsBase,
  MessageCreateParamsNonStreaming,
  MessageParam,
  MessagesCreateClient,
  MessageTokensCount,
  Passthrough,
  PortableContentBlockParam,
  PortableMessageParam,
  PortableToolResultBlockParam,
  PortableToolUnion,
  RedactedThinkingBlockParam,
  SearchResultBlockParam,
  ServerTool,
  ServerToolResultBlockParam,
  ServerToolUseBlockParam,
  StopReason,
  TextBlock,
  TextBlockParam,
  ThinkingBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUnion,
  ToolUseBlock,
  ToolUseBlockParam,
  Usage,
} from './providers/anthropic-types.js';

// Provider mapping
export { anthropicHeaders, serializeWithOffsets, stripCacheControl, toAnthropic } from './providers/anthropic.js';
export type { RequestExtras } from './providers/anthropic.js';
export { fromOpenAIChatCompletion, fromOpenAIResponse, toOpenAIChat, toOpenAIResponses } from './providers/openai.js';
export type { OpenAIExtras, ResponseBlocks } from './providers/openai.js';
export type { OpenAIChatParams, OpenAIResponsesParams } from './providers/openai-types.js';
export { OPENAI, OPENAI_MODELS } from './providers/openai-profile.js';
export { BEDROCK, bedrockProfile, fromConverseOutput, toBedrockConverse } from './providers/bedrock.js';
export type { BedrockExtras, ConverseResponseBlock } from './providers/bedrock.js';
export { collectConverseStream, ConverseStreamCollector } from './providers/bedrock-stream.js';
export type { CollectedConverseBlock, CollectedConverseResponse, ConverseStreamEventLike, ConverseUsage } from './providers/bedrock-stream.js';
export type { BedrockConverseInput } from './providers/bedrock-types.js';
export { PROVIDER_IDS, providerProfile, toProviderRequest } from './providers/registry.js';
export type { ProviderRequestOptions } from './providers/registry.js';
export type { CachingRules, ProviderId, ProviderProfile, Sourced } from './providers/types.js';

// Tool-result cache
export {
  canonicalJson,
  CanonicalKeyError,
  claudeCodeTools,
  fileTag,
  formatStats,
  hashArgs,
  MemoryToolCacheStore,
  parseTag,
  resolvePolicy,
  SingleFlight,
  ToolCache,
  toolCacheKey,
} from './toolcache/index.js';
export type {
  CachedContent,
  CacheStatus,
  ClaudeCodeToolsOptions,
  EvictionReason,
  FlightCoordinator,
  FlightTicket,
  MemoryEvictionReason,
  MemoryToolCacheStoreOptions,
  ParsedTag,
  ResolvedPolicy,
  StoredEntry,
  TagExtractor,
  ToolCacheOptions,
  ToolCacheStats,
  ToolCacheStore,
  ToolCallOptions,
  ToolCallResult,
  ToolPolicy,
  ToolRunner,
  ToolRunResult,
  ToolStats,
  ToolTtl,
  ToolUseLike,
} from './toolcache/index.js';

// Traces
export { formatTrace, parseIsoTime, parseTrace, TRACE_EVENT_TYPES, TraceLineParser, TraceParseError } from './trace/index.js';
export type {
  AssistantEvent,
  EnvelopeEvent,
  HideEvent,
  TailEvent,
  ToolResultsEvent,
  TraceEvent,
  TraceEventType,
  UserEvent,
} from './trace/index.js';

// Async rendering, compaction and summarizers
export { renderAsync } from './render/render.js';
export { planCompaction } from './render/compact.js';
export type { CompactionPlan, SummaryTexts } from './render/compact.js';
export { extractiveSummarizer, llmSummarizer } from './summarize/index.js';
export type { ExtractiveOptions, LlmSummarizerOptions, Summarizer, SummaryInput, SummaryOutput, SummaryUsage } from './summarize/index.js';

// Calibration and exact counting
export { Calibration } from './tokens/calibration.js';
export type { CalibrationOptions, CalibrationSnapshot, CalibrationStats, ReportedInput } from './tokens/calibration.js';
export { exactCounter } from './tokens/exact.js';
export type { ExactCounter, ExactCounterOptions } from './tokens/exact.js';

// Recall: payload stores and the recall tool
export {
  handleRecall,
  MemoryPayloadStore,
  PayloadStoreError,
  recallTool,
  recallToolResult,
  recordState,
  UnsafePathError,
} from './recall/index.js';
export type { PayloadStore, RecallInput, RecallResult, SearchHit, StoredPayload } from './recall/index.js';

// The agent-loop session
export { Session } from './session/session.js';
export type { SessionOptions, SessionStats, SessionStream, StepOptions } from './session/session.js';
export type { CallOptions, MessageOf, MessagesClient, MessageStreamLike, StreamEventLike } from './session/client.js';
export type { RequestDiagnostics, RequestRecord, SessionTotals } from './session/stats.js';

// The drop-in door: prepare() in front of an existing loop, conversation stores
export {
  conversationStats,
  defaultConversationStore,
  exportState,
  formatConversationStats,
  importState,
  MemoryConversationStore,
  prepare,
  recallFromConversation,
  recordUsage,
  STATE_FORMAT,
  STATE_VERSION,
} from './conversation/index.js';
export type {
  ConsumedMessage,
  ConversationRecord,
  ConversationRef,
  ConversationStats,
  ConversationStore,
  CutShadow,
  EnvelopeDigest,
  ExportedConversation,
  HideOutcome,
  HideRequest,
  ImportedRender,
  MemoryConversationStoreOptions,
  MessageLike,
  MessageMark,
  Prepared,
  PreparedParams,
  PrepareOptions,
  ShadowEntry,
  PrepareParams,
  PreparePlan,
  ResponseOrUsage,
  Resync,
  ResyncReason,
  SentEnvelope,
  SentIndex,
} from './conversation/index.js';

// The drop-in door for a Bedrock Converse loop (ConverseCommand / ConverseStreamCommand)
export { prepareConverse, recordConverseUsage } from './conversation/prepare-converse.js';
export type { ConverseParams, PreparedConverse } from './conversation/prepare-converse.js';

// Replay and measurement
export { replay, replayAll } from './replay/replay.js';
export type { ReplayedRequest, ReplayOptions } from './replay/replay.js';
export { compareTrace } from './replay/compare.js';
export type { TraceComparison } from './replay/compare.js';
export {
  BASELINES,
  CacheSimulator,
  compareStrategies,
  formatExplain,
  formatRequestTable,
  formatTotals,
  idealBound,
  simulateAll,
  simulationJson,
} from './sim/index.js';
export type { Baseline, BaselineId, Comparison, IdealRun, RequestExplain, SimRequest, SimResult, SimulatorOptions, StrategySummary } from './sim/index.js';
export { generateTrace } from './synthetic/generate.js';
export { requestToTrace } from './trace/convert.js';
export type { ConvertOptions, LoggedRequest } from './trace/convert.js';
export type { GenerateOptions, TraceProfile } from './synthetic/generate.js';
