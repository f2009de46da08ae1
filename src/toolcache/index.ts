/** The tool-result cache: policy, canonical keys, the memoizer, stores, stats. */
export { ToolCache } from './tool-cache.js';
export type {
  CacheStatus,
  ToolCacheOptions,
  ToolCallOptions,
  ToolCallResult,
  ToolRunner,
  ToolRunResult,
  ToolUseLike,
} from './types.js';
export { claudeCodeTools } from './claude-code.js';
export type { ClaudeCodeToolsOptions } from './claude-code.js';
export { fileTag, parseTag, resolvePolicy } from './policy.js';
export type { ParsedTag, ResolvedPolicy, TagExtractor, ToolPolicy, ToolTtl } from './policy.js';
export { canonicalJson, CanonicalKeyError, hashArgs, toolCacheKey } from './key.js';
export { DEFAULT_MAX_ENTRIES, MemoryToolCacheStore } from './memory-store.js';
export type { MemoryEvictionReason, MemoryToolCacheStoreOptions } from './memory-store.js';
export { SingleFlight, TIMED_OUT } from './singleflight.js';
export type { FlightTicket } from './singleflight.js';
export { formatStats } from './stats.js';
export type { EvictionReason, ToolCacheStats, ToolStats } from './stats.js';
export type { CachedContent, FlightCoordinator, StoredEntry, ToolCacheStore } from './store.js';
