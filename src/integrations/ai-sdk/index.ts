/**
 * `cachepoint/ai-sdk`: cachepoint for the Vercel AI SDK. Needs the optional
 * peers `ai` (5.x, 6.x or 7.x) and, for the model, `@ai-sdk/anthropic` (2.x,
 * 3.x or 4.x, the one made for that `ai`; or the AI SDK's Bedrock / Vertex
 * Anthropic providers, `@ai-sdk/openai`, `@ai-sdk/amazon-bedrock`).
 */
export { cachepointMiddleware, isAnthropicProvider, isServedProvider } from './middleware.js';
export { providerFamily } from './providers.js';
export type { ProviderFamily } from './providers.js';
export type {
  CachepointCallOptions,
  CachepointMiddlewareOptions,
  CachepointPlanEvent,
  CachepointWarning,
  CachepointWarningCode,
  TailContext,
} from './middleware.js';
export { createRecallTool } from './recall.js';
export type { RecallToolOptions } from './recall.js';
export { fromAnthropicPrompt } from './from-anthropic.js';
export { toAnthropicPrompt, UnmappablePromptError } from './to-anthropic.js';
export type { AnthropicPrompt } from './to-anthropic.js';
export { reportedUsage } from './usage.js';
export type { AnthropicUsage } from './usage.js';
